// CI grading of a submission: its src/ in a scratch copy of the course, the course's public
// cases plus generated ones (from the seed) plus hidden ones (--cases), this shard's part of
// them, every stage with --all; the terminal report as a student would see it, then
// results.json and JUnit for the machine. Decides nothing about a case: verdicts in, reports out.
// A grading with a secret on the machine (hidden cases; `--sealed`, which classroom gives) is sealed:
// what a student reads says of every check only what the grader chose (grade/sealed-verdict.ts), its
// hidden cases are graded after every other check, so that no program whose verdict is reported runs
// once one has met a secret, and the teacher's report (--teacher-report) has every verdict whole.
import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Case, Course, Stage } from '../course.ts';
import { InputError, ReportError, stopReason } from '../errors.ts';
import { gradeStages } from '../grade/stages.ts';
import { SEALED_NOTE, sealedVerdict } from '../grade/sealed-verdict.ts';
import type { StageEvents } from '../grade/stages.ts';
import type { StageResult } from '../grade/stage.ts';
import type { Verdict } from '../run/verdict.ts';
import { buildReport, type RunFacts } from '../report/build.ts';
import { graderVersion } from '../report/version.ts';
import { fileReporter, REPORT_FORMATS, writeStopped, type ReportFormat } from '../report/formats.ts';
import type { GradedCheck, GradedStage } from '../report/entries.ts';
import type { Origin, ResultsReport } from '../report/model.ts';
import { allOf } from '../report/reporter.ts';
import { TerminalReporter } from '../report/terminal.ts';
import { escapeControls } from '../terminal-text.ts';
import { programEnv } from '../run/env.ts';
import { launcher } from '../run/launcher.ts';
import type { Interruption } from '../run/interrupt.ts';
import { sandboxAvailability, type SandboxKind } from '../run/sandbox.ts';
import { scratchCopy, type Scratch, type SubmissionFacts } from '../run/submission.ts';
import { copyHiddenInputs, loadHiddenCases, type HiddenCases } from './hidden.ts';
import { expectFromReference, generateCases } from './random.ts';
import { inShard, type Shard } from './shard.ts';
import { COURSE_CONTENT } from '../stages/index.ts';
import { scratchFolder } from '../scratch.ts';

export interface CiSettings {
  course: Course;
  submission: string;
  /** In grading order. */
  stages: Stage[];
  /** Grade every stage, not stopping at the first that fails. */
  all: boolean;
  seed: number;
  runs: number;
  timeoutMs?: number;
  memoryBytes: number;
  color: boolean;
  verbose: boolean;
  bundle: boolean;
  hiddenDir?: string;
  generatedPerCommand: number;
  shard: Shard;
  network?: boolean;
  sandbox: boolean;
  /** The report files to write, in the formats table's order. */
  files: { format: ReportFormat; path: string }[];
  write: (text: string) => void;
  /** SIGINT/SIGTERM: stops the cases; the report says `interrupted`. */
  interruption?: Interruption;
  /** A student's own workflow (`test --feedback`): `course` is the one the grader's package publishes, the
   *  submission the student's repository, whose copy of the course is compared with it (not used). */
  feedback?: boolean;
  /** A secret is on the machine besides the hidden cases (`--sealed`: classroom's other students): sealed
   *  as a grading with hidden cases is. */
  sealed?: boolean;
  /** Where the teacher's report goes (`--teacher-report`): results.json, summary.md and report.html, every
   *  verdict whole. */
  teacherDir?: string;
  /** Only the checks of these origins (`--only`): classroom grades a class's hidden cases after all the rest. */
  only?: readonly Origin[];
}

/** The teacher's report: its files in --teacher-report's folder. */
export const TEACHER_FILES: Partial<Record<ReportFormat['option'], string>> = { report: 'results.json', summary: 'summary.md', html: 'report.html' };

/** Why a run stopped, as a sealed report says it: a mistake in what the grader was given in the grader's
 *  words (they are of the course, the options or the submission's files), and the grader's own failure in
 *  none, since what failed it may have been a program's words. */
function sealedStopReason(error: unknown): string {
  return error instanceof InputError ? error.message : "the grader failed: the teacher's report says how";
}

/** Whether what a student reads of this grading is sealed (grade/sealed-verdict.ts). */
export function isSealed(settings: Pick<CiSettings, 'hiddenDir' | 'sealed'>): boolean {
  return settings.hiddenDir !== undefined || settings.sealed === true;
}

/** One unit of work in the plan: a case, or a stage's property suite. */
interface Unit {
  stage: string;
  position: number;
  origin: Origin;
  testCase?: Case;
}

/** Grades; writes the reports; returns the exit code (0 pass, 1 fail, 2 error). Throws an InputError on bad
 *  input, having written the reports (if any were asked for) with its reason under `problems`. */
