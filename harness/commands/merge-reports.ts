// `theinference merge-reports`: the shards' results.json files as one report (and JUnit).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.ts';
import { checkWritable } from './args.ts';

const MERGE_OPTIONS = { report: { type: 'string' }, junit: { type: 'string' } } satisfies ParseArgsConfig['options'];

/** merge-reports --report <file> [--junit <file>] <shard report...>: exit code as the merged run's. */
export async function mergeReports(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: MERGE_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.report === undefined) throw new UsageError('merge-reports needs --report <file> for the merged results');
  if (positionals.length === 0) throw new UsageError('merge-reports needs the shards\' results.json files');
  checkWritable('--report', values.report);
  if (values.junit !== undefined) checkWritable('--junit', values.junit);
  const { mergeReports: merge, readReport } = await import('../report/merge.ts');
  const { writeResults, writeAtomically } = await import('../report/json.ts');
  const { toJUnit } = await import('../report/junit.ts');
  const merged = merge(positionals.map((path) => ({ path, report: readReport(path) })));
  writeResults(values.report, merged);
  if (values.junit !== undefined) writeAtomically(values.junit, toJUnit(merged));
  const shards = merged.mergedShards?.length ?? 1;
  console.log(`merged ${positionals.length} report${positionals.length === 1 ? '' : 's'} (${shards} shard${shards === 1 ? '' : 's'}): ${merged.status}, ${merged.counts.pass} of ${merged.counts.total} checks pass${merged.problems.length > 0 ? `; ${merged.problems.join('; ')}` : ''}`);
  return merged.exitCode;
}
