// Judging in the grader against an oracle gives the verdicts that judging in the student's own
// process gave: the values recorded beforehand are the ones the real run tries (compared by their
// encoding: values.ts writes every difference a check could see), and whatever a
// student's function returns (undefined, NaN, -0, a Promise, holes, prototypes, cycles, a big
// string...) comes out of the checks with the same message, counterexample and explanation.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { jsonRpcMessage } from '../../harness/props/arbitraries.ts';
import { Answers } from '../../harness/props/answers.ts';
import { checkProperty, valuesTried, type Halt, type Oracle, type PropertyOutcome } from '../../harness/props/check.ts';
import type { Call } from '../../harness/props/oracle-session.ts';
import { bundleModule } from '../helpers/bundle.ts';
import { runProperties } from '../../harness/props/run.ts';
import { show, clip } from '../../harness/props/show.ts';
import { Broken, describeThrown, property, type StudentModule } from '../../harness/props/suite.ts';
import { decode, encode } from '../../harness/props/values.ts';
import { suiteNamed } from '../../harness/stages/index.ts';

const FRAMING = suiteNamed('framing')!;

const REPO = resolve(import.meta.dirname, '../..');
const scratch = mkdtempSync(join(tmpdir(), 'theinference-check-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the values recorded beforehand', () => {
  test('are exactly those the real asynchronous run tries, in order', async () => {
    for (const [seed, runs] of [
      [1, 100],
      [42, 1000],
      [-7, 250],
    ] as const) {
      const recorded = valuesTried(jsonRpcMessage, { seed, runs });
      expect(recorded).toHaveLength(runs);
      const seen: unknown[] = [];
      await fc.check(
        fc.asyncProperty(jsonRpcMessage, async (value) => void seen.push(value)),
        { seed, numRuns: runs },
      );
      expect(seen.map((value) => encode(value))).toStrictEqual(recorded.map((value) => encode(value)));
    }
  });

  test('are made once per arbitrary, seed and runs: a grader grading again with its seed reuses them', () => {
    const first = valuesTried(jsonRpcMessage, { seed: 11, runs: 200 });
    expect(valuesTried(jsonRpcMessage, { seed: 11, runs: 200 })).toBe(first);
    expect(valuesTried(jsonRpcMessage, { seed: 12, runs: 200 })).not.toBe(first);
    expect(valuesTried(jsonRpcMessage, { seed: 11, runs: 100 })).toHaveLength(100);
  });

  test('begin the sequence of a run that fails, up to its first failure', async () => {
    const recorded = valuesTried(jsonRpcMessage, { seed: 5, runs: 1000 });
    const seen: unknown[] = [];
    const details = await fc.check(
      fc.asyncProperty(jsonRpcMessage, async (value) => {
        seen.push(value);
        return !('error' in value);
      }),
      { seed: 5, numRuns: 1000 },
    );
    expect(details.failed).toBe(true);
    expect(seen.slice(0, details.numRuns).map((value) => encode(value))).toStrictEqual(recorded.slice(0, details.numRuns).map((value) => encode(value)));
  });
});

const REFERENCE_FRAME = 'JSON.stringify(msg) + "\\n"';
const REFERENCE_PARSE = 'JSON.parse(line.trim())';

/** What a function returns instead of the right thing, as source (msg or line in scope). */
const FRAME_RETURNS: Record<string, string> = {
  undefined: 'undefined',
  null: 'null',
  NaN: 'NaN',
  '-0': '-0',
  bigint: '12n',
  'a Promise (async frame)': `Promise.resolve(${REFERENCE_FRAME})`,
  'an array with holes': '[1, , 3]',
  'an object with a null prototype': 'Object.assign(Object.create(null), { text: JSON.stringify(msg) })',
  'a class instance': 'new (class Framed { text = JSON.stringify(msg) })()',
  'a cyclic object': '(() => { const o: any = { msg }; o.self = o; return o; })()',
  'a string of 1 MB': `${REFERENCE_FRAME}.slice(0, -1) + " ".repeat(1_000_000) + "\\n"`,
  'a symbol': 'Symbol("frame")',
  'a Buffer': `Buffer.from(${REFERENCE_FRAME})`,
  'a Map': 'new Map([["frame", msg]])',
  'an Error': 'new Error("as a value")',
  'a lone surrogate': `${REFERENCE_FRAME}.replace(/"jsonrpc"/, '"\\ud800jsonrpc"')`,
};

const PARSE_RETURNS: Record<string, string> = {
  undefined: 'undefined',
  'the message with an undefined key': `({ ...${REFERENCE_PARSE}, extra: undefined })`,
  'the message with a null prototype': `Object.assign(Object.create(null), ${REFERENCE_PARSE})`,
  'the message as a class instance': `Object.assign(new (class Message {})(), ${REFERENCE_PARSE})`,
  'the message with -0 for 0': `JSON.parse(line.trim(), (_key, value) => (value === 0 ? -0 : value))`,
  'the message with NaN for numbers': `JSON.parse(line.trim(), (_key, value) => (typeof value === 'number' ? NaN : value))`,
  'the message in a cycle': `(() => { const m: any = ${REFERENCE_PARSE}; m.self = m; return m; })()`,
  'the message with holes in arrays': `JSON.parse(line.trim(), (_key, value) => (Array.isArray(value) && value.length > 1 ? (delete value[0], value) : value))`,
  'a Map of the message': `new Map(Object.entries(${REFERENCE_PARSE}))`,
  'a Promise of the message': `Promise.resolve(${REFERENCE_PARSE})`,
  'the message with bigints for integers': `JSON.parse(line.trim(), (_key, value) => (Number.isSafeInteger(value) ? BigInt(value) : value))`,
  'the message with a Date': `({ ...${REFERENCE_PARSE}, when: new Date(0) })`,
};

/** A module whose function returns, per call, the exotic value named by the EXOTIC env variable. */
function exoticModule(which: 'frame' | 'parseFrame', returns: Record<string, string>): string {
  const cases = Object.entries(returns)
    .map(([name, source]) => `    case ${JSON.stringify(name)}: return ${source};`)
    .join('\n');
  const exotic = `switch (process.env.EXOTIC) {\n${cases}\n    default: throw new Error('no such exotic value: ' + process.env.EXOTIC);\n  }`;
  const frameBody = which === 'frame' ? exotic : `return ${REFERENCE_FRAME};`;
  const parseBody = which === 'parseFrame' ? exotic : `return ${REFERENCE_PARSE};`;
  const dir = join(scratch, which, 'src');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'mcp.ts'),
    `export function frame(msg: any): any {\n  ${frameBody}\n}\nexport function parseFrame(line: string): any {\n  ${parseBody}\n}\n`,
  );
  return join(dir, 'mcp.ts');
}

