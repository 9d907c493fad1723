// results.json: what a machine reads after CI grading (the model is model.ts).
import type { ResultsReport } from './model.ts';

/** results.json's text. */
export function toResultsJson(report: ResultsReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
