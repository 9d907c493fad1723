// `theinference merge-reports`: the shards' results.json files as one report (and JUnit).
import { stopReason, UsageError } from '../errors.ts';
import { fileReporter, requestedFiles, writeStopped } from '../report/formats.ts';
import { REPORT_FILE_OPTIONS } from '../report/report-files.ts';
import { allOf } from '../report/reporter.ts';
import { checkWritable } from './args.ts';
import { defineCommand, type Parsed } from './command.ts';

export const command = defineCommand({
  name: 'merge-reports',
  synopsis: '--report <file> <shard.json...>',
  summary: "one report from the shards' reports",
  options: REPORT_FILE_OPTIONS,
  positionals: true,
  run: mergeReports,
});

/** merge-reports --report <file> [--junit <file>] [--html <file>] [--summary <file>] <shard report...>: exit code as
 *  the merged run's. Reports that cannot be merged are one line and exit 2, and the summary, if asked for, says why. */
async function mergeReports({ values, positionals }: Parsed<typeof REPORT_FILE_OPTIONS>): Promise<number> {
  if (values.report === undefined) throw new UsageError('merge-reports needs --report <file> for the merged results');
  if (positionals.length === 0) throw new UsageError("merge-reports needs the shards' results.json files");
  const files = requestedFiles(values);
  for (const { format, path } of files) checkWritable(`--${format.option}`, path);
  const { mergeReports: merge, readReport } = await import('../report/merge.ts');
  let merged: ReturnType<typeof merge>;
  try {
    merged = merge(positionals.map((path) => ({ path, report: readReport(path) })));
  } catch (error) {
    writeStopped(files, stopReason(error));
    throw error;
  }
  allOf(files.map(({ format, path }) => fileReporter(format, path))).finish(merged);
  const shards = merged.mergedShards?.length ?? 1;
  console.log(
    `merged ${positionals.length} report${positionals.length === 1 ? '' : 's'} (${shards} shard${shards === 1 ? '' : 's'}): ${merged.status}, ${merged.counts.pass} of ${merged.counts.total} checks pass${merged.problems.length > 0 ? `; ${merged.problems.join('; ')}` : ''}`,
  );
  return merged.exitCode;
}