/** The verdict lines the runner gave before the oracle: fast-check and the checks beside the module. */
async function inProcess(modulePath: string, seed: number, runs: number): Promise<Array<{ status: string; message: string; details?: string }>> {
  const student = (await import(pathToFileURL(modulePath).href)) as StudentModule;
  return suiteNamed('framing')!.properties.map((check) => {
    const details = fc.check(
      fc.property(check.arbitrary, (value) => void check.check(student, value)),
      { seed, numRuns: runs },
    );
    if (!details.failed) return { status: 'pass', message: `held for ${details.numRuns} runs` };
    const [value] = details.counterexample!;
    const error = details.errorInstance;
    const problem = error instanceof Error && error.name === 'Broken' ? error.message : `the check itself failed: ${describeThrown(error)}`;
    let explanation: string[];
    try {
      explanation = check.explain?.(student, value) ?? [];
    } catch (thrown) {
      explanation = [`(could not explain the counterexample: ${describeThrown(thrown)})`];
    }
    return {
      status: 'fail',
      message: clip(problem),
      details: [
        `counterexample (found after ${details.numRuns} run${details.numRuns === 1 ? '' : 's'}, shrunk ${details.numShrinks} time${details.numShrinks === 1 ? '' : 's'}):`,
        `  ${show(value)}`,
        ...explanation,
        `seed: ${seed}`,
        `replay: npx theinference test --stage config-and-framing --seed ${seed} --runs ${runs}`,
      ].join('\n'),
    };
  });
}

async function throughTheOracle(modulePath: string, exotic: string, seed: number, runs: number) {
  const verdicts = await runProperties({
    suite: FRAMING,
    stage: 'config-and-framing',
    modulePath,
    bundled: await bundleModule(modulePath, REPO),
    cwd: REPO,
    env: { ...process.env, EXOTIC: exotic },
    seed,
    runs,
    timeoutMs: 60_000,
  });
  return verdicts.map(({ status, message, details }) => ({ status, message, ...(details !== undefined && { details }) }));
}

