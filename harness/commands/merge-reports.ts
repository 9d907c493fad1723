// `theinference merge-reports`: the shards' results.json files as one report (and JUnit).
import { UsageError } from '../errors.ts';
import { fileReporter, requestedFiles } from '../report/formats.ts';
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

/** merge-reports --report <file> [--junit <file>] [--html <file>] <shard report...>: exit code as the merged run's. */
async function mergeReports({ values, positionals }: Parsed<typeof REPORT_FILE_OPTIONS>): Promise<number> {
  if (values.report === undefined) throw new UsageError('merge-reports needs --report <file> for the merged results');
  if (positionals.length === 0) throw new UsageError("merge-reports needs the shards' results.json files");
  const files = requestedFiles(values);
  for (const { format, path } of files) checkWritable(`--${format.option}`, path);
  const { mergeReports: merge, readReport } = await import('../report/merge.ts');
  const merged = merge(positionals.map((path) => ({ path, report: readReport(path) })));
  allOf(files.map(({ format, path }) => fileReporter(format, path))).finish(merged);
  const shards = merged.mergedShards?.length ?? 1;
  console.log(
    `merged ${positionals.length} report${positionals.length === 1 ? '' : 's'} (${shards} shard${shards === 1 ? '' : 's'}): ${merged.status}, ${merged.counts.pass} of ${merged.counts.total} checks pass${merged.problems.length > 0 ? `; ${merged.problems.join('; ')}` : ''}`,
  );
  return merged.exitCode;
}
