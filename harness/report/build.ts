// The finished run as results.json holds it, made once from what grading produced: the verdicts
// of the stages graded (and which were not), and the facts of the run. Every reporter's `finish`
// reads this one value: the terminal's summary, results.json, JUnit, HTML.
import type { Course, Stage } from '../course.ts';
import type { StageResult } from '../grade/stage.ts';
import { memoryCounted } from '../run/cgroup.ts';
import { DEFAULT_LIMITS } from '../run/spawn.ts';
import type { SandboxKind } from '../run/sandbox.ts';
import type { SubmissionFacts } from '../run/submission.ts';
import { courseDigest } from './course-digest.ts';
import { countChecks, exitCodeOf, runStatus, stageReport, totalPoints, type GradedCheck, type GradedStage } from './entries.ts';
import { REPORT_VERSION, type ExitCode, type ResultsReport } from './model.ts';
import { graderVersion } from './version.ts';

export interface RunFacts {
  course: Course;
  seed: number;
  shard?: { index: number; count: number };
  startedAt: Date;
  /** The folder graded, and what a scratch copy found in it (none: the course's own src/). */
  submission: { path: string; facts?: SubmissionFacts };
  limits: { timeoutMs?: number; memoryBytes: number };
  sandbox: SandboxKind;
  /** Whether the programs reached the machine's network (a sandbox's own namespace, the default, is off). */
  network: boolean;
  hiddenCases?: number;
  generatedCases?: number;
  /** Why the run is `error` beyond its checks. */
  problems?: string[];
  /** Set when SIGINT or SIGTERM stopped the run: its exit code. */
  interrupted?: ExitCode;
  /** A student's own workflow graded it (`test --feedback`): feedback, not a grade of record. */
  feedback?: boolean;
  /** The report a student reads of a sealed grading, made of sealed verdicts (grade/sealed-verdict.ts). */
  sealed?: boolean;
}

export function buildReport(run: RunFacts, graded: GradedStage[]): ResultsReport {
  const stages = graded.map((stage) => stageReport(stage, run.course.root));
  const problems = run.problems ?? [];
  const status = runStatus(stages, problems);
  const facts = run.submission.facts;
  return {
    version: REPORT_VERSION,
    status: run.interrupted === undefined ? status : 'interrupted',
    exitCode: run.interrupted ?? exitCodeOf(status),
    seed: run.seed,
    shard: run.shard && run.shard.count > 1 ? run.shard : null,
    mergedShards: null,
    startedAt: run.startedAt.toISOString(),
    durationMs: Date.now() - run.startedAt.getTime(),
    grader: { name: 'theinference', version: graderVersion() },
    course: { digest: courseDigest(run.course) },
    // only where true: a reader of version 1 reports that knows nothing of it reads every other as before
    ...(run.feedback && { feedback: true }),
    ...(run.sealed && { sealed: true }),
    submission: {
      path: run.submission.path,
      changedOutsideSrc: facts?.changedOutsideSrc ?? [],
      changesCut: facts?.changesCut ?? false,
      linksIgnored: facts?.linksIgnored ?? [],
      filesIgnored: facts?.filesIgnored ?? [],
      missing: facts === undefined || facts.hasEntryPoint ? [] : ['src/mcp.ts'],
    },
    limits: {
      timeoutMs: run.limits.timeoutMs ?? null,
      memoryBytes: run.limits.memoryBytes,
      memoryCounted: memoryCounted(run.sandbox === 'bwrap'),
      outputCapBytes: DEFAULT_LIMITS.outputCap,
      network: run.network ? 'on' : 'off',
    },
    sandbox: run.sandbox,
    hiddenCases: run.hiddenCases ?? 0,
    generatedCases: run.generatedCases ?? 0,
    counts: countChecks(stages),
    problems,
    points: totalPoints(stages),
    stages,
  };
}

/** The stages a student's run graded, as the report keeps them: each stage's cases, then its
 *  property suite (one unit, however many properties), numbered in grading order; the stages
 *  not reached are kept as not graded. */
export function gradedInOrder(stages: readonly Stage[], results: readonly StageResult[]): GradedStage[] {
  let position = 0;
  return stages.map((stage) => {
    const result = results.find((graded) => graded.stage === stage);
    const first = position;
    position += stage.cases.length + (stage.properties ? 1 : 0);
    const planned = position - first;
    if (!result) return { stage, graded: false, planned, durationMs: 0, checks: [] };
    const checks = result.verdicts.map((verdict, at): GradedCheck => {
      const testCase = stage.cases[at];
      return testCase ? { verdict, origin: 'public', testCase, position: first + at } : { verdict, origin: 'property', position: first + stage.cases.length };
    });
    return { stage, graded: true, planned, durationMs: result.durationMs, checks };
  });
}
