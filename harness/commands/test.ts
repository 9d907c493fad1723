// `theinference test`: grade the stages in order as a student does, or hand over to CI grading
// when a CI option is given. Exit codes: 0 all pass, 1 the solution failed, 2 usage or infrastructure.
import { DEFAULT_MEMORY_BYTES, DEFAULT_RUNS, GENERATED_PER_COMMAND, WATCH_RUNS } from '../defaults.ts';
import type { Course, Stage } from '../course.ts';
import { courseHere, publishedCourse, stageIndex } from './course.ts';
import { HostError, stopReason, UsageError } from '../errors.ts';
import { caseName } from '../grade/case.ts';
import { casesToGrade } from '../grade/case-pattern.ts';
import { prestartStages, type StageResult } from '../grade/stage.ts';
import { gradeStages } from '../grade/stages.ts';
import type { Prestarts } from '../run/prestart.ts';
import type { BundlesAhead } from '../run/bundle.ts';
import { buildReport, gradedInOrder } from '../report/build.ts';
import { fileReporter, liveHtml, requestedFiles, writeStopped, type ReportFormat } from '../report/formats.ts';
import { REPORT_FILE_OPTIONS } from '../report/report-files.ts';
import { allOf } from '../report/reporter.ts';
import { TerminalReporter } from '../report/terminal.ts';
import { WatchTerminal } from '../report/watch.ts';
import type { RoundContext } from '../watch/watch.ts';
import { programEnv } from '../run/env.ts';
import { checkProgram, launcher, prestartLauncher } from '../run/launcher.ts';
import { onInterrupt } from '../run/interrupt.ts';
import { ENABLE_SANDBOX, sandboxAvailability } from '../run/sandbox.ts';
import { scratchCopy, type SubmissionFacts } from '../run/submission.ts';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { ORIGINS, type Origin } from '../report/model.ts';
import { checkWritable, count, positive, randomSeed, runs, seconds, seed, useColor } from './args.ts';
import { defineCommand, headed, type Options, type Parsed } from './command.ts';
import { COURSE_CONTENT } from '../stages/index.ts';
import type { CiSettings } from '../ci/grade.ts';

const TEST_OPTIONS = {
  stage: { type: 'string', value: '<slug|n>', help: 'that stage (its name, or its number as list shows it) and every stage before it (default: every stage)' },
  case: {
    type: 'string',
    value: '<pattern>',
    help: "only the cases it matches, no property tests: a case's name as its check shows it (mcp-frame/numbers)\nor its last part (numbers); * matches any run of characters (quote it: --case 'refresh*')",
  },
  watch: { type: 'boolean', help: 'grade again on every save under src/' },
  seed: { type: 'string', value: '<n>', help: 'property tests: replay this seed' },
  runs: {
    type: 'string',
    value: '<n>',
    help: `property tests: runs of each (default ${DEFAULT_RUNS}; with --watch ${WATCH_RUNS} on each save)`,
  },
  timeout: { type: 'string', value: '<seconds>', help: "CPU time per case, instead of the stage table's (wall time: 3x)" },
  submission: { type: 'string', value: '<dir>', help: 'grade <dir>/src/ in a scratch copy of this course' },
  memory: {
    type: 'string',
    value: '<MiB>',
    help: `memory limit per case, all it makes: resident, tmpfs, shared (default ${DEFAULT_MEMORY_BYTES / 1024 / 1024})`,
  },
  network: { type: 'boolean', help: "let cases reach the machine's network (default: a sandboxed case reaches only its own player)" },
  'no-network': { type: 'boolean', help: 'no network even without a sandbox (through unshare)' },
  'no-sandbox': { type: 'boolean', help: 'run cases without the bubblewrap sandbox (weaker: see docs/ci.md)' },
  'require-sandbox': { type: 'boolean', help: 'refuse to grade where no sandbox can be made (default with --submission)' },
  verbose: { type: 'boolean', help: 'relay stderr of passing cases too' },
  'no-color': { type: 'boolean', help: 'plain text' },
  'no-bundle': { type: 'boolean', help: 'start every case through your_program.sh (slower; same bytes)' },
  'no-prestart': { type: 'boolean', help: "watch: start each case's program on save, not ahead (less memory)" },
  ...headed(REPORT_FILE_OPTIONS, 'report files, written when grading ends (--report and --junit make it a CI run)'),
  all: { type: 'boolean', heading: 'CI grading (any of these; see docs/ci.md)', help: 'grade every stage, not stopping at the first that fails' },
  cases: { type: 'string', value: '<dir>', help: 'add hidden cases (cases/ and fixtures/ as in the course); the grading is sealed' },
  sealed: {
    type: 'boolean',
    help: "a secret is on this machine (hidden cases, other students' work): what a student reads says of each\ncheck its verdict and first hint only; no program's words, no durations (docs/ci.md)",
  },
  'teacher-report': {
    type: 'string',
    value: '<dir>',
    help: "write the teacher's report in <dir>: results.json, summary.md, report.html, every\nverdict whole",
  },
  only: { type: 'string', value: '<origins>', help: 'grade only the checks of these origins, comma-separated: public, generated, property, hidden' },
  shard: { type: 'string', value: '<i>/<n>', help: 'grade part i of n; merge the reports with merge-reports' },
  random: { type: 'string', value: '<n>', help: `generated cases per command (default ${GENERATED_PER_COMMAND}; 0 for none)` },
  feedback: {
    type: 'boolean',
    help: "a student's own CI: grade this folder's src/ with the course the installed grader publishes\n(no hidden or generated cases); feedback, the grade of record is the teacher's",
  },
} as const satisfies Options;