export async function gradeSubmission(settings: CiSettings): Promise<number> {
  const started = new Date();
  let hidden: HiddenCases | undefined;
  let scratch: Scratch | undefined;
  const fixturesRoot = scratchFolder('expected');
  // Until the programs' sandbox is made (a report of a run that failed before), none ran, with network or without.
  const run: Progress = { graded: [], generated: 0, sandbox: 'none', network: false };
  const sealed = isSealed(settings);
  const teacherFiles = teacherFilesOf(settings.teacherDir);
  /** The run's report as the teacher reads it, whole; as the student reads it, sealed where the run is. */
  const report = (reader: Audience, more: Partial<RunFacts> = {}) => {
    const told = reader === 'student' && sealed;
    const facts = told ? { ...more, sealed: true } : more;
    return buildReport(
      {
        course: settings.course,
        seed: settings.seed,
        shard: settings.shard,
        startedAt: started,
        submission: { path: resolve(settings.submission), facts: scratch?.facts },
        limits: settings,
        sandbox: run.sandbox,
        network: run.network,
        hiddenCases: hidden?.sources.size ?? 0,
        generatedCases: run.generated,
        feedback: settings.feedback,
        ...facts,
      },
      told ? run.graded.map(sealedStage) : run.graded,
    );
  };
  try {
    if (settings.hiddenDir !== undefined) hidden = loadHiddenCases(settings.hiddenDir, settings.course);
    scratch = scratchCopy(settings.course.root, settings.submission, settings.feedback ? 'published' : 'outside-src');
    return await grade(settings, scratch, fixturesRoot, hidden, run, report, teacherFiles);
  } catch (error) {
    // Bad input, or the grader failed, not the solution: the reports (if any) say why (unless writing one
    // is what failed), and the CLI prints the same in one line, exit 2.
    if (!(error instanceof ReportError)) {
      writeStopped(settings.files, report('student', { problems: [sealed ? sealedStopReason(error) : stopReason(error)] }));
      writeStopped(teacherFiles, report('teacher', { problems: [stopReason(error)] }));
    }
    throw error;
  } finally {
    scratch?.remove();
    rmSync(fixturesRoot, { recursive: true, force: true });
  }
}

/** Who reads a report: the student (sealed, in a sealed grading) or the teacher (whole). */
type Audience = 'student' | 'teacher';

/** The teacher's report files in `dir`, made there. */
function teacherFilesOf(dir: string | undefined): { format: ReportFormat; path: string }[] {
  if (dir === undefined) return [];
  mkdirSync(dir, { recursive: true });
  return REPORT_FORMATS.flatMap((format) => {
    const file = TEACHER_FILES[format.option];
    return file === undefined ? [] : [{ format, path: join(dir, file) }];
  });
}

/** A graded stage as a sealed report tells it: each verdict sealed, no duration. */
function sealedStage(stage: GradedStage): GradedStage {
  return {
    ...stage,
    durationMs: 0,
    checks: stage.checks.map((check) => ({ ...check, verdict: sealedVerdict(check.verdict, { hidden: check.origin === 'hidden' }) })),
  };
}

/** The events of a grading as a student reads them in a sealed one: each verdict sealed, no duration. */
function sealedEvents(events: StageEvents, hidden: boolean): StageEvents {
  const seal = (verdict: Verdict) => sealedVerdict(verdict, { hidden });
  return {
    stageStart: (stage) => events.stageStart?.(stage),
    verdict: (verdict) => events.verdict?.(seal(verdict)),
    stageEnd: (result) => events.stageEnd?.({ ...result, verdicts: result.verdicts.map(seal), durationMs: 0 }),
  };
}

/** What the run has done so far: all a report needs, should it end early. */
interface Progress {
  graded: GradedStage[];
  generated: number;
  sandbox: SandboxKind;
  network: boolean;
}

