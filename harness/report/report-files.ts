// The report files theinference writes, named in one light table: the usage text and the option
// parsers read it without loading the renderers, which formats.ts pairs with each entry.

export const REPORT_FILES = [
  { option: 'report', what: 'results.json' },
  { option: 'junit', what: 'JUnit XML' },
  { option: 'html', what: 'an HTML report (the exchanges drawn)' },
  { option: 'summary', what: "a Markdown summary (a CI job's summary page: no case's expected bytes)" },
] as const;

export type ReportOption = (typeof REPORT_FILES)[number]['option'];

/** `--<option> <file>` of each, for the command lines of `test` and `merge-reports` (their usage text too). */
export const REPORT_FILE_OPTIONS = Object.fromEntries(
  REPORT_FILES.map(({ option, what }) => [option, { type: 'string' as const, value: '<file>', help: `write ${what}` }]),
) as Record<ReportOption, { type: 'string'; value: string; help: string }>;
