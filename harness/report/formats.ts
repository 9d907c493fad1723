// The report files theinference writes (report-files.ts names them), each with its renderer: the
// command-line options of `test` and `merge-reports` and CI mode read this table. A new format is a
// module with a `render`, one entry in report-files.ts and one here.
import { ReportError } from '../errors.ts';
import { writeAtomically } from '../files.ts';
import { toHtml } from './html.ts';
import { toResultsJson } from './json.ts';
import type { ResultsReport } from './model.ts';
import { toJUnit } from './junit.ts';
import { toStoppedSummary, toSummary } from './summary.ts';
import { REPORT_FILES, type ReportOption } from './report-files.ts';
import type { Reporter } from './reporter.ts';

export interface ReportFormat {
  /** `--<option> <file>` asks for it. */
  option: ReportOption;
  /** What the file is, for the usage text and the line that says where it went. */
  what: string;
  render(report: ResultsReport): string;
  /** Where a run stopped before a report of it could be made: the file that still says why, if this format has one. */
  renderStopped?(reason: string): string;
}

const RENDERERS: Record<ReportOption, ReportFormat['render']> = { report: toResultsJson, junit: toJUnit, html: toHtml, summary: toSummary };

const STOPPED: Partial<Record<ReportOption, ReportFormat['renderStopped']>> = { summary: toStoppedSummary };

export const REPORT_FORMATS: readonly ReportFormat[] = REPORT_FILES.map((file) => ({
  ...file,
  render: RENDERERS[file.option],
  ...(STOPPED[file.option] && { renderStopped: STOPPED[file.option] }),
}));

/** `--html` as watch mode writes it: a page that, served by live-page.ts, reloads after each grading. */
export function liveHtml(format: ReportFormat): ReportFormat {
  return format.option === 'html' ? { ...format, render: (report) => toHtml(report, { live: true }) } : format;
}

/** The report files asked for on a command line, in table order. */
export function requestedFiles(values: Partial<Record<ReportOption, string>>): { format: ReportFormat; path: string }[] {
  return REPORT_FORMATS.flatMap((format) => (values[format.option] === undefined ? [] : [{ format, path: values[format.option]! }]));
}

/** A reporter that writes one file at the end: atomically, so a reader never sees half of it. */
export function fileReporter(format: ReportFormat, path: string): Reporter {
  return {
    finish(report) {
      const text = format.render(report);
      try {
        writeAtomically(path, text, { overwrite: true });
      } catch (error) {
        throw new ReportError(`--${format.option} ${path}: could not write it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      }
    },
  };
}

/** The report files of a run that stopped with an error (exit 2), each saying why: made from its report
 *  (whose `problems` hold the one-line reason), or, where no report could be made, from the reason alone,
 *  in the formats that can say it so (the summary). A file that cannot be written is left: the run's
 *  one-line error, on stderr, says what matters. */
export function writeStopped(files: readonly { format: ReportFormat; path: string }[], stopped: ResultsReport | string): void {
  for (const { format, path } of files) {
    const text = typeof stopped === 'string' ? format.renderStopped?.(stopped) : format.render(stopped);
    if (text === undefined) continue;
    try {
      writeAtomically(path, text, { overwrite: true });
    } catch {
      // the one-line error says what matters
    }
  }
}
