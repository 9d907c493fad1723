// results.json: what a machine reads after CI grading. Versioned; a consumer of verdicts that
// decides nothing but the roll-up (a stage passes when all of its checks do). docs/ci.md
// describes every field.
import { renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Case, Stage } from '../course.ts';
import type { Verdict } from '../grade/verdict.ts';

export const REPORT_VERSION = 1;
/** Bytes of a program's stdout, and characters of its stderr and details, kept per check. */
export const KEPT_OUTPUT = 4096;

export type RunStatus = 'pass' | 'fail' | 'error';
export type CheckStatus = 'pass' | 'fail' | 'error' | 'timeout' | 'crash';
export type Origin = 'public' | 'hidden' | 'generated' | 'property';

export interface KeptText {
  text: string;
  /** Size of the whole, before it was cut to `text` (bytes for output, characters otherwise). */
  size: number;
  truncated: boolean;
}

export interface CheckReport {
  /** Unique in a run: `<stage>/<name>`; what shards are merged by. */
  id: string;
  name: string;
  origin: Origin;
  status: CheckStatus;
  /** The grader, not the program, is at fault (then status is `error`). */
  infra: boolean;
  message: string;
  details: KeptText | null;
  output: KeptText | null;
  stderr: KeptText | null;
  durationMs: number;
  seed: number | null;
  /** The cassette the case's server side was played from, relative to the course (absolute for a
   *  hidden case, `generated (--seed N)` for a generated one); null when none. */
  cassette: string | null;
  /** The unit's place in the whole run (all shards), so that merged reports keep course order. */
  position: number;
}

export interface StageReport {
  slug: string;
  title: string;
  /** `skipped`: not graded, because an earlier stage failed and --all was not given. */
  status: RunStatus | 'skipped';
  durationMs: number;
  /** Units of this stage in the whole run, all shards together: each case, and the property suite as one
   *  (its properties are several checks that share one `position`). */
  planned: number;
  checks: CheckReport[];
}

export interface ResultsReport {
  version: typeof REPORT_VERSION;
  status: RunStatus;
  /** The exit code of the run that wrote this: 0 pass, 1 fail, 2 error. */
  exitCode: 0 | 1 | 2;
  seed: number;
  shard: { index: number; count: number } | null;
  /** Which shards a merged report holds; null for a single run. */
  mergedShards: number[] | null;
  startedAt: string;
  durationMs: number;
  grader: { name: string; version: string };
  submission: {
    path: string;
    /** Files outside src/ that differ from the course's; none of them was used. */
    changedOutsideSrc: { path: string; change: 'modified' | 'added' }[];
    changesCut: boolean;
    /** Symbolic links under src/ that were not copied. */
    linksIgnored: string[];
    /** What a submission must have and this one has not (e.g. src/mcp.ts). */
    missing: string[];
  };
  limits: { timeoutMs: number | null; memoryBytes: number; outputCapBytes: number; network: 'on' | 'off' };
  hiddenCases: number;
  generatedCases: number;
  counts: Record<CheckStatus, number> & { total: number };
  /** Why the run is `error` beyond its checks (e.g. a shard missing from a merge). */
  problems: string[];
  stages: StageReport[];
}

/** One graded check, as the CI run knows it. */
export interface GradedCheck {
  verdict: Verdict;
  origin: Origin;
  testCase?: Case;
  position: number;
}

export interface GradedStage {
  stage: Stage;
  graded: boolean;
  planned: number;
  durationMs: number;
  checks: GradedCheck[];
}

export function checkReport(stage: string, check: GradedCheck, courseRoot: string): CheckReport {
  const { verdict } = check;
  const cassette = (check.testCase as { cassettePath?: unknown } | undefined)?.cassettePath;
  return {
    id: `${stage}/${verdict.name}`,
    name: verdict.name,
    origin: check.origin,
    status: verdict.status === 'infra' ? 'error' : verdict.status,
    infra: verdict.status === 'infra',
    message: verdict.message,
    details: verdict.details === undefined ? null : keepText(verdict.details),
    output: verdict.stdout === undefined ? null : keepBytes(verdict.stdout),
    stderr: verdict.stderr === undefined ? null : keepText(verdict.stderr),
    durationMs: Math.round(verdict.durationMs),
    seed: verdict.seed ?? null,
    cassette: typeof cassette !== 'string' ? null : check.origin === 'generated' ? `generated (--seed ${verdict.seed})` : relativeTo(courseRoot, cassette),
    position: check.position,
  };
}

export function stageReport(graded: GradedStage, courseRoot: string): StageReport {
  const checks = graded.checks.map((check) => checkReport(graded.stage.slug, check, courseRoot));
  return {
    slug: graded.stage.slug,
    title: graded.stage.title,
    status: graded.graded ? rollUp(checks) : 'skipped',
    durationMs: Math.round(graded.durationMs),
    planned: graded.planned,
    checks,
  };
}

/** error when the grader failed anywhere, fail when any check did not pass, else pass. */
export function rollUp(checks: CheckReport[], problems: string[] = []): RunStatus {
  if (problems.length > 0 || checks.some((check) => check.infra)) return 'error';
  return checks.every((check) => check.status === 'pass') ? 'pass' : 'fail';
}

export function runStatus(stages: StageReport[], problems: string[]): RunStatus {
  const checks = stages.flatMap((stage) => stage.checks);
  const status = rollUp(checks, problems);
  return status === 'pass' && stages.some((stage) => stage.status === 'skipped') ? 'fail' : status;
}

export function exitCodeOf(status: RunStatus): 0 | 1 | 2 {
  return status === 'pass' ? 0 : status === 'fail' ? 1 : 2;
}

export function countChecks(stages: StageReport[]): ResultsReport['counts'] {
  const counts = { pass: 0, fail: 0, error: 0, timeout: 0, crash: 0, total: 0 };
  for (const check of stages.flatMap((stage) => stage.checks)) {
    counts[check.status] += 1;
    counts.total += 1;
  }
  return counts;
}

/** Written next to its target and renamed into place: a reader never sees half a report. */
export function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

export function writeResults(path: string, report: ResultsReport): void {
  writeAtomically(path, `${JSON.stringify(report, null, 2)}\n`);
}

function keepText(text: string): KeptText {
  return text.length <= KEPT_OUTPUT ? { text, size: text.length, truncated: false } : { text: text.slice(0, KEPT_OUTPUT), size: text.length, truncated: true };
}

function keepBytes(bytes: Buffer): KeptText {
  // Cut on a character boundary: drop continuation bytes at the cut.
  let end = Math.min(bytes.length, KEPT_OUTPUT);
  if (end < bytes.length) while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), size: bytes.length, truncated: end < bytes.length };
}

function relativeTo(root: string, path: string): string {
  return path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path;
}
