// `test --watch`: grade again on every save under src/ and in the graded stages' cases and fixtures,
// and on the keys a terminal sends. A save during a grading stops it (its programs are killed) and
// starts a fresh one; a save whose code is the last grading's is not graded (LastGrading). This loop
// owns what watch mode is: the files watched, the filter, the keys and Ctrl-C, and what the gradings
// remember between them (the code graded, the property suites' runs); what it prints goes through
// report/'s WatchTerminal, and each grading's own lines through the round's reporters.
import { dirname, join } from 'node:path';
import type { Course, Stage } from '../course.ts';
import { InputError } from '../errors.ts';
import { caseName } from '../grade/case.ts';
import { casesToGrade } from '../grade/case-pattern.ts';
import type { StageResult } from '../grade/stage.ts';
import { LastPropertyRuns } from '../props/last-runs.ts';
import type { WatchTerminal } from '../report/watch.ts';
import { watchFolder } from './folder-watch.ts';
import { listenForKeys, type KeyCommand, type KeyInput } from './keys.ts';
import { LastGrading } from './last-grading.ts';

/** Editors save in bursts (write, rename, chmod): wait this long for the burst to end. */
const SETTLE_MS = 15;

/** What stops watch as `q` does: Ctrl-C, a kill, and the terminal closed (SIGHUP), whose default ends the
 *  process at once and leaves the scratch copies of the cases in the temporary folder. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface WatchSettings {
  course: Course;
  /** Reads the stage table again, as the command read it. */
  reload: () => Course;
  /** The stages graded each round, in grading order, each with every case: the filter picks from them. */
  stages: Stage[];
  /** `--case`: the filter watch starts with (`a` grades all again). */
  casePattern?: string;
  /** Where watch's own lines go. */
  terminal: WatchTerminal;
  /** Where the keys come from (a terminal); none: only Ctrl-C stops watch. */
  keys?: NodeJS.ReadStream;
}

/** What a round is given besides what to grade. */
export interface RoundContext {
  /** Aborts when a newer save, a key or Ctrl-C stops the round. */
  signal: AbortSignal;
  /** The property suites' last runs, kept across rounds: a run that answers as before keeps its verdicts. */
  lastPropertyRuns: LastPropertyRuns;
  /** The code the last round graded, and on what: a round of a save that bundles to the same grades nothing. */
  lastGrading: LastGrading;
  /** A key asked for this round: it grades even the last round's code. */
  asked: boolean;
  /** Says that the round grades (the screen cleared, the save or key that started it): before it prints. */
  starts(): void;
}

/** Grades one round with the course and stages as they are on disk now, printing through its reporters;
 *  `unchanged`: the save's code is the last round's (LastGrading), and nothing was graded or printed. */
export type Round = (course: Course, stages: Stage[], context: RoundContext) => Promise<StageResult[] | 'unchanged'>;

/** Of the stages, what a round grades: every case, those a pattern names, or the checks that failed last. */
type Selection = { kind: 'all' } | { kind: 'pattern'; pattern: string } | { kind: 'failed'; failed: ReadonlyMap<string, FailedChecks> };

/** A stage's checks that failed in the last round: its cases by name, and whether a property did. */
interface FailedChecks {
  cases: ReadonlySet<string>;
  properties: boolean;
}

