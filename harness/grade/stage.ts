// A stage: its cases in parallel up to the cores, its property suite beside them, verdicts
// handed to the reporter in case order as soon as each is known.
import { join } from 'node:path';
import type { Stage } from '../course.ts';
import type { LastPropertyRuns } from '../props/last-runs.ts';
import { prestartProperties, runProperties, type PropertyRunOptions } from '../props/run.ts';
import { CORES, runPooled } from '../run/pool.ts';
import { moduleBundlePath, type Launcher } from '../run/launcher.ts';
import { DEFAULT_LIMITS } from '../run/spawn.ts';
import { oneLine } from '../terminal-text.ts';
import { Prestarts } from '../run/prestart.ts';
import { gradeCase, prestartProgram, type CaseContext } from './case.ts';
import type { CourseContent } from './course-content.ts';
import type { Verdict } from '../run/verdict.ts';

export interface GradeOptions {
  /** The folder holding your_program.sh and src/ (the course, or a scratch copy of a submission). */
  runRoot: string;
  launcher: Launcher;
  env: NodeJS.ProcessEnv;
  /** Seeds the property tests; printed so that a failure replays. */
  seed: number;
  propertyRuns: number;
  /** Overrides the stage table's per-case timeout. */
  timeoutMs?: number;
  /** Overrides the default memory (RSS) limit per case. */
  memoryBytes?: number;
  signal?: AbortSignal;
  onVerdict?: (verdict: Verdict) => void;
  /** Programs started ahead for these stages' cases (watch mode; see prestartStages). */
  prestarted?: Prestarts;
  /** The property suites' last runs, which a run that answers as before takes its verdicts from (watch mode's). */
  lastPropertyRuns?: LastPropertyRuns;
  /** The stages' hint rules and property suites (harness/stages/ makes them). */
  content: CourseContent;
}

export interface StageResult {
  stage: Stage;
  verdicts: Verdict[];
  passed: boolean;
  durationMs: number;
}

export async function gradeStage(stage: Stage, options: GradeOptions): Promise<StageResult> {
  const started = performance.now();
  const context = { ...caseContext(stage, options), signal: options.signal, prestarted: options.prestarted };
  // Once grading is stopped (a newer save in watch mode, Ctrl-C), what a killed case said is no verdict.
  const report = (verdict: Verdict) => {
    if (!options.signal?.aborted) options.onVerdict?.(verdict);
  };

  // The property suite is one process for the whole stage: start it first, report it last.
  const suite = propertyOptions(stage, context);
  const properties =
    suite === 'unknown'
      ? Promise.resolve([unknownSuite(stage)])
      : suite
        ? runProperties({
            ...suite,
            stage: stage.slug,
            seed: options.seed,
            runs: options.propertyRuns,
            signal: options.signal,
            lastRuns: options.lastPropertyRuns,
            ...(options.prestarted && { prestarted: options.prestarted.take(propertiesKey(stage)) }),
          })
        : Promise.resolve([]);
  const cases = await runPooled(
    stage.cases.map((testCase) => async () => asReported(await gradeCase(testCase, context))),
    CORES,
    report,
  );
  const propertyVerdicts = (await properties).map(asReported);
  propertyVerdicts.forEach(report);

  const verdicts = [...cases, ...propertyVerdicts];
  return { stage, verdicts, passed: verdicts.every((verdict) => verdict.status === 'pass'), durationMs: performance.now() - started };
}

/** A verdict as every reporter takes it (all of them pass here, a case's or a property's): its message
 *  one line, whatever of a program's it quotes (a crash's error line, the error a function threw). */
function asReported(verdict: Verdict): Verdict {
  return { ...verdict, message: oneLine(verdict.message) };
}

/** One program per case of `stages`, and one property oracle per stage with properties, started ahead
 *  and waiting (watch mode, between saves) where the launcher can start them so, as many at once as
 *  Prestarts allows; the next grading of these stages releases them. */
export function prestartStages(stages: readonly Stage[], options: Omit<GradeOptions, 'prestarted' | 'signal' | 'onVerdict' | 'lastPropertyRuns'>): Prestarts {
  const prestarted = new Prestarts();
  // in the order a grading takes them: a stage's oracle as it starts, then its cases
  for (const stage of stages) {
    const context = caseContext(stage, options);
    const suite = propertyOptions(stage, context);
    const { warmStart } = options.launcher;
    if (suite && suite !== 'unknown' && warmStart)
      prestarted.add(propertiesKey(stage), () => prestartProperties(suite, warmStart, moduleBundlePath(options.runRoot)));
    for (const testCase of stage.cases) prestarted.add(testCase.casePath, () => prestartProgram(testCase, context));
  }
  return prestarted;
}

/** Where a stage's property oracle started ahead is kept among its cases' programs (never a case folder). */
function propertiesKey(stage: Stage): string {
  return `properties of ${stage.slug}`;
}

/** How a stage's property suite runs, in the same folder, environment, sandbox and time limit as its
 *  cases; none when the stage has none, `unknown` when the stages' content has no suite by its name. */
function propertyOptions(stage: Stage, context: CaseContext) {
  if (!stage.properties) return undefined;
  const suite = context.content.suite(stage.properties);
  if (suite === undefined) return 'unknown';
  return {
    suite,
    modulePath: join(context.runRoot, 'src', 'mcp.ts'),
    bundled: context.launcher.module,
    cwd: context.runRoot,
    env: context.env,
    timeoutMs: context.limits.timeoutMs,
    jail: context.launcher.jail,
  } satisfies Partial<PropertyRunOptions>;
}

/** A suite course.yaml names that the stages' content does not hold (a course loaded unchecked). */
function unknownSuite(stage: Stage): Verdict {
  return { name: `property: ${stage.properties}`, status: 'infra', message: `no property suite named "${stage.properties}"`, durationMs: 0 };
}

/** What every case of a stage runs with: its folder, its launcher and the stage's limits. */
function caseContext(stage: Stage, options: Omit<GradeOptions, 'prestarted' | 'signal' | 'onVerdict' | 'lastPropertyRuns'>): CaseContext {
  const limits = { ...DEFAULT_LIMITS, timeoutMs: options.timeoutMs ?? stage.timeoutMs, memoryBytes: options.memoryBytes ?? DEFAULT_LIMITS.memoryBytes };
  return { runRoot: options.runRoot, launcher: options.launcher, env: options.env, limits, content: options.content };
}
