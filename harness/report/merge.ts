// `theinference merge-reports`: the results.json of each shard of one grading run, made into
// the report of the whole run. Checks are put back in course order; a missing shard or stage
// check makes the merged run an error rather than a pass on part of the work.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.ts';
import { countChecks, exitCodeOf, REPORT_VERSION, rollUp, runStatus, type ResultsReport, type StageReport } from './json.ts';

/** A report that cannot be merged: the CLI prints it on one line and exits 2. */
export class MergeError extends InputError {}

export function readReport(path: string): ResultsReport {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new MergeError(`${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let report: unknown;
  try {
    report = JSON.parse(text);
  } catch (error) {
    throw new MergeError(`${path}: not JSON (${(error as Error).message})`);
  }
  const candidate = report as Partial<ResultsReport> | null;
  if (typeof candidate !== 'object' || candidate === null || !Array.isArray(candidate.stages)) throw new MergeError(`${path}: not a theinference results report`);
  if (candidate.version !== REPORT_VERSION) throw new MergeError(`${path}: report version ${String(candidate.version)} is not supported (expected ${REPORT_VERSION})`);
  return candidate as ResultsReport;
}

export function mergeReports(reports: { path: string; report: ResultsReport }[]): ResultsReport {
  if (reports.length === 0) throw new MergeError('no reports to merge');
  const [first] = reports;
  const count = first!.report.shard?.count ?? 1;
  const shardsSeen = new Map<number, string>();
  for (const { path, report } of reports) {
    if (report.seed !== first!.report.seed) throw new MergeError(`${path}: seed ${report.seed} differs from ${first!.path}'s ${first!.report.seed} (every shard must be given the same --seed)`);
    if ((report.shard?.count ?? 1) !== count) throw new MergeError(`${path}: made for ${report.shard?.count ?? 1} shards, ${first!.path} for ${count}`);
    for (const index of report.mergedShards ?? [report.shard?.index ?? 1]) {
      const earlier = shardsSeen.get(index);
      if (earlier !== undefined) throw new MergeError(`${path}: shard ${index}/${count} is also in ${earlier}`);
      shardsSeen.set(index, path);
    }
  }

  const problems = reports.flatMap(({ report }) => report.problems);
  for (let index = 1; index <= count; index++) {
    if (!shardsSeen.has(index)) problems.push(`shard ${index}/${count} is missing from the merge`);
  }

  const stages = mergeStages(reports.map(({ report }) => report.stages));
  if (problems.length === 0) {
    for (const stage of stages) {
      const units = new Set(stage.checks.map((check) => check.position)).size;
      if (stage.status !== 'skipped' && units !== stage.planned) {
        problems.push(`stage ${stage.slug}: the shards reported ${units} of its ${stage.planned} cases and property suites`);
      }
    }
  }
  const status = runStatus(stages, problems);
  const changes = new Map(reports.flatMap(({ report }) => report.submission.changedOutsideSrc.map((change) => [change.path, change] as const)));
  return {
    ...first!.report,
    status,
    exitCode: exitCodeOf(status),
    shard: count === 1 ? null : { index: 0, count },
    mergedShards: [...shardsSeen.keys()].sort((a, b) => a - b),
    startedAt: reports.map(({ report }) => report.startedAt).sort()[0]!,
    durationMs: Math.max(...reports.map(({ report }) => report.durationMs)),
    submission: { ...first!.report.submission, changedOutsideSrc: [...changes.values()].sort((a, b) => a.path.localeCompare(b.path)) },
    hiddenCases: Math.max(...reports.map(({ report }) => report.hiddenCases)),
    generatedCases: Math.max(...reports.map(({ report }) => report.generatedCases)),
    counts: countChecks(stages),
    problems,
    stages,
  };
}

function mergeStages(perReport: StageReport[][]): StageReport[] {
  const bySlug = new Map<string, StageReport[]>();
  for (const stages of perReport) {
    for (const stage of stages) bySlug.set(stage.slug, [...(bySlug.get(stage.slug) ?? []), stage]);
  }
  return [...bySlug.values()].map((parts) => {
    const graded = parts.filter((part) => part.status !== 'skipped');
    const checks = graded.flatMap((part) => part.checks).sort((a, b) => a.position - b.position);
    const ids = new Set<string>();
    for (const check of checks) {
      if (ids.has(check.id)) throw new MergeError(`check ${check.id} is in more than one report (were the shards made with the same --shard count and seed?)`);
      ids.add(check.id);
    }
    const [first] = parts;
    return {
      slug: first!.slug,
      title: first!.title,
      status: graded.length === 0 ? 'skipped' : rollUp(checks),
      durationMs: Math.max(...parts.map((part) => part.durationMs)),
      planned: Math.max(...parts.map((part) => part.planned)),
      checks,
    };
  });
}
