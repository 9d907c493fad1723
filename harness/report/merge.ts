// `theinference merge-reports`: the results.json of each shard of one grading run, made into
// the report of the whole run. Every file is checked against the report's schema first, and
// shards of another course, submission or seed are refused. Checks are put back in course
// order; a missing shard or stage check makes the merged run an error, and an interrupted
// shard makes it interrupted, rather than a pass on part of the work.
import { readFileSync } from 'node:fs';
import { ReportError } from '../errors.ts';
import { SchemaError } from './json-checks.ts';
import { checkResultsReport, REPORT_VERSION, type ResultsReport, type RunStatus, type StageReport } from './model.ts';
import { countChecks, exitCodeOf, rollUp, runStatus, stagePoints, totalPoints } from './entries.ts';

/** A report that cannot be merged: the CLI prints it on one line and exits 2. */
/** A shard's report that cannot be merged: one of the report problems. */
export class MergeError extends ReportError {}

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
  const candidate = report as { version?: unknown } | null;
  if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate) || !('version' in candidate))
    throw new MergeError(`${path}: not a theinference results report`);
  if (candidate.version !== REPORT_VERSION)
    throw new MergeError(`${path}: report version ${JSON.stringify(candidate.version)} is not supported (expected ${REPORT_VERSION})`);
  return validReport(path, report);
}

/** `report` checked field by field; a MergeError naming the file and the first field that is wrong. */
export function validReport(path: string, report: unknown): ResultsReport {
  try {
    return checkResultsReport(report, '');
  } catch (error) {
    if (!(error instanceof SchemaError)) throw error;
    throw new MergeError(`${path}: ${error.message}`);
  }
}

export function mergeReports(reports: { path: string; report: ResultsReport }[]): ResultsReport {
  if (reports.length === 0) throw new MergeError('no reports to merge');
  for (const { path, report } of reports) validReport(path, report);
  const first = reports[0]!;
  const count = first.report.shard?.count ?? 1;
  const shardsSeen = new Map<number, string>();
  for (const { path, report } of reports) {
    refuseMix(first, { path, report });
    if ((report.shard?.count ?? 1) !== count) throw new MergeError(`${path}: made for ${report.shard?.count ?? 1} shards, ${first.path} for ${count}`);
    for (const index of report.mergedShards ?? [report.shard?.index ?? 1]) {
      const earlier = shardsSeen.get(index);
      if (earlier !== undefined) throw new MergeError(`${path}: shard ${index}/${count} is also in ${earlier}`);
      shardsSeen.set(index, path);
    }
  }

  const problems: string[] = [];
  let interrupted = false;
  for (const { path, report } of reports) {
    for (const problem of report.problems) problems.push(problem);
    if (report.status === 'interrupted') {
      interrupted = true;
      problems.push(`${path} was interrupted before it finished (exit code ${report.exitCode})`);
    }
  }
  for (let index = 1; index <= count; index++) {
    if (!shardsSeen.has(index)) problems.push(`shard ${index}/${count} is missing from the merge`);
  }

  return joined(reports, problems, interrupted, {
    shard: count === 1 ? null : { index: 0, count },
    mergedShards: [...shardsSeen.keys()].sort((a, b) => a - b),
  });
}

/** The reports of one grading made in parts (`test --only`, classroom's: a class's hidden cases are graded
 *  after all the rest), as one: their checks in course order. Parts of one run share the course, the
 *  submission, the seed and the shard; a check graded in two parts is refused. */
export function mergeParts(parts: { path: string; report: ResultsReport }[]): ResultsReport {
  const [first] = parts;
  if (first === undefined) throw new MergeError('no reports to merge');
  for (const part of parts) {
    validReport(part.path, part.report);
    refuseMix(first, part);
    if (JSON.stringify(part.report.shard) !== JSON.stringify(first.report.shard))
      throw new MergeError(`${part.path}: another shard than ${first.path}'s (the parts of one grading grade one shard)`);
  }
  const problems = parts.flatMap(({ report }) => report.problems);
  const interrupted = parts.some(({ report }) => report.status === 'interrupted');
  return joined(parts, problems, interrupted, { shard: first.report.shard, mergedShards: first.report.mergedShards });
}

