// JSON nested 400,000 levels deep, from a program, where the grader reads it: what a client sends the
// player (over stdio and over HTTP) and what a program prints. JSON.parse reads it; every walk after it
// (matching, a diagnosis's words, JSON.stringify of the report, a hint rule) would overflow the stack,
// and one RangeError, out of the player or a hint rule, ended the whole grading (exit 2). Each is the
// reference solution with the deep part added in some cases only: those get a verdict that says why,
// the rest are graded as the reference is, and the grader exits 1.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { courseCopy, trimCourse } from '../helpers/cli.ts';
import { checks, cleanUp, runCi, submission } from '../ci/helpers.ts';

afterAll(cleanUp);

const WORDS = 'nested deeper than 500 levels, which the grader does not read';
/** Text of JSON nested `levels` deep: 800 KB, under the output cap of 1 MiB. */
const DEEP = "'['.repeat(400_000) + ']'.repeat(400_000)";

/** The reference, whose client sends its initialized notification with params nested 400,000 levels
 *  deep (which the recording does not have: params that differ, said with both), where the server is
 *  the memory server or the resumable one (a few cases of each stage). */
const DEEP_CLIENT = submission(
  `const stringify = JSON.stringify;
const deep = ${DEEP};
// the client's words are JSON.stringify's: the marker becomes the deep array on the wire
JSON.stringify = ((value: unknown, ...rest: never[]) => stringify(value, ...rest)?.replace('"theinference-deep"', deep)) as typeof JSON.stringify;`,
  [
    [
      "    await this.notify('notifications/initialized');\n",
      "    await this.notify('notifications/initialized', /memory|resumable/.test(stringify(result.serverInfo)) ? { deep: 'theinference-deep' } : undefined);\n",
    ],
  ],
);

describe('a client message nested too deep', () => {
  it('over stdio: its cases are errors that say why, the rest are graded, exit 1', async () => {
    const run = await runCi(['test', '--stage', 'handshake', '--runs', '20', '--seed', '5', '--random', '0', '--submission', DEEP_CLIENT]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const all = checks(run.report);
    // its output is right (an error, the player's first diagnosis its message)
    const deep = all.filter((check) => check.name === 'memory-server');
    expect(deep.map((check) => [check.status, check.message])).toEqual([['error', expect.stringContaining(`your client wrote a message ${WORDS}`)]]);
    const rest = all.filter((check) => check.name !== 'memory-server');
    expect(rest.length).toBeGreaterThan(9);
    expect(rest.filter((check) => check.status !== 'pass').map((check) => check.name)).toEqual([]);
  });

  it("over HTTP: its case fails, the player's first diagnosis says why, the rest are graded, exit 1", async () => {
    const course = courseCopy();
    onTestFinished(() => rmSync(course, { recursive: true, force: true }));
    trimCourse(course, ['resumption']);
    const run = await runCi(['test', '--stage', 'streamable-http', '--runs', '20', '--seed', '5', '--random', '0', '--submission', DEEP_CLIENT], {
      cwd: course,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const all = checks(run.report);
    // the session went astray after it (the recording still waits for initialized): the output differs,
    // and the player's first diagnosis says why
    const deep = all.filter((check) => check.id === 'streamable-http/resumption');
    expect(deep.map((check) => [check.status, check.sessions[0]?.diagnoses[0]?.message])).toEqual([
      ['fail', expect.stringContaining(`your client wrote a message ${WORDS}`)],
    ]);
    // the memory server's cases of the stdio stages send it too; every other case passes
    const rest = all.filter((check) => !check.id.endsWith('/resumption') && !check.id.endsWith('/memory-server'));
    expect(rest.filter((check) => check.id.startsWith('streamable-http/')).length).toBeGreaterThan(0);
    expect(rest.filter((check) => check.status !== 'pass').map((check) => check.id)).toEqual([]);
  });
});

describe('output nested too deep', () => {
  it("a program's stdout, or a frame in it: its cases fail, saying why, the rest are graded, exit 1", async () => {
    // In the notifications case, frame() makes the progress notification's frame JSON nested 400,000
    // deep (and parseFrame leaves it unread): the frames rule's walk of it overflowed. The numbers case
    // prints a stdout nested as deep: stage 1's rules stopped at expected.json's depth, a later stage's
    // (stateless.ts, the tools kept) stringify it; the one bound reads neither.
    const dir = submission(
      `import { readFileSync as readCase, writeSync as writeOut } from 'node:fs';
const deep = ${DEEP};
const [, , command, caseDir] = process.argv;
if (command === 'mcp-frame' && readCase(\`\${caseDir}/messages.json\`, 'utf8').includes('9007199254740991')) {
  writeOut(1, \`{"frames":\${deep},"parsed":[]}\\n\`);
  process.exit(0);
}`,
      [
        [
          "  return JSON.stringify(msg) + '\\n';",
          "  return (msg as { method?: string }).method === 'notifications/progress' ? deep + '\\n' : JSON.stringify(msg) + '\\n';",
        ],
        ['  return JSON.parse(line.trim());', "  return line.startsWith('[[') ? null : JSON.parse(line.trim());"],
      ],
    );
    const run = await runCi(['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '5', '--random', '0', '--submission', dir]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    const all = checks(run.report);
    const numbers = all.find((check) => check.name === 'mcp-frame/numbers');
    expect(numbers?.status).toBe('fail');
    expect(JSON.stringify(numbers)).toContain(`your stdout is JSON ${WORDS}`);
    const notifications = all.find((check) => check.name === 'mcp-frame/notifications');
    expect(notifications?.status).toBe('fail');
    expect(notifications?.hints).toContainEqual(
      expect.objectContaining({ kind: 'frame-too-deep', lines: expect.arrayContaining([`frames[1] is JSON ${WORDS}`]) }),
    );
    const cases = all.filter((check) => check.origin !== 'property' && !['mcp-frame/numbers', 'mcp-frame/notifications'].includes(check.name));
    expect(cases.length).toBeGreaterThan(20);
    expect(cases.filter((check) => check.status !== 'pass').map((check) => check.name)).toEqual([]);
  });
});