async function grade(
  settings: CiSettings,
  scratch: Scratch,
  fixturesRoot: string,
  hidden: HiddenCases | undefined,
  run: Progress,
  report: (reader: Audience, more?: Partial<RunFacts>) => ResultsReport,
  teacherFiles: { format: ReportFormat; path: string }[],
): Promise<number> {
  const { graded } = run;
  if (hidden) copyHiddenInputs(hidden, scratch.root);
  const generated = generateCases(settings.course, settings.seed, settings.generatedPerCommand, scratch.root, fixturesRoot);
  run.generated = generatedCount(generated.byStage);
  const plan = planUnits(settings.stages, generated.byStage, hidden);
  const mine = plan.filter((unit) => inShard(unit.position, settings.shard) && (settings.only?.includes(unit.origin) ?? true));

  const env = programEnv();
  // The submission's bundler starts now, beside the reference's work on the generated cases.
  const starting = launcher(scratch.root, { ...settings, packages: settings.course.packages });
  starting.catch(() => {}); // awaited below; a reference that fails first ends the run before that
  const generatedHere = mine.filter((unit) => unit.origin === 'generated').map((unit) => unit.testCase!);
  if (generatedHere.length > 0) {
    try {
      const reference = await launcher(settings.course.root, { bundle: settings.bundle, sandbox: settings.sandbox, packages: settings.course.packages });
      await expectFromReference(generatedHere, settings.course.root, scratch.root, reference, env);
    } catch (error) {
      // the run ends here: the submission's bundler, still writing in the scratch copy, ends first
      await starting.catch(() => {});
      throw error;
    }
  }

  const start = await starting;
  run.sandbox = start.jail.kind;
  run.network = start.jail.network;
  const sealed = isSealed(settings);
  const terminal = new TerminalReporter(settings.write, { ...settings, sealed });
  announce(settings, scratch.facts, run.sandbox, plan.length, mine.length);

  const options = {
    runRoot: scratch.root,
    launcher: start,
    content: COURSE_CONTENT,
    env,
    seed: settings.seed,
    propertyRuns: settings.runs,
    timeoutMs: settings.timeoutMs,
    memoryBytes: settings.memoryBytes,
    signal: settings.interruption?.signal,
  };
  /** One pass over the stages with `units` of them: each stage's part (its cases, and its property suite when
   *  the units hold it), the verdicts told as they come, each paired with its unit. */
  const pass = async (units: Unit[], { hidden, everyStage }: { hidden: boolean; everyStage: boolean }) => {
    const parts = settings.stages.flatMap((stage) => {
      const here = units.filter((unit) => unit.stage === stage.slug);
      if (here.length === 0 && !everyStage) return [];
      const cases = here.filter((unit) => unit.testCase !== undefined);
      const propertyUnit = here.find((unit) => unit.origin === 'property');
      const part: Stage = { ...stage, cases: cases.map((unit) => unit.testCase!), properties: propertyUnit ? stage.properties : undefined };
      return [{ stage, part, cases, propertyUnit }];
    });
    const events = sealed ? sealedEvents(terminal, hidden) : terminal;
    const results = await gradeStages(
      parts.map(({ part }) => part),
      // the hidden pass grades every stage the first graded: it stopped where it had to already
      { ...options, continueAfterFailure: settings.all || hidden },
      hidden ? { ...events, stageStart: (stage) => events.stageStart?.({ ...stage, title: `${stage.title} (hidden cases)` }) } : events,
    );
    return new Map(
      parts.map(({ stage, cases, propertyUnit }, index) => [stage.slug, results[index] && checksOf(results[index], cases, propertyUnit, settings.seed)]),
    );
  };
  // Sealed: the hidden cases last, once every program whose verdict a student reads in full has ended.
  const first = await pass(
    mine.filter((unit) => !sealed || unit.origin !== 'hidden'),
    { hidden: false, everyStage: true },
  );
  const gradedFirst = new Set([...first].filter(([, checks]) => checks !== undefined).map(([slug]) => slug));
  const last = sealed
    ? await pass(
        mine.filter((unit) => unit.origin === 'hidden' && gradedFirst.has(unit.stage)),
        { hidden: true, everyStage: false },
      )
    : new Map<string, Checks | undefined>();
  for (const stage of settings.stages) {
    const planned = plan.filter((unit) => unit.stage === stage.slug).length;
    const parts = [first.get(stage.slug), last.get(stage.slug)].filter((part): part is Checks => part !== undefined);
    // not graded: after a failure without --all, or stopped
    if (!gradedFirst.has(stage.slug) || settings.interruption?.signal.aborted) {
      graded.push({ stage, graded: false, planned, durationMs: 0, checks: [] });
      continue;
    }
    const checks = parts.flatMap((part) => part.checks).sort((a, b) => a.position - b.position);
    graded.push({ stage, graded: true, planned, durationMs: parts.reduce((sum, part) => sum + part.durationMs, 0), checks });
  }
  const interrupted = settings.interruption?.exitCode;
  const written = report('student', { interrupted });
  // A stopped run gets no summary; its files still say how far it got.
  if (interrupted === undefined) terminal.finish(written);
  allOf(settings.files.map(({ format, path }) => fileReporter(format, path))).finish(written);
  if (teacherFiles.length > 0) allOf(teacherFiles.map(({ format, path }) => fileReporter(format, path))).finish(report('teacher', { interrupted }));
  const files = [...settings.files, ...(settings.teacherDir === undefined ? [] : [{ format: { what: "the teacher's report" }, path: settings.teacherDir }])]
    .map(({ format, path }) => `${format.what} in ${path}`)
    .join(', ');
  settings.write(
    `${interrupted === undefined ? '' : '\n'}graded with --seed ${settings.seed}${settings.shard.count > 1 ? ` as shard ${settings.shard.index}/${settings.shard.count}` : ''}: ${written.status}` +
      `, ${written.points.earned} of ${written.points.possible} points${files ? `; ${files}` : ''}\n`,
  );
  return written.exitCode;
}

