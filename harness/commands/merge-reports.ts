// `theinference merge-reports`: the shards' results.json files as one report (and JUnit); or, with
// --gradebook, the gradebook folders of a class's shards (classroom --shard) as one gradebook.
import { stopReason, UsageError } from '../errors.ts';
import { fileReporter, requestedFiles, writeStopped } from '../report/formats.ts';
import { REPORT_FILE_OPTIONS } from '../report/report-files.ts';
import { allOf } from '../report/reporter.ts';
import { checkWritable } from './args.ts';
import { defineCommand, type Parsed } from './command.ts';

const OPTIONS = {
  ...REPORT_FILE_OPTIONS,
  gradebook: { type: 'string', value: '<dir>', help: "join the gradebook folders of a class's shards (classroom --shard) into <dir>" },
} as const;

export const command = defineCommand({
  name: 'merge-reports',
  synopsis: '--report <file> <shard.json...> | --gradebook <dir> <shard folder...>',
  summary: "one report from the shards' reports, or one gradebook from the shards' gradebooks",
  options: OPTIONS,
  positionals: true,
  run: mergeReports,
});

/** merge-reports --report <file> [--junit <file>] [--html <file>] [--summary <file>] <shard report...>: exit code as
 *  the merged run's. Reports that cannot be merged are one line and exit 2, and the summary, if asked for, says why. */
async function mergeReports({ values, positionals }: Parsed<typeof OPTIONS>): Promise<number> {
  if (values.gradebook !== undefined) return mergeGradebooks(values.gradebook, positionals);
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

/** merge-reports --gradebook <dir> <shard folder...>: exit 0 when every student of every shard was graded, 2 when not. */
async function mergeGradebooks(out: string, folders: string[]): Promise<number> {
  if (folders.length === 0) throw new UsageError("merge-reports --gradebook needs the shards' gradebook folders");
  const { mergeGradebookFolders } = await import('../classroom/merge.ts');
  const merged = mergeGradebookFolders(folders, out);
  const errors = merged.rows.filter((row) => row.status === 'error').length;
  console.log(
    `merged ${folders.length} gradebook${folders.length === 1 ? '' : 's'}: ${merged.rows.length} students${errors > 0 ? `, ${errors} the grader could not grade` : ''}${merged.problems.length > 0 ? `; ${merged.problems.join('; ')}` : ''}`,
  );
  return errors > 0 || merged.problems.length > 0 ? 2 : 0;
}
