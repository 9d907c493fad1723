// What every reporter is: told each stage and verdict as grading goes, then given the finished
// run as results.json holds it. The terminal prints as it goes; a file format writes at the end.
// Reporters decide nothing; they only turn verdicts into their own text.
import type { StageEvents } from '../grade/stages.ts';
import type { ResultsReport } from './model.ts';

export interface Reporter extends StageEvents {
  /** The run is over (not called when it was stopped): the whole of it, as results.json holds it. */
  finish?(report: ResultsReport): void;
}

/** Tells each of several reporters, in order, what happens. */
export function allOf(reporters: readonly Reporter[]): Required<Reporter> {
  return {
    stageStart: (stage) => reporters.forEach((reporter) => reporter.stageStart?.(stage)),
    verdict: (verdict) => reporters.forEach((reporter) => reporter.verdict?.(verdict)),
    stageEnd: (result) => reporters.forEach((reporter) => reporter.stageEnd?.(result)),
    finish: (report) => reporters.forEach((reporter) => reporter.finish?.(report)),
  };
}