export const command = defineCommand({
  name: 'test',
  synopsis: '',
  summary: 'grade src/mcp.ts: the stage and every stage before it',
  options: TEST_OPTIONS,
  run: ({ values }, output) => test(values, (text) => output.out(text)),
});

/** The options that make `test` a CI run: every stage's results kept, results.json and JUnit written.
 *  (`--html` is a student's too: a page to open beside the terminal.) */
const CI_OPTIONS = ['all', 'report', 'junit', 'cases', 'sealed', 'teacher-report', 'only', 'shard', 'random', 'feedback'] as const;

export interface TestSettings {
  course: Course;
  /** Where the program runs: the course, or a scratch copy of a submission. */
  runRoot: string;
  /** What the scratch copy found in a submission. */
  facts?: SubmissionFacts;
  /** The stages to grade, in the order to grade them; grading stops at the first that fails. */
  stages: Stage[];
  seed: number;
  runs: number;
  /** Set where watch mode's own number of runs applies (no --runs): the terminal says so. */
  watchRuns?: number;
  timeoutMs?: number;
  memoryBytes: number;
  /** true: the machine's network (`--network`); false: none, sandbox or not (`--no-network`); unset: a
   *  network namespace of each program's own where there is a sandbox, the machine's where there is none. */
  network?: boolean;
  /** false: no sandbox even where one can be made. */
  sandbox: boolean;
  color: boolean;
  verbose: boolean;
  bundle: boolean;
  /** The report files to write after each run. */
  files: { format: ReportFormat; path: string }[];
  /** Where the submission came from (the course itself when none was given), as the report names it. */
  submission: string;
  /** Where what a student reads goes (stdout). */
  write(text: string): void;
}

type TestValues = Parsed<typeof TEST_OPTIONS>['values'];

/** `write`: where what a student reads goes (main passes stdout, or a caller's own sink). */
async function test(values: TestValues, write: (text: string) => void): Promise<number> {
  if (CI_OPTIONS.some((option) => values[option] !== undefined)) return ciTest(values, write);
  // The stage table and the expected outputs always come from the course, never from a submission.
  const course = courseHere();
  checkProgram(course.root);
  const common = { ...commonSettings(values, course, write), sandbox: sandboxToUse(values) };
  if (values.watch && values.submission !== undefined) {
    throw new UsageError("--watch grades this course's src/ as you save it; it does not go with --submission");
  }
  if (values.case !== undefined) write(`note: --case ${values.case}: ${casesNote(common.stages)}\n\n`);
  const interruption = values.watch ? undefined : onInterrupt();
  const scratch = values.submission === undefined ? undefined : scratchCopy(course.root, values.submission);
  try {
    if (scratch && !scratch.facts.hasEntryPoint) write(`note: ${values.submission} has no src/mcp.ts: every check will fail\n\n`);
    if (common.sandbox && !sandboxAvailability().available)
      write(`note: grading without a sandbox (${sandboxAvailability().reason}): your code is bundled and run outside one; ${ENABLE_SANDBOX}\n\n`);
    const settings: TestSettings = { ...common, course, runRoot: scratch?.root ?? course.root, facts: scratch?.facts };
    if (values.watch) {
      const { watch } = await import('../watch/watch.ts');
      // Each round starts the next round's bundler and programs once its verdict is out; the next save releases them.
      let ahead: Started | undefined;
      const keep = values['no-prestart'] ? undefined : (next: Started) => (ahead = next);
      const keys = process.stdin.isTTY ? process.stdin : undefined;
      // --html: the page is served too, and reloads itself after each grading
      const htmlFile = settings.files.find(({ format }) => format.option === 'html');
      const live = htmlFile && (await (await import('../report/live-page.ts')).serveLive(resolve(htmlFile.path)));
      const files = settings.files.map((file) => ({ ...file, format: liveHtml(file.format) }));
      try {
        const reload = () => courseHere({}, course.root);
        const terminal = new WatchTerminal(write, {
          color: common.color,
          clear: process.stdout.isTTY === true,
          keys: keys !== undefined,
          ...(live && { page: live.url }),
        });
        // every case of the stages: watch's filter (--case to start with, then the keys) picks from them
        const stages = stagesToGrade(course, values.stage);
        return await watch({ course, reload, stages, casePattern: values.case, terminal, keys }, (course, stages, context) => {
          const taken = ahead;
          ahead = undefined;
          return gradeAndReport({ ...settings, course, stages, files }, context.signal, { taken, keep, ...context });
        });
      } finally {
        await live?.close();
        // their pipes would keep this process from ending
        ahead?.bundles.cancel();
        ahead?.programs.cancelAll();
      }
    }
    const results = await gradeAndReport(settings, interruption?.signal);
    if (interruption?.exitCode !== undefined) {
      write('\ninterrupted: grading stopped\n');
      return interruption.exitCode;
    }
    return exitCode(results);
  } finally {
    scratch?.remove();
    interruption?.dispose();
  }
}

