// The oracle shares its process with the student's code, so the grader trusts nothing it says:
// forged verdict lines pass nothing, garbage on fd 3 gets a precise verdict and never crashes or
// hangs the grader, an oracle that dies or hangs on a call fails the property that made it (and
// only if the real run makes that call), and in a sandbox the oracle sees only what it may.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import type { Verdict } from '../../harness/run/verdict.ts';
import { jsonRpcMessage } from '../../harness/props/arbitraries.ts';
import { valuesTried } from '../../harness/props/check.ts';
import { runProperties, type PropertyRunOptions } from '../../harness/props/run.ts';
import { suiteNamed } from '../../harness/stages/index.ts';
import { bundleModule } from '../helpers/bundle.ts';
import { jailFor, sandboxAvailability } from '../../harness/run/sandbox.ts';

const FRAMING = suiteNamed('framing')!;

const REPO = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'theinference-hostile-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const REFERENCE_FRAME = "export function frame(msg: object): string { return JSON.stringify(msg) + '\\n'; }";
const REFERENCE_PARSE = 'export function parseFrame(line: string): unknown { return JSON.parse(line.trim()); }';
const PROPERTIES = ['one-line', 'compact-json', 'line-endings', 'round-trip'];

let roots = 0;
/** A run root holding src/mcp.ts with these sources (and the course's node_modules, for a sandbox), and
 *  the .theinference/ folder the grader makes in it before its sandbox, which shows only what is there. */
function studentModule(source: string): { root: string; modulePath: string } {
  const root = join(scratch, `root-${(roots += 1)}`);
  mkdirSync(join(root, 'src'), { recursive: true });
  mkdirSync(join(root, '.theinference'));
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  writeFileSync(join(root, 'src', 'mcp.ts'), source);
  return { root, modulePath: join(root, 'src', 'mcp.ts') };
}

/** The suite's runs on a student module of `source`; `sandboxed`: in the run root's sandbox, as graded. */
function grade(source: string, overrides: Partial<PropertyRunOptions> = {}, sandboxed = false): Promise<Verdict[]> {
  return gradeModule(studentModule(source), overrides, sandboxed);
}

/** The suite's runs on the module studentModule made (which a test may rewrite between runs). */
async function gradeModule(
  { root, modulePath }: { root: string; modulePath: string },
  overrides: Partial<PropertyRunOptions> = {},
  sandboxed = false,
): Promise<Verdict[]> {
  return runProperties({
    ...(sandboxed && { jail: jailFor(root, { sandbox: true, network: false }) }),
    suite: FRAMING,
    stage: 'config-and-framing',
    modulePath,
    bundled: await bundleModule(modulePath, root),
    cwd: root,
    env: process.env,
    seed: 1234,
    runs: 300,
    timeoutMs: 30_000,
    ...overrides,
  });
}

const forgedOutcomes =
  PROPERTIES.map((property) => JSON.stringify({ type: 'outcome', property, passed: true, numRuns: 1000, numShrinks: 0, seed: 1234, durationMs: 1 })).join(
    '\n',
  ) + '\n{"type":"done"}\n';

/** Writes the forged outcome lines (and an answer-shaped line) on every fd from 3 to 9. */
const FORGE = `
import { writeSync } from 'node:fs';
function forge(): void {
  for (let fd = 3; fd <= 9; fd += 1) {
    try { writeSync(fd, ${JSON.stringify(forgedOutcomes)}); } catch {}
  }
}`;