/** Reports of one run (its shards, or its parts) as one: its stages' checks together, checked whole. */
function joined(
  reports: { path: string; report: ResultsReport }[],
  problems: string[],
  interrupted: boolean,
  placed: Pick<ResultsReport, 'shard' | 'mergedShards'>,
): ResultsReport {
  const first = reports[0]!;
  const stages = mergeStages(reports.map(({ report }) => report.stages));
  if (problems.length === 0) {
    for (const stage of stages) {
      const units = new Set(stage.checks.map((check) => check.position)).size;
      if (stage.status !== 'skipped' && units !== stage.planned) {
        problems.push(`stage ${stage.slug}: the reports hold ${units} of its ${stage.planned} cases and property suites`);
      }
    }
  }
  // A shard that was stopped graded only part of its work: never a pass, whatever its checks say.
  const status: RunStatus = interrupted ? 'interrupted' : runStatus(stages, problems);
  const changes = new Map<string, ResultsReport['submission']['changedOutsideSrc'][number]>();
  for (const { report } of reports) for (const change of report.submission.changedOutsideSrc) changes.set(change.path, change);
  return {
    ...first.report,
    status,
    // the merge itself was not stopped by a signal: an interrupted shard is an error of the run (2)
    exitCode: exitCodeOf(status),
    ...placed,
    startedAt: reports.map(({ report }) => report.startedAt).sort()[0]!,
    durationMs: largest(reports.map(({ report }) => report.durationMs)),
    submission: { ...first.report.submission, changedOutsideSrc: [...changes.values()].sort((a, b) => a.path.localeCompare(b.path)) },
    // one report a student reads sealed makes the whole sealed: its checks say no more than that
    ...(reports.some(({ report }) => report.sealed) && { sealed: true }),
    // one shard graded without a sandbox is a run graded without one
    sandbox: reports.every(({ report }) => report.sandbox === 'bwrap') ? 'bwrap' : 'none',
    hiddenCases: largest(reports.map(({ report }) => report.hiddenCases)),
    generatedCases: largest(reports.map(({ report }) => report.generatedCases)),
    counts: countChecks(stages),
    problems,
    points: totalPoints(stages),
    stages,
  };
}

/** Shards of one run share the course, the submission and the seed; anything else is two runs. */
function refuseMix(first: { path: string; report: ResultsReport }, other: { path: string; report: ResultsReport }): void {
  const [a, b] = [first.report, other.report];
  const differ = (what: string, mine: string, theirs: string, why: string) =>
    new MergeError(`${other.path}: ${what} ${mine} differs from ${first.path}'s ${theirs} (${why})`);
  if (b.seed !== a.seed) throw differ('seed', String(b.seed), String(a.seed), 'every shard must be given the same --seed');
  if (b.course.digest !== a.course.digest) {
    throw differ('course digest', b.course.digest.slice(0, 12), a.course.digest.slice(0, 12), 'graded with another course.yaml or other case folders');
  }
  if (b.submission.path !== a.submission.path) throw differ('submission', b.submission.path, a.submission.path, 'every shard must grade the same submission');
}

function largest(values: number[]): number {
  return values.reduce((most, value) => Math.max(most, value), 0);
}

function mergeStages(perReport: StageReport[][]): StageReport[] {
  const bySlug = new Map<string, StageReport[]>();
  for (const stages of perReport) {
    for (const stage of stages) {
      const parts = bySlug.get(stage.slug);
      if (parts) parts.push(stage);
      else bySlug.set(stage.slug, [stage]);
    }
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
    const status = graded.length === 0 ? 'skipped' : rollUp(checks);
    return {
      slug: first!.slug,
      title: first!.title,
      status,
      points: stagePoints(status, first!.points.possible),
      durationMs: largest(parts.map((part) => part.durationMs)),
      planned: largest(parts.map((part) => part.planned)),
      advisories: checks.reduce((sum, check) => sum + check.advice.length, 0),
      checks,
    };
  });
}
