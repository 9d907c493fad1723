// Programs started ahead (watch mode): graded exactly as programs started on demand, their limits
// counted from the release (not from the boot, however long they waited), and none left behind
// once cancelled.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gradeAndReport, type Started } from '../../harness/commands/test.ts';
import { loadCourse } from '../../harness/course.ts';
import { DEFAULT_MEMORY_BYTES } from '../../harness/defaults.ts';
import { gradeStage, prestartStages } from '../../harness/grade/stage.ts';
import { Prestarts, type Prestart } from '../../harness/run/prestart.ts';
import { programEnv } from '../../harness/run/env.ts';
import { launcher } from '../../harness/run/launcher.ts';
import { stillRunning } from '../ci/helpers.ts';
import { REPO } from '../helpers/cli.ts';
import { COURSE_CONTENT } from '../../harness/stages/index.ts';

const course = loadCourse(REPO);

/** Processes whose command line holds `text`. */
const withCommandLine = (text: string) => (pid: string) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
  } catch {
    return false; // it ended while we looked
  }
};

async function options(sandbox = true) {
  return { runRoot: REPO, content: COURSE_CONTENT, launcher: await launcher(REPO, { bundle: true, sandbox }), env: programEnv(), seed: 1, propertyRuns: 1 };
}

describe('programs started ahead', () => {
  // streamable-http: its programs get their player's URL at the release
  for (const slug of ['config-and-framing', 'tools', 'streamable-http']) {
    it(`grade ${slug} as programs started on demand do, each case taking its own`, async () => {
      const whole = course.stages.find((candidate) => candidate.slug === slug)!;
      // up to three cases of each command: each takes its own program, whichever the command
      const rank = (index: number) => whole.cases.slice(0, index).filter((other) => other.command === whole.cases[index]!.command).length;
      const stage = { ...whole, cases: whole.cases.filter((_, index) => rank(index) < 3), properties: undefined };
      const grading = await options();
      expect(grading.launcher.warm).toBeDefined();
      const prestarted = prestartStages([stage], grading);
      const ahead = await gradeStage(stage, { ...grading, prestarted });
      const onDemand = await gradeStage(stage, grading);
      const outcome = (verdicts: typeof ahead.verdicts) => verdicts.map(({ name, status, stdout }) => ({ name, status, stdout: stdout?.toString() }));
      expect(outcome(ahead.verdicts)).toEqual(outcome(onDemand.verdicts));
      expect(ahead.passed).toBe(true);
      for (const testCase of stage.cases) expect(prestarted.take(testCase.casePath)).toBeUndefined();
      prestarted.cancelAll();
    });
  }

  it('wait no more than their limit at once: each one taken starts the next in line once released, and one taken before its start is not started', async () => {
    const started: string[] = [];
    const cancelled: string[] = [];
    const program = (key: string) => (): Prestart => {
      started.push(key);
      return { release: () => Promise.reject(new Error('not released here')), cancel: () => cancelled.push(key) };
    };
    const prestarted = new Prestarts(2);
    for (const key of ['a', 'b', 'c', 'd', 'e']) prestarted.add(key, program(key));
    expect(started).toEqual(['a', 'b']);
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    expect(prestarted.take('a')).toBeDefined();
    expect(started).toEqual(['a', 'b']); // a is released first
    await turn();
    expect(started).toEqual(['a', 'b', 'c']);
    // d's turn came before it was started: it starts on demand, and e takes its place
    expect(prestarted.take('d')).toBeUndefined();
    await turn();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(prestarted.take('b')).toBeDefined();
    await turn();
    expect(started).toEqual(['a', 'b', 'c', 'e']);
    // c taken, and those waiting cancelled before the next turn: e is cancelled, and f, next in line, never started
    prestarted.add('f', program('f'));
    prestarted.take('c');
    prestarted.cancelWaiting();
    await turn();
    expect(started).toEqual(['a', 'b', 'c', 'e']);
    expect(cancelled).toEqual(['e']);
    // the grading over, those it took are cancelled too (one that said its end waits, stopped, until then)
    prestarted.cancelAll();
    expect(cancelled).toEqual(['e', 'a', 'b', 'c']);
  });

  for (const sandbox of [true, false]) {
    it(`count their time limits from the release, not from the start they waited after (${sandbox ? 'in' : 'without'} a sandbox)`, async () => {
      const stage = course.stages[0]!;
      const oneCase = { ...stage, cases: stage.cases.slice(0, 1), properties: undefined };
      const grading = { ...(await options(sandbox)), timeoutMs: 300 }; // wall backstop 900 ms
      expect(grading.launcher.jail.kind).toBe(sandbox ? 'bwrap' : 'none');
      const prestarted = prestartStages([oneCase], grading);
      await new Promise((resolve) => setTimeout(resolve, 1500)); // longer than the backstop
      const result = await gradeStage(oneCase, { ...grading, prestarted });
      prestarted.cancelAll();
      expect(result.verdicts[0]).toMatchObject({ status: 'pass' });
    });
  }

  it('leave no process behind when cancelled', async () => {
    const grading = await options();
    const stage = { ...course.stages[0]!, properties: undefined };
    const prestarted = prestartStages([stage], grading);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const marker = `${REPO}/.theinference/warm-start.mjs`;
    const before = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && withCommandLine(marker)(entry));
    expect(before.length).toBeGreaterThan(0);
    prestarted.cancelAll();
    expect(await stillRunning(withCommandLine(marker))).toEqual([]);
  });

  // Watch starts the next round's programs on the turn of the loop after a verdict; a Ctrl-C that
  // comes first stops the round's signal, and then nothing may start: programs waiting for a go
  // that never comes would keep the grader from exiting.
  it('are not started for a next round once the grading was stopped right after its verdict', async () => {
    const config = course.stages.find((candidate) => candidate.slug === 'config-and-framing')!;
    const stage = { ...config, cases: config.cases.slice(0, 2), properties: undefined };
    const settings = {
      course,
      runRoot: REPO,
      stages: [stage],
      seed: 1,
      runs: 1,
      memoryBytes: DEFAULT_MEMORY_BYTES,
      network: true,
      sandbox: true,
      color: false,
      verbose: false,
      bundle: true,
      files: [],
      submission: REPO,
      write: () => {}, // what it prints is not what this test is about
    };
    const turn = () => new Promise((resolve) => setTimeout(resolve, 100));
    for (const stopped of [false, true]) {
      const controller = new AbortController();
      let kept: Started | undefined;
      await gradeAndReport(settings, controller.signal, { keep: (next) => (kept = next) });
      if (stopped) controller.abort(); // as Ctrl-C does, before the loop turns
      await turn();
      expect(kept === undefined, stopped ? 'stopped' : 'going on').toBe(stopped);
      kept?.programs.cancelAll();
      kept?.bundles.cancel();
    }
  });
});