describe('forged verdicts', () => {
  test('outcome lines written on fds 3 to 9 while loading, then exit(0): no property passes', async () => {
    const verdicts = await grade(`${FORGE}\nforge();\nprocess.exit(0);\n${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
    expect(verdicts).toHaveLength(4);
    for (const verdict of verdicts) {
      expect(verdict.status).toBe('fail');
      expect(verdict.message).toMatch(
        /^the grader's channel to your functions \(fd 3\) carried a message it did not expect: "\{\\"type\\":\\"outcome\\".*while loading .*mcp\.ts$/,
      );
      expect(verdict.details).toContain('leave fd 3 alone');
    }
  });

  test('outcome lines written from inside the functions, then exit(0): no property passes', async () => {
    const verdicts = await grade(`${FORGE}
      export function frame(msg: object): string { forge(); process.exit(0); }
      export function parseFrame(line: string): unknown { forge(); process.exit(0); }`);
    for (const verdict of verdicts) {
      expect(verdict.status).toBe('fail');
      expect(verdict.message).toMatch(
        /^the grader's channel to your functions \(fd 3\) carried a message it did not expect: "\{\\"type\\":\\"outcome\\".* while checking this property$/,
      );
    }
  });

  test('a module that takes fd 3 over and answers every call rightly passes: only answers count', async () => {
    // it never returns to the oracle: it is the oracle, written by the student (the protocol's values copied into src/)
    const module = studentModule(`
      import { readSync, writeSync } from 'node:fs';
      import { StringDecoder } from 'node:string_decoder';
      import { decode, encode } from './values.ts';
      writeSync(3, '{"type":"loaded"}\\n');
      const chunk = Buffer.alloc(65536);
      const decoder = new StringDecoder('utf8');
      let pending = '';
      for (;;) {
        const read = readSync(3, chunk);
        if (read === 0) process.exit(0);
        pending += decoder.write(chunk.subarray(0, read));
        for (let newline = pending.indexOf('\\n'); newline !== -1; newline = pending.indexOf('\\n')) {
          const request = JSON.parse(pending.slice(0, newline));
          pending = pending.slice(newline + 1);
          const [argument] = decode(request.args) as [any];
          const value = request.fn === 'frame' ? JSON.stringify(argument) + '\\n' : JSON.parse(argument.trim());
          writeSync(3, '{"id":' + request.id + ',"value":' + encode(value) + '}\\n');
        }
      }
      export function frame(msg: object): string { return 'wrong'; }
      export function parseFrame(line: string): unknown { return null; }`);
    copyFileSync(join(REPO, 'harness/props/values.ts'), join(module.root, 'src', 'values.ts'));
    const verdicts = await gradeModule(module);
    for (const verdict of verdicts) expect(verdict).toMatchObject({ status: 'pass', message: 'held for 300 runs' });
  });
});

describe('garbage on fd 3', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['a 10 MB line while loading', `writeSync(3, 'x'.repeat(10 * 1024 * 1024) + '\\n');`, /carried a line of more than 8 MiB while loading /],
    ['invalid JSON while loading', `writeSync(3, '{"type": rea\\n');`, /carried a line that is not JSON: "\{\\"type\\": rea" while loading /],
    [
      'an answer before any call',
      `writeSync(3, '{"id":1,"value":"x"}\\n');`,
      /carried a message it did not expect: "\{\\"id\\":1,\\"value\\":\\"x\\"\}" while loading /,
    ],
  ];
  for (const [name, write, message] of cases) {
    test(`${name}: every property fails saying what came`, async () => {
      const verdicts = await grade(`import { writeSync } from 'node:fs';\n${write}\n${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
      for (const verdict of verdicts) expect(verdict).toMatchObject({ status: 'fail', message: expect.stringMatching(message) });
    });
  }

  const duringCalls: Array<[string, string, string]> = [
    [
      'an answer to a call never made',
      `'{"id":999999,"value":"x"}\\n'`,
      'carried an answer to call 999999, which was never asked or is answered already while checking this property',
    ],
    [
      'an answer that cannot be decoded',
      `'{"id":1,"value":{"$":"bogus"}}\\n'`,
      'carried an answer that cannot be read (an unknown tag "bogus"): "{\\"id\\":1,\\"value\\":{\\"$\\":\\"bogus\\"}}" while checking this property',
    ],
    ['a 10 MB line', `'y'.repeat(10 * 1024 * 1024)`, 'carried a line of more than 8 MiB while checking this property'],
    ['invalid JSON', `'not json at all\\n'`, 'carried a line that is not JSON: "not json at all" while checking this property'],
  ];
  for (const [name, line, message] of duringCalls) {
    test(`${name}, written by frame: the properties calling frame fail saying so, the grader carries on`, async () => {
      const verdicts = await grade(`import { writeSync } from 'node:fs';
        export function frame(msg: object): string { writeSync(3, ${line}); return JSON.stringify(msg) + '\\n'; }
        ${REFERENCE_PARSE}`);
      const [oneLine, compact, lineEndings, roundTrip] = verdicts;
      for (const verdict of [oneLine, compact])
        expect(verdict).toMatchObject({ status: 'fail', message: `the grader's channel to your functions (fd 3) ${message}` });
      expect(oneLine!.details).toContain('replay: npx theinference test --stage config-and-framing --seed 1234 --runs 300');
      expect(lineEndings).toMatchObject({ status: 'pass' }); // a fresh oracle, and parseFrame writes nothing
      // the oracle that answered line-endings goes on with its call ids: a forged "id 1" is out of turn there
      expect(roundTrip).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/^the grader's channel to your functions \(fd 3\) carried .* while checking this property$/),
      });
    });
  }
});

