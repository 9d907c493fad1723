// `test --watch`: grade again on every save under src/ and in the graded stages' cases and
// fixtures. A save during a run stops that run (its programs are killed) and starts a fresh one.
import { watch as watchFiles, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Course, Stage } from '../course.ts';
import { InputError } from '../errors.ts';

/** Editors save in bursts (write, rename, chmod): wait this long for the burst to end. */
const SETTLE_MS = 15;
const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';

export interface WatchSettings {
  course: Course;
  /** Reads the stage table again, as the command read it. */
  reload: () => Course;
  /** The stages graded each round, in grading order. */
  stages: Stage[];
}

/** Grades one round with the course and stages as they are on disk now; stops when `signal` aborts. */
export type Round = (course: Course, stages: Stage[], signal: AbortSignal) => Promise<unknown>;

export function watch(settings: WatchSettings, round: Round): Promise<number> {
  const { root } = settings.course;
  const slugs = settings.stages.map((stage) => stage.slug);
  const caseFolders = settings.stages.flatMap((stage) => stage.cases.flatMap((testCase) => [join(root, testCase.casePath), testCase.fixtureDir]));
  const source = join(root, 'src');
  const watched = [source, ...new Set(caseFolders.map((folder) => dirname(folder)))];

  let current: { controller: AbortController; done: Promise<unknown> } | undefined;
  let settle: NodeJS.Timeout | undefined;
  /** The stage table as last read; read again only after a change outside src/ (a save to src/ leaves it as it was). */
  let course: Course | undefined = settings.course;

  const grade = async (reason: string) => {
    if (current) {
      current.controller.abort();
      await current.done;
    }
    const controller = new AbortController();
    if (process.stdout.isTTY) process.stdout.write(CLEAR_SCREEN);
    process.stdout.write(`[watch] ${new Date().toLocaleTimeString()} ${reason}\n\n`);
    const done = (async () => {
      try {
        course ??= settings.reload();
        const table = course;
        const stages = slugs.map((slug) => table.stages.find((stage) => stage.slug === slug)).filter((stage) => stage !== undefined);
        await round(table, stages, controller.signal);
      } catch (error) {
        if (!(error instanceof InputError)) throw error;
        process.stdout.write(`theinference: ${error.message}\n`);
      }
      if (!controller.signal.aborted) process.stdout.write(`\n[watch] waiting for changes in src/ (Ctrl-C to stop)\n`);
    })();
    current = { controller, done };
  };

  const watchers: FSWatcher[] = watched.map((folder) =>
    watchFiles(folder, { recursive: true }, (_event, file) => {
      if (folder !== source) course = undefined; // cases or fixtures changed on disk: read the stage table again
      clearTimeout(settle);
      settle = setTimeout(() => void grade(`${join(folder, String(file ?? '')).slice(root.length + 1)} changed`), SETTLE_MS);
    }),
  );
  void grade('grading');

  return new Promise((resolve) => {
    process.once('SIGINT', async () => {
      for (const watcher of watchers) watcher.close();
      clearTimeout(settle);
      current?.controller.abort();
      await current?.done;
      process.stdout.write('\n[watch] stopped\n');
      resolve(0);
    });
  });
}