/** What every grading reads off the command line, checked (a mistake is a UsageError), but the sandbox. */
function commonSettings(values: TestValues, course: Course, write: (text: string) => void) {
  const settings = {
    stages: casesToGrade(stagesToGrade(course, values.stage), values.case),
    seed: values.seed === undefined ? randomSeed() : seed('--seed', values.seed),
    runs: values.runs === undefined ? (values.watch ? WATCH_RUNS : DEFAULT_RUNS) : runs('--runs', values.runs),
    ...(values.watch && values.runs === undefined && { watchRuns: WATCH_RUNS }),
    timeoutMs: values.timeout === undefined ? undefined : seconds('--timeout', values.timeout) * 1000,
    memoryBytes: values.memory === undefined ? DEFAULT_MEMORY_BYTES : positive('--memory', values.memory, 'MiB') * 1024 * 1024,
    network: networkChoice(values),
    color: useColor(values['no-color']),
    verbose: values.verbose ?? false,
    bundle: !values['no-bundle'],
    files: requestedFiles(values),
    submission: resolve(values.submission ?? course.root),
    write,
  };
  for (const { format, path } of settings.files) checkWritable(`--${format.option}`, path);
  return settings;
}

/** CI grading (docs/ci.md). A run that stops before grading (a bad option, a course that cannot be read,
 *  no sandbox) still writes the report files asked for, saying why, as one that stops later does. */
async function ciTest(values: TestValues, write: (text: string) => void): Promise<number> {
  const started = new Date();
  const files = requestedFiles(values);
  let course: Course | undefined;
  let common: ReturnType<typeof commonSettings> | undefined;
  let settings: CiSettings;
  try {
    // --feedback: the course as published, in the grader's package; the repository's own copy of it is the student's
    course = values.feedback ? publishedCourse() : courseHere();
    checkProgram(course.root);
    if (values.watch) throw new UsageError(`--watch grades as you save; it does not go with ${CI_OPTIONS.map((option) => `--${option}`).join(', ')}`);
    if (values.feedback) refuseBesideFeedback(values);
    // a grade, or feedback, on some cases of a stage would say the stage passes
    if (values.case !== undefined)
      throw new UsageError(`--case grades some cases only; it does not go with ${CI_OPTIONS.map((option) => `--${option}`).join(', ')}`);
    common = commonSettings(values, course, write);
    const { parseShard, WHOLE } = await import('../ci/shard.ts');
    const shard = values.shard === undefined ? WHOLE : parseShard(values.shard);
    if (shard === undefined) throw new UsageError(`--shard takes <i>/<n> with 1 <= i <= n, e.g. 2/4, not "${values.shard}"`);
    // shards with a random seed each grade different generated cases, and merge-reports refuses them once all are graded
    if (shard.count > 1 && values.seed === undefined)
      throw new UsageError(`--shard ${values.shard} needs --seed <n>, the same for every shard (merge-reports refuses shards of different seeds)`);
    settings = {
      ...common,
      sandbox: sandboxToUse(values),
      course,
      submission: submissionOf(values, course),
      all: values.all ?? false,
      hiddenDir: values.cases,
      // none for feedback: their expected outputs come from the reference solution, which is not published
      generatedPerCommand: values.feedback ? 0 : values.random === undefined ? GENERATED_PER_COMMAND : count('--random', values.random, 1000),
      shard,
      feedback: values.feedback ?? false,
      sealed: values.sealed ?? false,
      ...(values['teacher-report'] !== undefined && { teacherDir: teacherDir(values['teacher-report']) }),
      ...(values.only !== undefined && { only: origins(values.only) }),
    };
  } catch (error) {
    if (course === undefined) writeStopped(files, stopReason(error));
    else {
      // nothing graded: every stage not graded, with the settings as far as they were read
      const run = {
        course,
        seed: common?.seed ?? 0,
        startedAt: started,
        submission: { path: resolve(submissionOf(values, course)) },
        limits: common ?? { memoryBytes: DEFAULT_MEMORY_BYTES },
        sandbox: 'none' as const,
        network: false,
        problems: [stopReason(error)],
        feedback: values.feedback ?? false,
      };
      writeStopped(files, buildReport(run, gradedInOrder(common?.stages ?? course.stages, [])));
    }
    throw error;
  }
  const { gradeSubmission } = await import('../ci/grade.ts');
  const interruption = onInterrupt();
  try {
    return await gradeSubmission({ ...settings, interruption });
  } finally {
    interruption.dispose();
  }
}