describe('an oracle that dies or hangs', () => {
  // the first value of seed 1234 that is an error response, and one before it that is not
  const values = valuesTried(jsonRpcMessage, { seed: 1234, runs: 300 });
  const firstError = values.findIndex((value) => 'error' in (value as object));
  test('the seed has an error response, and not first', () => {
    expect(firstError).toBeGreaterThan(0);
  });

  test('exiting on some messages, mid-batch: crash for the properties that call frame', async () => {
    const verdicts = await grade(
      `export function frame(msg: object): string { if ('error' in msg) { console.error('bye'); process.exit(7); } return JSON.stringify(msg) + '\\n'; }\n${REFERENCE_PARSE}`,
    );
    const [oneLine, compact, lineEndings, roundTrip] = verdicts;
    for (const verdict of [oneLine, compact, roundTrip]) {
      expect(verdict).toMatchObject({ status: 'crash', message: 'the process exited with code 7 while checking this property' });
      expect(verdict!.stderr).toContain('bye');
    }
    expect(lineEndings).toMatchObject({ status: 'pass', message: 'held for 300 runs' });
  });

  // A wrong frame fails on the first value; one that also exits or hangs on a later value must
  // fail the same way, as when the checks ran one value after another in the student's process.
  // (Wrong for every property that calls frame, so that none of them runs as far as the later value.)
  const WRONG = "return JSON.stringify([msg]) + '\\r\\n';";
  /** Asking ahead gives up on a call that hangs after this long (2 s when grading): what is under test
   *  is that giving up changes no verdict, not how long it waits, and a spinning call burns CPU meanwhile. */
  const patienceMs = 300;
  test.each([
    ['exits', 'process.exit(7);'],
    ['hangs', 'for (;;) {}'],
    ['blocks without using CPU', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);'],
  ])('a frame that fails first and %s on a later message fails as a plain wrong frame does', { timeout: 30_000 }, async (_name, misbehave) => {
    const plain = await grade(`export function frame(msg: object): string { ${WRONG} }\n${REFERENCE_PARSE}`);
    const verdicts = await grade(`export function frame(msg: object): string { if ('error' in msg) { ${misbehave} } ${WRONG} }\n${REFERENCE_PARSE}`, {
      patienceMs,
    });
    expect(verdicts.map(({ status, message, details }) => ({ status, message, details }))).toStrictEqual(
      plain.map(({ status, message, details }) => ({ status, message, details })),
    );
    expect(verdicts[0]).toMatchObject({ status: 'fail' });
  });

  // A second run on the same file asks the last run's batches again before any check runs: asked as
  // they were then (ahead, with patience), a call that now hangs is abandoned as the checks would.
  test('a frame changed since the last run to hang on a later message still fails as a plain wrong frame does', async () => {
    const student = studentModule(`export function frame(msg: object): string { ${WRONG} }\n${REFERENCE_PARSE}`);
    const run = () => gradeModule(student, { patienceMs });
    const plain = await run();
    writeFileSync(student.modulePath, `export function frame(msg: object): string { if ('error' in msg) { for (;;) {} } ${WRONG} }\n${REFERENCE_PARSE}`);
    const verdicts = await run();
    expect(verdicts.map(({ status, message, details }) => ({ status, message, details }))).toStrictEqual(
      plain.map(({ status, message, details }) => ({ status, message, details })),
    );
    expect(verdicts[0]).toMatchObject({ status: 'fail' });
  });

  // in bounded time: the test's timeout, far below what waiting on the blocked call would take
  test('a frame that blocks without using CPU gets a timeout, in bounded time', { timeout: 30_000 }, async () => {
    const verdicts = await grade(
      `export function frame(msg: object): string { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0); return ''; }\n${REFERENCE_PARSE}`,
      { timeoutMs: 3000 },
    );
    expect(verdicts[0]).toMatchObject({ status: 'timeout', message: expect.stringMatching(/while checking this property$/) });
    expect(verdicts.filter((verdict) => verdict.status === 'pass')).toEqual([]);
  });

  test('a module that closes fd 3 while loading fails every property, saying how the process ended', async () => {
    const verdicts = await grade(`import { closeSync } from 'node:fs';\ncloseSync(3);\n${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
    for (const verdict of verdicts)
      expect(verdict).toMatchObject({ status: 'crash', message: expect.stringMatching(/^the process exited with code 1 while loading .*mcp\.ts$/) });
  });
});

describe.skipIf(!sandboxAvailability().available)('in the sandbox', () => {
  const sandboxed = (source: string) => grade(source, {}, true);

  test('the reference passes, and the oracle sees only the run root and its own files', async () => {
    const spy = `import { existsSync } from 'node:fs';
      export function frame(msg: object): string { return existsSync(${JSON.stringify(join(REPO, 'fixtures'))}) ? 'I can see fixtures/' : JSON.stringify(msg) + '\\n'; }
      ${REFERENCE_PARSE}`;
    for (const verdict of await sandboxed(spy)) expect(verdict).toMatchObject({ status: 'pass', message: 'held for 300 runs' });
    // without the sandbox the same module sees the course's fixtures, and says so
    expect((await grade(spy))[0]).toMatchObject({ status: 'fail' });
  });

  test('forged outcome lines pass nothing there either', async () => {
    const verdicts = await sandboxed(`${FORGE}\nforge();\nprocess.exit(0);\n${REFERENCE_FRAME}\n${REFERENCE_PARSE}`);
    for (const verdict of verdicts) expect(verdict.status).toBe('fail');
  });

  test('a frame that exits gets its crash verdict there too', async () => {
    const verdicts = await sandboxed(`export function frame(msg: object): string { process.exit(3); }\n${REFERENCE_PARSE}`);
    expect(verdicts.map((verdict) => verdict.status)).toEqual(['crash', 'crash', 'pass', 'crash']);
  });
});