describe.each([
  ['frame', FRAME_RETURNS],
  ['parseFrame', PARSE_RETURNS],
] as const)('%s returning something unusual gets the verdicts it got in-process', (which, returns) => {
  const modulePath = exoticModule(which, returns);
  test.each(Object.keys(returns))('%s', async (exotic) => {
    const seed = 2024;
    // a megabyte an answer is what that one is for, not the count: 8 runs move 32 MB through the oracle
    const runs = exotic === 'a string of 1 MB' ? 8 : 40;
    process.env.EXOTIC = exotic;
    try {
      const expected = await inProcess(modulePath, seed, runs);
      expect(await throughTheOracle(modulePath, exotic, seed, runs)).toStrictEqual(expected);
    } finally {
      delete process.env.EXOTIC;
    }
  });
});

describe('a check that catches everything', () => {
  // an oracle in this process, for checkProperty's own logic: it answers by calling `frame` here
  function localOracle(frame: (message: unknown) => unknown): Oracle<Halt> & { asked: number } {
    const answers = { asked: 0 };
    return Object.assign(answers, {
      async prefetch(calls: Call[]) {
        for (const call of calls) this.answer(call);
        return undefined;
      },
      async demand(call: Call) {
        this.answer(call);
        return undefined;
      },
      deadly: () => undefined,
      due: () => undefined,
      answer(call: Call) {
        answers.asked += 1;
        const [message] = decode(JSON.parse(call.args)) as [unknown];
        store.add(call, { value: decode(JSON.parse(encode(frame(message)))) }, 1);
      },
    });
  }
  let store = new Answers();
  const swallowing = property({
    id: 'swallowing',
    description: 'frame, with every error caught',
    arbitrary: jsonRpcMessage,
    check(student, message) {
      let framed: unknown;
      try {
        framed = (student.frame as (m: unknown) => unknown)(message);
      } catch {
        framed = 'it threw'; // swallows the runner's miss too: checkProperty must not take this as an answer
      }
      if (framed !== JSON.stringify(message) + '\n') throw new Broken(`frame gave ${String(framed)}`);
    },
  });

  test('is still judged on the answers, not on the misses it swallowed', async () => {
    for (const [frame, passed] of [
      [(message: unknown) => JSON.stringify(message) + '\n', true],
      [(message: unknown) => JSON.stringify(message), false],
    ] as const) {
      store = new Answers();
      const oracle = localOracle(frame);
      const values = valuesTried(jsonRpcMessage, { seed: 3, runs: 50 });
      const outcome = (await checkProperty(swallowing, values, store, ['frame'], oracle, { seed: 3, runs: 50 })) as PropertyOutcome;
      expect(outcome.passed).toBe(passed);
      expect(outcome.problem ?? '').not.toContain('it threw');
      expect(oracle.asked).toBeGreaterThan(0);
    }
  });
});

describe('what the oracle will not copy', () => {
  test("a function shows as its source, as the student's module was compiled", async () => {
    const modulePath = exoticModule('frame', { fn: '(x: number) => x + 1' });
    const [oneLine] = await throughTheOracle(modulePath, 'fn', 1, 10);
    expect(oneLine).toMatchObject({ status: 'fail', message: 'frame(m) returned a value of type function, not a string' });
    expect(oneLine!.details).toContain('your frame(m): (x) => x + 1\n'); // as the bundle (esbuild) wrote it
  });

  test('a string past the budget fails the property saying so, instead of passing its ends', async () => {
    const modulePath = exoticModule('frame', { huge: `${REFERENCE_FRAME}.slice(0, -1) + " ".repeat(5_000_000) + "\\n"` });
    const verdicts = await throughTheOracle(modulePath, 'huge', 1, 10);
    for (const verdict of verdicts.filter((_, index) => index !== 2)) {
      expect(verdict).toMatchObject({
        status: 'fail',
        message: expect.stringMatching(/^frame returned a string of \d+ characters, more than the 4 MiB the grader examines$/),
      });
    }
    expect(verdicts[2]).toMatchObject({ status: 'pass' }); // line-endings never calls frame
  });

  test('a value nested past the limit fails saying so', async () => {
    const modulePath = exoticModule('parseFrame', { deep: '(() => { let v: any = []; for (let i = 0; i < 10_000; i++) v = [v]; return v; })()' });
    const verdicts = await throughTheOracle(modulePath, 'deep', 1, 10);
    expect(verdicts[2]).toMatchObject({
      status: 'fail',
      message: 'parseFrame returned a value nested more than 500 levels deep, deeper than the grader examines',
    });
  });
});