/** The folder whose src/ is graded: --submission's, the working folder for --feedback, or the course's own. */
function submissionOf(values: TestValues, course: Course): string {
  return values.feedback ? process.cwd() : (values.submission ?? course.root);
}

/** `--only`'s origins, each named once. */
function origins(text: string): Origin[] {
  const named = text.split(',').map((origin) => origin.trim());
  const unknown = named.find((origin) => !(ORIGINS as readonly string[]).includes(origin));
  if (unknown !== undefined) throw new UsageError(`--only takes origins among ${ORIGINS.join(', ')}, comma-separated, not "${unknown}"`);
  return [...new Set(named as Origin[])];
}

/** `--teacher-report`'s folder: made if new; refused where a file stands. */
function teacherDir(dir: string): string {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new UsageError(`--teacher-report ${dir}: a file, not a folder`);
  return resolve(dir);
}

/** What --feedback, a student's own CI, does not go with, each in one line. */
function refuseBesideFeedback(values: TestValues): void {
  if (values.cases !== undefined || values.sealed || values['teacher-report'] !== undefined)
    throw new UsageError(
      `--feedback takes no ${values.cases !== undefined ? 'hidden cases (--cases)' : values.sealed ? '--sealed' : '--teacher-report'}: a student's workflow is theirs to edit, so it holds no secret and no hidden case`,
    );
  if (values.submission !== undefined) throw new UsageError("--feedback grades this folder's src/; it does not go with --submission");
  if (values.random !== undefined)
    throw new UsageError(
      "--feedback makes no generated cases (--random): their expected outputs come from the course's reference solution, which is not published",
    );
}

function networkChoice(values: { network?: boolean; 'no-network'?: boolean }): boolean | undefined {
  if (values.network && values['no-network']) throw new UsageError('--network and --no-network contradict each other');
  return values.network ? true : values['no-network'] ? false : undefined;
}

/** Whether to grade in a sandbox; refuses (exit 2) when one is required and none can be made here.
 *  Required by default when grading a submission: a verdict a submission could forge is worth nothing. */
function sandboxToUse(values: { submission?: string; feedback?: boolean; 'no-sandbox'?: boolean; 'require-sandbox'?: boolean }): boolean {
  if (values['no-sandbox']) {
    if (values['require-sandbox']) throw new UsageError('--no-sandbox and --require-sandbox contradict each other');
    return false;
  }
  const required = values['require-sandbox'] ?? (values.submission !== undefined || values.feedback === true);
  const availability = sandboxAvailability();
  if (required && !availability.available) {
    throw new HostError(`no sandbox can be made here (${availability.reason}): ${ENABLE_SANDBOX}`);
  }
  return true;
}

/** What watch mode starts ahead for a grading: the run of the bundler, and a program per case. */
export interface Started {
  bundles: BundlesAhead;
  programs: Prestarts;
}

/** Watch mode's round: the processes started ahead for this grading, where to keep those for the next,
 *  and what watch remembers across its gradings (RoundContext's). */
interface Ahead extends Partial<Omit<RoundContext, 'signal'>> {
  taken?: Started;
  /** Where the next grading's go once started; none: nothing is started ahead (--no-prestart). */
  keep?(next: Started): void;
}

/** Grades the stages as a student sees them, printing as it goes; stops at the first that fails.
 *  The report files asked for are written at the end of every run that was not stopped. In watch mode,
 *  a save whose code is the last grading's grades nothing: `unchanged`. */