/** Resolves with the exit code once watch stops: 0, on `q`, Ctrl-C or another of STOP_SIGNALS, as an interrupted grading today. */
export function watch(settings: WatchSettings, round: Round): Promise<number> {
  const { root } = settings.course;
  const { terminal } = settings;
  const slugs = settings.stages.map((stage) => stage.slug);
  const caseFolders = settings.stages.flatMap((stage) => stage.cases.flatMap((testCase) => [join(root, testCase.casePath), testCase.fixtureDir]));
  const source = join(root, 'src');
  const watched = [source, ...new Set(caseFolders.map((folder) => dirname(folder)))];
  const lastPropertyRuns = new LastPropertyRuns();
  const lastGrading = new LastGrading();

  let current: { controller: AbortController; done: Promise<unknown> } | undefined;
  let settle: NodeJS.Timeout | undefined;
  /** The stage table as last read; read again only after a change outside src/ (a save to src/ leaves it as it was). */
  let course: Course | undefined = settings.course;
  /** What saves grade: all, or the cases a pattern names (`p`, `--case`). */
  let standing: Selection = settings.casePattern === undefined ? { kind: 'all' } : { kind: 'pattern', pattern: settings.casePattern };
  /** The checks that failed in the last round graded to its end, for `f`. */
  let lastFailed = new Map<string, FailedChecks>();
  /** Set once `q` or Ctrl-C came: no grading starts after it. */
  let stopping = false;

  /** The graded stages as the stage table has them now, every case of each. */
  const stagesNow = (table: Course) => slugs.map((slug) => table.stages.find((stage) => stage.slug === slug)).filter((stage) => stage !== undefined);

  /** `asked`: a key, not a save, asked for the grading. */
  const grade = async (reason: string, selection: Selection = standing, asked = true) => {
    if (current) {
      current.controller.abort();
      await current.done;
    }
    if (stopping) return;
    const controller = new AbortController();
    let said = false;
    const starts = () => {
      if (!said) terminal.gradingStarts(reason);
      said = true;
    };
    const done = (async () => {
      try {
        course ??= settings.reload();
        const table = course;
        const context = { signal: controller.signal, lastPropertyRuns, lastGrading, asked, starts };
        const results = await round(table, selected(stagesNow(table), selection), context);
        if (controller.signal.aborted) return;
        if (results === 'unchanged') terminal.unchanged(reason);
        else lastFailed = failedChecks(results);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        lastGrading.forget(); // the screen holds the problem, not a grading
        starts();
        terminal.problem(error.message);
      }
      if (!controller.signal.aborted) terminal.waiting(standing.kind === 'pattern' ? `cases matching ${standing.pattern}` : undefined);
    })();
    current = { controller, done };
  };

  const watchers = watched.map((folder) =>
    watchFolder(folder, (path) => {
      if (folder !== source) course = undefined; // cases or fixtures changed on disk: read the stage table again
      clearTimeout(settle);
      settle = setTimeout(() => void grade(`${path.slice(root.length + 1)} changed`, standing, false), SETTLE_MS);
    }),
  );
  void grade('grading');

  return new Promise((resolve) => {
    let keys: KeyInput | undefined;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      for (const signal of STOP_SIGNALS) process.off(signal, stop);
      keys?.stop();
      for (const watcher of watchers) watcher.close();
      clearTimeout(settle);
      current?.controller.abort();
      await current?.done;
      terminal.stopped();
      resolve(0);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, stop);

    const onCommand = (command: KeyCommand) => {
      if (command.kind === 'quit') return void stop();
      if (command.kind === 'help') return terminal.help();
      if (command.kind === 'all') {
        standing = { kind: 'all' };
        return void grade('grading every case again');
      }
      if (command.kind === 'failed') {
        const count = [...lastFailed.values()].reduce((sum, checks) => sum + checks.cases.size + (checks.properties ? 1 : 0), 0);
        if (count === 0) return terminal.note('nothing failed in the last grading: press a to grade every case again');
        return void grade(`grading again what failed (${count} check${count === 1 ? '' : 's'})`, { kind: 'failed', failed: lastFailed });
      }
      // a pattern that names no case is said at once, and the filter stays as it was
      const pattern: Selection = { kind: 'pattern', pattern: command.pattern };
      try {
        selected(stagesNow(course ?? settings.course), pattern);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        return terminal.problem(error.message);
      }
      standing = pattern;
      void grade(`grading the cases matching ${command.pattern}`);
    };
    if (settings.keys)
      keys = listenForKeys(settings.keys, { command: onCommand, typing: (typed) => terminal.typingPattern(typed), typed: () => terminal.patternDone() });
  });
}

/** What a selection grades of `stages` (their order kept); a pattern that names no case is a UsageError. */
function selected(stages: Stage[], selection: Selection): Stage[] {
  if (selection.kind === 'all') return stages;
  if (selection.kind === 'pattern') return casesToGrade(stages, selection.pattern);
  const { failed } = selection;
  return stages.flatMap((stage) => {
    const checks = failed.get(stage.slug);
    if (checks === undefined) return [];
    const cases = stage.cases.filter((testCase) => checks.cases.has(caseName(testCase)));
    return [{ ...stage, cases, properties: checks.properties ? stage.properties : undefined }];
  });
}

/** Each stage's checks that did not pass in `results`: a verdict named as one of its cases is that case, any other a property. */
function failedChecks(results: readonly StageResult[]): Map<string, FailedChecks> {
  const failed = new Map<string, FailedChecks>();
  for (const { stage, verdicts } of results) {
    const names = new Set(stage.cases.map(caseName));
    const notPassed = verdicts.filter((verdict) => verdict.status !== 'pass');
    if (notPassed.length === 0) continue;
    failed.set(stage.slug, {
      cases: new Set(notPassed.filter((verdict) => names.has(verdict.name)).map((verdict) => verdict.name)),
      properties: notPassed.some((verdict) => !names.has(verdict.name)),
    });
  }
  return failed;
}
