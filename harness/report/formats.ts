// The report files theinference writes, in one table: the command-line options of `test` and
// `merge-reports`, their usage lines and CI mode all read it. A new format is a module with a
// `render` and one entry here.
import { ReportError } from '../errors.ts';
import { writeAtomically } from '../files.ts';
import { toHtml } from './html.ts';
import { toResultsJson, type ResultsReport } from './json.ts';
import { toJUnit } from './junit.ts';
import type { Reporter } from './reporter.ts';

export interface ReportFormat {
  /** `--<option> <file>` asks for it. */
  option: string;
  /** What the file is, for the usage text and the line that says where it went. */
  what: string;
  render(report: ResultsReport): string;
}

export const REPORT_FORMATS = [
  { option: 'report', what: 'results.json', render: toResultsJson },
  { option: 'junit', what: 'JUnit XML', render: toJUnit },
  { option: 'html', what: 'an HTML report (the exchanges drawn)', render: toHtml },
] as const satisfies readonly ReportFormat[];

export type ReportOption = (typeof REPORT_FORMATS)[number]['option'];

/** The formats' options, for parseArgs. */
export const REPORT_OPTIONS = Object.fromEntries(REPORT_FORMATS.map((format) => [format.option, { type: 'string' as const }])) as Record<
  ReportOption,
  { type: 'string' }
>;

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