export async function gradeAndReport(settings: TestSettings, signal?: AbortSignal): Promise<StageResult[]>;
export async function gradeAndReport(settings: TestSettings, signal: AbortSignal, ahead: Ahead): Promise<StageResult[] | 'unchanged'>;
export async function gradeAndReport(settings: TestSettings, signal?: AbortSignal, ahead?: Ahead): Promise<StageResult[] | 'unchanged'> {
  const startedAt = new Date();
  const { write } = settings;
  const stageNumber = (slug: string) => {
    const index = settings.course.stages.findIndex((stage) => stage.slug === slug);
    return index === -1 ? undefined : index + 1;
  };
  const reporter = allOf([
    new TerminalReporter(write, { ...settings, recap: { stageNumber } }),
    ...settings.files.map(({ format, path }) => fileReporter(format, path)),
  ]);
  const start = await launcher(settings.runRoot, { ...settings, packages: settings.course.packages, ahead: ahead?.taken?.bundles });
  const options = {
    runRoot: settings.runRoot,
    launcher: start,
    content: COURSE_CONTENT,
    env: programEnv(),
    seed: settings.seed,
    propertyRuns: settings.runs,
    timeoutMs: settings.timeoutMs,
    memoryBytes: settings.memoryBytes,
  };
  // After the save: the programs this grading took are ended (those that said their end wait, stopped,
  // until then), and the next save's bundler and programs are started. `kept`: the programs of a save
  // that graded nothing, which wait on for the next.
  const startNext = (kept?: Prestarts) => {
    const keep = ahead?.keep;
    const ended = kept ? undefined : ahead?.taken?.programs;
    if (!keep && !ended) return;
    // After the verdict is out, watch's last line too (starting 30 programs takes a few hundred ms of
    // this thread, and their ends a few hundred ms of the kernel's): the student reads it meanwhile. Not
    // once watch has stopped (Ctrl-C may come first): programs waiting for a go that never comes would
    // keep this process alive.
    setImmediate(() => {
      ended?.cancelAll();
      if (!keep) return;
      if (signal?.aborted) return kept?.cancelAll();
      // the bundler first: the programs it would load on the go are the ones it will write
      const bundles = prestartLauncher(settings.runRoot, { ...settings, packages: settings.course.packages });
      keep({ bundles, programs: kept ?? prestartStages(settings.stages, options) });
    });
  };
  const last = ahead?.lastGrading;
  if (last && !ahead?.asked && last.graded(start.digest, settings.course, settings.stages)) {
    startNext(ahead?.taken?.programs);
    return 'unchanged';
  }
  last?.starts(start.digest, settings.course, settings.stages);
  ahead?.starts?.();
  let results: StageResult[] | undefined;
  const programs = ahead?.taken?.programs;
  try {
    results = await gradeStages(settings.stages, { ...options, signal, prestarted: programs, lastPropertyRuns: ahead?.lastPropertyRuns }, reporter);
  } finally {
    // the ones this grading did not take (a case that changed, a stage not reached); all, where no verdict will be out
    if (results === undefined || signal?.aborted) programs?.cancelAll();
    else programs?.cancelWaiting();
  }
  if (signal?.aborted) return results;
  const run = {
    course: settings.course,
    seed: settings.seed,
    startedAt,
    submission: { path: settings.submission, facts: settings.facts },
    limits: settings,
    sandbox: start.jail.kind,
    network: start.jail.network,
  };
  reporter.finish(buildReport(run, gradedInOrder(settings.stages, results)));
  for (const { format, path } of settings.files) write(`wrote ${format.what}: ${resolve(path)}\n`);
  last?.ended();
  startNext();
  return results;
}

export function exitCode(results: StageResult[]): number {
  if (results.some((result) => result.verdicts.some((verdict) => verdict.status === 'infra'))) return 2;
  return results.every((result) => result.passed) ? 0 : 1;
}

/** `--stage S` (a slug or a number): S first, then the stages before it (a regression is a failure). No flag: all, in order. */
function stagesToGrade(course: Course, slug: string | undefined): Stage[] {
  if (slug === undefined) return course.stages;
  const index = stageIndex(course, slug);
  return [course.stages[index]!, ...course.stages.slice(0, index).reverse()];
}

/** What `--case` left to grade, for the line that says so. */
function casesNote(stages: readonly Stage[]): string {
  const count = stages.reduce((sum, stage) => sum + stage.cases.length, 0);
  return `${count} case${count === 1 ? '' : 's'} (${stages.map((stage) => `${stage.slug}: ${stage.cases.map(caseName).join(', ')}`).join('; ')}), no property tests`;
}
