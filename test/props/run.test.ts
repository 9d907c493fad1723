// runProperties against real oracle processes: the reference passes, each classic framing
// mistake fails the property that names it, and a hang or an exit never takes the grader down.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import type { Verdict } from '../../harness/run/verdict.ts';
import { DEFAULT_RUNS } from '../../harness/defaults.ts';
import { LastPropertyRuns } from '../../harness/props/last-runs.ts';
import { prestartProperties, runProperties } from '../../harness/props/run.ts';
import { COURSE_CONTENT, suiteNamed } from '../../harness/stages/index.ts';
import { loadCourse } from '../../harness/course.ts';
import { gradeStage } from '../../harness/grade/stage.ts';
import { launcher, moduleBundlePath } from '../../harness/run/launcher.ts';
import { bundleModule } from '../helpers/bundle.ts';

const FRAMING = suiteNamed('framing')!;

const REPO = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'theinference-props-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const REFERENCE_PARSE = 'export function parseFrame(line: string): unknown { return JSON.parse(line.trim()); }';
const REFERENCE_FRAME = "export function frame(msg: object): string { return JSON.stringify(msg) + '\\n'; }";

let modules = 0;
/** A student module with these sources, in a directory of its own. */
function studentModule(source: string): string {
  const dir = join(scratch, `student-${(modules += 1)}`, 'src');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'mcp.ts'), source);
  return join(dir, 'mcp.ts');
}

/** Runs of the framing suite unless a test says otherwise: a broken function fails within its first
 *  values, and the reference is checked with the real 1,000 below. */
const RUNS = 200;

async function grade(
  modulePath: string,
  overrides: { seed?: number; runs?: number; timeoutMs?: number; lastRuns?: LastPropertyRuns } = {},
): Promise<Verdict[]> {
  return runProperties({
    suite: FRAMING,
    stage: 'config-and-framing',
    modulePath,
    bundled: await bundleModule(modulePath, REPO),
    cwd: REPO,
    env: process.env,
    seed: overrides.seed ?? 1234,
    runs: overrides.runs ?? RUNS,
    timeoutMs: overrides.timeoutMs ?? 60_000,
    lastRuns: overrides.lastRuns,
  });
}

/** status per property, keyed by a word of its name */
function byProperty(verdicts: Verdict[]): Record<string, Verdict> {
  const find = (needle: string) => {
    const verdict = verdicts.find((candidate) => candidate.name.includes(needle));
    if (verdict === undefined) throw new Error(`no verdict for ${needle} in ${verdicts.map((v) => v.name).join(' | ')}`);
    return verdict;
  };
  return {
    oneLine: find('is one line'),
    compact: find('JSON.stringify(m)'),
    lineEndings: find('parseFrame reads a line'),
    roundTrip: find('deep-equals m'),
  };
}

function statuses(verdicts: Verdict[]): Record<string, string> {
  return Object.fromEntries(Object.entries(byProperty(verdicts)).map(([key, verdict]) => [key, verdict.status]));
}

