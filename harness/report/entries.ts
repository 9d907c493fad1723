// A run's verdicts as the report's entries: each graded check and stage (its texts kept to their
// bounds), and the roll-up (a stage passes when all of its checks do; a run, when every stage graded does).
import type { Case, Stage } from '../course.ts';
import type { EndpointSession, Verdict } from '../run/verdict.ts';
import { clip, cutPoint } from '../terminal-text.ts';
import { detailText } from './details.ts';
import {
  KEPT_MESSAGE,
  KEPT_OUTPUT,
  type CheckReport,
  type GradedStatus,
  type KeptText,
  type Origin,
  type Points,
  type ResultsReport,
  type RunStatus,
  type SessionReport,
  type StageReport,
} from './model.ts';

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
  return {
    id: `${stage}/${verdict.name}`,
    name: verdict.name,
    origin: check.origin,
    status: verdict.status === 'infra' ? 'error' : verdict.status,
    infra: verdict.status === 'infra',
    message: clip(verdict.message, KEPT_MESSAGE),
    details: keepText(detailText(verdict)),
    hints: (verdict.hints ?? []).map(({ kind, lines }) => ({ kind, lines })),
    difference: verdict.difference ?? null,
    sessions: (verdict.sessions ?? []).map((session, at) => sessionReport(session, check, courseRoot, at)),
    advice: verdict.advice ?? [],
    output: verdict.stdout === undefined ? null : keepBytes(verdict.stdout),
    stderr: keepText(verdict.stderr),
    durationMs: Math.round(verdict.durationMs),
    seed: verdict.seed ?? null,
    position: check.position,
  };
}

/** An endpoint's session as the report keeps it: its recording named as a student finds it, none for a
 *  hidden case's (in the hidden cases' folder, whose path is not the student's to read). */
function sessionReport(session: EndpointSession, check: GradedCheck, courseRoot: string, at: number): SessionReport {
  const path = check.testCase?.endpoints[at]?.cassettePath;
  const cassette =
    check.origin === 'hidden' || path === undefined
      ? null
      : check.origin === 'generated'
        ? `generated (--seed ${check.verdict.seed})`
        : relativeTo(courseRoot, path);
  return { endpoint: session.endpoint, cassette, diagnoses: session.diagnoses, more: session.more, exchange: session.exchange ?? null };
}

export function stageReport(graded: GradedStage, courseRoot: string): StageReport {
  const checks = graded.checks.map((check) => checkReport(graded.stage.slug, check, courseRoot));
  const status = graded.graded ? rollUp(checks) : 'skipped';
  return {
    slug: graded.stage.slug,
    title: graded.stage.title,
    status,
    points: stagePoints(status, graded.stage.points),
    durationMs: Math.round(graded.durationMs),
    planned: graded.planned,
    advisories: checks.reduce((sum, check) => sum + check.advice.length, 0),
    checks,
  };
}

/** A stage's points: all of them when it passes, none otherwise. */
export function stagePoints(status: StageReport['status'], possible: number): Points {
  return { earned: status === 'pass' ? possible : 0, possible };
}

/** The stages' points together. */
export function totalPoints(stages: readonly StageReport[]): Points {
  return stages.reduce((sum, stage) => ({ earned: sum.earned + stage.points.earned, possible: sum.possible + stage.points.possible }), {
    earned: 0,
    possible: 0,
  });
}

/** error when the grader failed anywhere, fail when any check did not pass, else pass. */
export function rollUp(checks: CheckReport[], problems: string[] = []): GradedStatus {
  if (problems.length > 0 || checks.some((check) => check.infra)) return 'error';
  return checks.every((check) => check.status === 'pass') ? 'pass' : 'fail';
}

export function runStatus(stages: StageReport[], problems: string[]): GradedStatus {
  const checks = stages.flatMap((stage) => stage.checks);
  const status = rollUp(checks, problems);
  return status === 'pass' && stages.some((stage) => stage.status === 'skipped') ? 'fail' : status;
}

/** 2 for `interrupted`: which signal stopped a run only its caller knows, and sets exitCode itself. */
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

function keepText(text: string): KeptText;
function keepText(text: string | undefined): KeptText | null;
function keepText(text: string | undefined): KeptText | null {
  if (text === undefined) return null;
  return text.length <= KEPT_OUTPUT
    ? { text, size: text.length, truncated: false }
    : { text: text.slice(0, cutPoint(text, KEPT_OUTPUT)), size: text.length, truncated: true };
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