/** A stage's checks of one pass over the stages. */
interface Checks {
  checks: GradedCheck[];
  durationMs: number;
}

/** A stage result's verdicts, each with its unit: its cases', in order, then its properties'. */
function checksOf(result: StageResult, cases: Unit[], propertyUnit: Unit | undefined, seed: number): Checks {
  const checks = result.verdicts.map((verdict, at): GradedCheck => {
    const unit = cases[at] ?? propertyUnit!;
    return { verdict: withSeed(verdict, unit, seed), origin: unit.origin, testCase: unit.testCase, position: unit.position };
  });
  return { checks, durationMs: result.durationMs };
}

/** Every unit of the whole run in course order: per stage its public, generated and hidden cases, then its property suite. */
function planUnits(stages: Stage[], generated: Map<string, Case[]>, hidden: HiddenCases | undefined): Unit[] {
  const units: Unit[] = [];
  const add = (stage: string, origin: Origin, testCase?: Case) => units.push({ stage, position: units.length, origin, testCase });
  for (const stage of stages) {
    for (const testCase of stage.cases) add(stage.slug, 'public', testCase);
    for (const testCase of generated.get(stage.slug) ?? []) add(stage.slug, 'generated', testCase);
    for (const testCase of hidden?.byStage.get(stage.slug) ?? []) add(stage.slug, 'hidden', testCase);
    if (stage.properties) add(stage.slug, 'property');
  }
  return units;
}

function withSeed(verdict: Verdict, unit: Unit, seed: number): Verdict {
  return unit.origin === 'generated' && verdict.seed === undefined ? { ...verdict, seed } : verdict;
}

function generatedCount(byStage: Map<string, Case[]>): number {
  return [...byStage.values()].reduce((sum, cases) => sum + cases.length, 0);
}

/** What a person reading the CI log should know before the first case. */
function announce(settings: CiSettings, facts: SubmissionFacts, sandbox: SandboxKind, planned: number, here: number): void {
  const lines: string[] = [];
  if (settings.feedback)
    lines.push(
      `feedback: graded with the course as published in theinference ${graderVersion()}, not this repository's copy of it; the grade of record is your teacher's`,
      "no generated cases: their expected outputs come from the course's reference solution, which is not published",
    );
  if (isSealed(settings))
    lines.push(settings.teacherDir === undefined ? SEALED_NOTE : SEALED_NOTE.replace("the teacher's report", `the teacher's report (${settings.teacherDir})`));
  if (sandbox === 'none')
    lines.push(
      `no sandbox: ${settings.sandbox ? sandboxAvailability().reason : '--no-sandbox'}; the submission is bundled and its programs run as the grader's user (docs/ci.md)`,
    );
  if (!facts.hasEntryPoint) lines.push(`the submission has no src/mcp.ts: every check will fail`);
  if (facts.changedOutsideSrc.length > 0) {
    const shown = facts.changedOutsideSrc
      .slice(0, 10)
      .map((change) => `${escapeControls(change.path)} (${change.change})`)
      .join(', ');
    const more = facts.changedOutsideSrc.length > 10 ? ` and ${facts.changedOutsideSrc.length - 10} more` : '';
    const which = settings.feedback
      ? "course files of this repository that differ from the published course's, not used in grading"
      : 'files outside src/ that the submission changed, not used in grading';
    lines.push(`${which}: ${shown}${more}`);
  }
  if (facts.linksIgnored.length > 0) lines.push(`symbolic links under src/ not copied: ${facts.linksIgnored.map(escapeControls).join(', ')}`);
  if (facts.filesIgnored.length > 0)
    lines.push(`files under src/ not copied: ${facts.filesIgnored.map((file) => `${escapeControls(file.path)} (${file.why})`).join(', ')}`);
  const units = (count: number) => `${count} case${count === 1 ? '' : 's'} and property suites`;
  const shard = settings.shard.count > 1 ? `shard ${settings.shard.index}/${settings.shard.count}: ${here} of the ${units(planned)}` : units(planned);
  lines.push(`grading ${settings.submission} with --seed ${settings.seed} (${shard})`);
  settings.write(lines.map((line) => `${line}\n`).join('') + '\n');
}