describe('runProperties on the framing suite', () => {
  test('the reference src/mcp.ts passes every property with 1,000 runs', async () => {
    expect(DEFAULT_RUNS).toBe(1000);
    const verdicts = await grade(join(REPO, 'src', 'mcp.ts'), { runs: DEFAULT_RUNS });
    expect(verdicts).toHaveLength(4);
    for (const verdict of verdicts) {
      expect(verdict, verdict.details).toMatchObject({ status: 'pass', message: 'held for 1000 runs', seed: 1234 });
      expect(verdict.name).toMatch(/^property: /);
    }
  });

  test('a pretty-printing frame fails "one line" and "compact", with the counterexample and the replay', async () => {
    const verdicts = await grade(
      studentModule(`export function frame(msg: object): string { return JSON.stringify(msg, null, 2) + '\\n'; }\n${REFERENCE_PARSE}`),
    );
    expect(statuses(verdicts)).toEqual({ oneLine: 'fail', compact: 'fail', lineEndings: 'pass', roundTrip: 'pass' });
    const { oneLine } = byProperty(verdicts);
    expect(oneLine.message).toMatch(/contains \d+ "\\n"/);
    expect(oneLine.details).toContain('counterexample');
    expect(oneLine.details).toMatch(/your frame\(m\): ".*\\n {2}\\"/); // the indentation, escaped and visible
    expect(oneLine.details).toContain('seed: 1234');
    expect(oneLine.details).toContain('replay: npx theinference test --stage config-and-framing --seed 1234');
    expect(oneLine.seed).toBe(1234);
  });

  test('a CRLF frame fails "one line" for its "\\r"', async () => {
    const verdicts = await grade(studentModule(`export function frame(msg: object): string { return JSON.stringify(msg) + '\\r\\n'; }\n${REFERENCE_PARSE}`));
    expect(statuses(verdicts)).toEqual({ oneLine: 'fail', compact: 'fail', lineEndings: 'pass', roundTrip: 'pass' });
    expect(byProperty(verdicts).oneLine.message).toContain('"\\r"');
    expect(byProperty(verdicts).oneLine.details).toMatch(/your frame\(m\): ".*\\r\\n"/);
  });

  test('a frame without its newline fails "one line"', async () => {
    const verdicts = await grade(studentModule(`export function frame(msg: object): string { return JSON.stringify(msg); }\n${REFERENCE_PARSE}`));
    expect(statuses(verdicts)).toEqual({ oneLine: 'fail', compact: 'fail', lineEndings: 'pass', roundTrip: 'pass' });
    expect(byProperty(verdicts).oneLine.message).toBe('frame(m) does not end with "\\n"');
  });

  test('a frame that escapes non-ASCII fails "compact" only, at the first differing character', async () => {
    const escaping = `export function frame(msg: object): string {
      return JSON.stringify(msg).replace(/[\\u007f-\\uffff]/g, (c) => '\\\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '\\n';
    }\n${REFERENCE_PARSE}`;
    const verdicts = await grade(studentModule(escaping));
    expect(statuses(verdicts)).toEqual({ oneLine: 'pass', compact: 'fail', lineEndings: 'pass', roundTrip: 'pass' });
    expect(byProperty(verdicts).compact.message).toMatch(/differs from JSON.stringify\(m\) \+ "\\n" at character \d+/);
  });

  test('a parseFrame that assumes the trailing newline fails "line endings" on the line without it', async () => {
    const verdicts = await grade(
      studentModule(`${REFERENCE_FRAME}\nexport function parseFrame(line: string): unknown { return JSON.parse(line.slice(0, -1)); }`),
    );
    expect(statuses(verdicts)).toEqual({ oneLine: 'pass', compact: 'pass', lineEndings: 'fail', roundTrip: 'pass' });
    const { lineEndings } = byProperty(verdicts);
    expect(lineEndings.message).toMatch(/^parseFrame\(line without its "\\n"\) threw SyntaxError: /);
    expect(lineEndings.details).toContain('line without its "\\n": "{');
  });

  // JSON.parse skips "\r" as whitespace, so leaving it in place is harmless; what breaks is a
  // parseFrame that drops only "\n" and then insists on what is left.
  test('a parseFrame that does not trim "\\r\\n" fails "line endings" on the CRLF line', async () => {
    const verdicts = await grade(
      studentModule(`${REFERENCE_FRAME}
      export function parseFrame(line: string): unknown {
        const body = line.endsWith('\\n') ? line.slice(0, -1) : line;
        if (!body.endsWith('}')) throw new SyntaxError('a frame must end with "}"');
        return JSON.parse(body);
      }`),
    );
    expect(statuses(verdicts)).toEqual({ oneLine: 'pass', compact: 'pass', lineEndings: 'fail', roundTrip: 'pass' });
    expect(byProperty(verdicts).lineEndings.message).toBe('parseFrame(line ending in "\\r\\n") threw SyntaxError: a frame must end with "}"');
  });

  test('a frame that loops forever gets a timeout verdict on the property that was running', async () => {
    const verdicts = await grade(studentModule(`export function frame(msg: object): string { for (;;) {} }\n${REFERENCE_PARSE}`), { timeoutMs: 2000 });
    const { oneLine } = byProperty(verdicts);
    expect(oneLine).toMatchObject({ status: 'timeout', message: 'used more than 2.0 s of CPU time while checking this property' });
    expect(oneLine.details).toContain('replay: npx theinference test --stage config-and-framing --seed 1234');
    expect(verdicts.filter((verdict) => verdict.status === 'pass')).toEqual([]); // nothing passes unchecked
    for (const verdict of verdicts) expect(verdict.status).toBe('timeout');
  });

  test('a frame that calls process.exit(3) gets a crash verdict; the properties after it still run', async () => {
    const verdicts = await grade(studentModule(`export function frame(msg: object): string { console.error('bye'); process.exit(3); }\n${REFERENCE_PARSE}`));
    expect(statuses(verdicts)).toEqual({ oneLine: 'crash', compact: 'crash', lineEndings: 'pass', roundTrip: 'crash' });
    const { oneLine } = byProperty(verdicts);
    expect(oneLine.message).toBe('the process exited with code 3 while checking this property');
    expect(oneLine.stderr).toContain('bye');
  });

  // Two oracles here (frame's crash ends the first; parseFrame's property needs another), each asleep
  // for 1.5 s of its 2.5 s budget: counted in wall time the second would never start, as on a machine
  // busy enough to slow the first; counted in CPU time, as a case's limit is, both run.
  test("the suite's time limit is the CPU time its oracles use together, not the wall time they take", async () => {
    const sleepy = `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);
      export function frame(msg: object): string { process.exit(3); }\n${REFERENCE_PARSE}`;
    const verdicts = await grade(studentModule(sleepy), { timeoutMs: 2500 });
    expect(statuses(verdicts)).toEqual({ oneLine: 'crash', compact: 'crash', lineEndings: 'pass', roundTrip: 'crash' });
  });

  // Started ahead (watch mode), the oracle boots and waits; the run releases it instead of starting
  // one. The module reports when it loaded: after the wait, so in the process started before it.
  test('an oracle started ahead is the one that answers once the run releases it', async () => {
    const pretty = studentModule(
      `console.error('loaded after ' + Math.round(process.uptime() * 1000) + ' ms');
      export function frame(msg: object): string { return JSON.stringify(msg, null, 2) + '\\n'; }\n${REFERENCE_PARSE}`,
    );
    const suite = { suite: FRAMING, modulePath: pretty, cwd: REPO, env: process.env, timeoutMs: 60_000 };
    const prestarted = prestartProperties(suite, join(REPO, 'harness', 'run', 'warm-start.mjs'), moduleBundlePath(REPO))!;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const bundled = await bundleModule(pretty, REPO);
    const verdicts = await runProperties({ ...suite, bundled, stage: 'config-and-framing', seed: 1234, runs: DEFAULT_RUNS, prestarted });
    expect(statuses(verdicts)).toEqual({ oneLine: 'fail', compact: 'fail', lineEndings: 'pass', roundTrip: 'pass' });
    const loadedAfter = Number(/loaded after (\d+) ms/.exec(byProperty(verdicts).oneLine.stderr ?? '')?.[1]);
    expect(loadedAfter).toBeGreaterThanOrEqual(2000);
  });

  // at once: within the test's timeout, far below the 60 s of CPU each oracle would otherwise be given
  test('an abort stops the oracle at once: every property not yet decided is infra "cancelled", even when aborted before the start', {
    timeout: 60_000,
  }, async () => {
    const hanging = studentModule(`export function frame(msg: object): string { for (;;) {} }\n${REFERENCE_PARSE}`);
    const slowToLoad = studentModule(`Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);\n${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
    for (const [modulePath, abort] of [
      [hanging, 'while checking'],
      [slowToLoad, 'while loading'],
      [slowToLoad, 'before the start'],
    ] as const) {
      const controller = new AbortController();
      if (abort === 'before the start') controller.abort();
      else setTimeout(() => controller.abort(), 1000);
      const verdicts = await runProperties({
        suite: FRAMING,
        stage: 'config-and-framing',
        modulePath,
        bundled: await bundleModule(modulePath, REPO),
        cwd: REPO,
        env: process.env,
        seed: 1,
        runs: 100,
        timeoutMs: 60_000,
        signal: controller.signal,
      });
      for (const verdict of verdicts) expect(verdict).toMatchObject({ status: 'infra', message: 'cancelled' });
    }
  });

  test('a frame that recurses forever fails with the RangeError quoted', async () => {
    const verdicts = await grade(studentModule(`export function frame(msg: object): string { return frame(msg); }\n${REFERENCE_PARSE}`));
    expect(byProperty(verdicts).oneLine).toMatchObject({ status: 'fail', message: 'frame threw RangeError: Maximum call stack size exceeded' });
  });

  test('the starter fails every property with its "not implemented yet" message', async () => {
    const verdicts = await grade(join(REPO, 'starter', 'src', 'mcp.ts'));
    expect(statuses(verdicts)).toEqual({ oneLine: 'fail', compact: 'fail', lineEndings: 'fail', roundTrip: 'fail' });
    const { oneLine, lineEndings } = byProperty(verdicts);
    expect(oneLine.message).toBe('frame threw Error: not implemented yet: frame (stage config-and-framing)');
    expect(lineEndings.message).toContain('threw Error: not implemented yet: parseFrame (stage config-and-framing)');
  });

  test('a module that cannot load, or lacks an export, fails every property saying so', async () => {
    const throwing = studentModule(`throw new Error('config missing');\n${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
    for (const verdict of await grade(throwing)) {
      expect(verdict.status).toBe('fail');
      expect(verdict.message).toBe(`${throwing} could not be loaded: Error: config missing`);
    }
    const partial = studentModule(REFERENCE_FRAME);
    for (const verdict of await grade(partial)) {
      expect(verdict).toMatchObject({ status: 'fail', message: `${partial} does not export \`parseFrame\` as a function` });
    }
  });

  test("the student's stdout, even protocol-looking lines, does not disturb the verdicts", async () => {
    const noisy = studentModule(`
      export function frame(msg: object): string { console.log('{"type":"done"}'); return JSON.stringify(msg) + '\\n'; }
      export function parseFrame(line: string): unknown { console.log('{"type":"unusable","message":"x"}'); return JSON.parse(line.trim()); }`);
    const verdicts = await grade(noisy, { runs: 200 });
    for (const verdict of verdicts) expect(verdict).toMatchObject({ status: 'pass', message: 'held for 200 runs' });
  });

  test('the same seed gives the same counterexample twice; the replay names non-default runs', async () => {
    // breaks only on some messages, so the counterexample depends on the seed
    const source = `export function frame(msg: object): string { return JSON.stringify(msg).replaceAll('/', '\\\\/') + '\\n'; }\n${REFERENCE_PARSE}`;
    // two copies: a second run on the same module would take the first one's verdicts (the next test)
    const first = byProperty(await grade(studentModule(source), { seed: 99, runs: 300 })).compact;
    const second = byProperty(await grade(studentModule(source), { seed: 99, runs: 300 })).compact;
    expect(first.status).toBe('fail');
    expect(first.details).toContain('\\\\/'); // the escaped slash in the student's frame
    expect(second.message).toBe(first.message);
    expect(second.details).toBe(first.details);
    expect(first.details).toContain('replay: npx theinference test --stage config-and-framing --seed 99 --runs 300');
  });

  test('a run whose oracle answers as the last one did takes its verdicts without checking again; one whose answers changed is judged', async () => {
    const module = studentModule(`${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
    const checks = suiteNamed('framing')!.properties.map((property) => vi.spyOn(property, 'check'));
    const checked = () => checks.reduce((sum, check) => sum + check.mock.calls.length, 0);
    // what watch mode's loop holds across its gradings; a run given none keeps nothing
    const lastRuns = new LastPropertyRuns();
    const kept = (modulePath: string) => grade(modulePath, { lastRuns });
    try {
      expect(new Set((await kept(module)).map((verdict) => verdict.status))).toEqual(new Set(['pass']));
      expect(checked()).toBeGreaterThanOrEqual(4 * RUNS); // each property checked each value
      const before = checked();
      expect(new Set((await kept(module)).map((verdict) => verdict.status))).toEqual(new Set(['pass']));
      expect(checked()).toBe(before); // answered the same: decided the same, with no check run
      await grade(module);
      await grade(module);
      expect(checked()).toBeGreaterThanOrEqual(before + 2 * 4 * RUNS); // no last runs held: each run judged
      const remembered = checked();
      await kept(module);
      expect(checked()).toBe(remembered); // the held one's are untouched by runs without it
      // parseFrame changed, frame kept: frame's batches answer the same and are read only when the
      // checks need them, parseFrame's differ, and every property is judged
      writeFileSync(module, `${REFERENCE_FRAME}\nexport function parseFrame(line: string): unknown { return JSON.parse(line.slice(0, -1)); }`);
      expect(statuses(await kept(module))).toEqual({ oneLine: 'pass', compact: 'pass', lineEndings: 'fail', roundTrip: 'pass' });
      expect(checked()).toBeGreaterThan(remembered);
      // the same file, now pretty-printing: its answers differ, and the checks say so
      writeFileSync(module, `export function frame(msg: object): string { return JSON.stringify(msg, null, 2) + '\\n'; }\n${REFERENCE_PARSE}`);
      const judged = checked();
      expect(statuses(await kept(module))).toEqual({ oneLine: 'fail', compact: 'fail', lineEndings: 'pass', roundTrip: 'pass' });
      expect(checked()).toBeGreaterThan(judged);
      // a failing run is kept as well: the same answers again give the same counterexample
      const again = byProperty(await kept(module)).oneLine;
      expect(again.status).toBe('fail');
      expect(again.details).toContain('counterexample');
    } finally {
      for (const check of checks) check.mockRestore();
    }
  });

  test('a run refused its module (it does not compile) keeps the run before it: the save that fixes it takes its verdicts again', async () => {
    const source = `${REFERENCE_FRAME}\n${REFERENCE_PARSE}`;
    const module = studentModule(source);
    const checks = suiteNamed('framing')!.properties.map((property) => vi.spyOn(property, 'check'));
    const checked = () => checks.reduce((sum, check) => sum + check.mock.calls.length, 0);
    const lastRuns = new LastPropertyRuns();
    try {
      expect(new Set((await grade(module, { lastRuns })).map((verdict) => verdict.status))).toEqual(new Set(['pass']));
      const before = checked();
      writeFileSync(module, 'export const = ;');
      const refused = await grade(module, { lastRuns });
      expect(refused.every((verdict) => verdict.status === 'fail' && verdict.notRun?.endsWith('(your code does not compile)'))).toBe(true);
      writeFileSync(module, source);
      expect(new Set((await grade(module, { lastRuns })).map((verdict) => verdict.status))).toEqual(new Set(['pass']));
      expect(checked()).toBe(before); // answered as before the refusal: decided as then, no check run
    } finally {
      for (const check of checks) check.mockRestore();
    }
  });

  test("a seed's counterexample is the one the runner found before the oracle (the pretty-printed scenario's golden)", async () => {
    const copy = join(scratch, 'pretty-printed');
    mkdirSync(join(copy, 'src'), { recursive: true });
    writeFileSync(join(copy, 'src', 'mcp.ts'), readFileSync(join(REPO, 'src', 'mcp.ts')));
    execFileSync('git', ['apply', join(REPO, 'test/scenarios/pretty-printed/mistake.diff')], { cwd: copy, stdio: 'pipe' });
    const { oneLine, compact } = byProperty(await grade(join(copy, 'src', 'mcp.ts'), { seed: 7, runs: DEFAULT_RUNS }));
    // as test/scenarios/pretty-printed/grader-output.txt has it (graded with the default runs)
    expect(oneLine.message).toBe('frame(m) contains 4 "\\n"; a message must stay on one line (compact JSON, no pretty-printing)');
    expect(compact.message).toBe(
      'frame(m) differs from JSON.stringify(m) + "\\n" at character 1: "\\n  \\"jsonrpc\\"" where "\\"jsonrpc\\":\\"2" was expected',
    );
    for (const verdict of [oneLine, compact]) {
      expect(verdict.details).toBe(
        [
          'counterexample (found after 1 run, shrunk 6 times):',
          '  {"jsonrpc":"2.0","method":""}',
          'your frame(m): "{\\n  \\"jsonrpc\\": \\"2.0\\",\\n  \\"method\\": \\"\\"\\n}\\n"',
          'expected:      "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"\\"}\\n"',
          'seed: 7',
          'replay: npx theinference test --stage config-and-framing --seed 7',
        ].join('\n'),
      );
    }
  });

  test('a suite the stages do not hold (a course read unchecked) is an infra verdict of the stage, not an exception', async () => {
    const stage = loadCourse(REPO).stages.find((candidate) => candidate.slug === 'config-and-framing')!;
    const grading = { runRoot: REPO, launcher: await launcher(REPO, { bundle: true }), env: process.env, seed: 1, propertyRuns: 10, content: COURSE_CONTENT };
    const result = await gradeStage({ ...stage, cases: [], properties: 'no-such-suite' }, grading);
    expect(result.verdicts).toEqual([
      expect.objectContaining({ name: 'property: no-such-suite', status: 'infra', message: 'no property suite named "no-such-suite"' }),
    ]);
  });
});
