// The bundled lane must be indistinguishable from your_program.sh: the same bytes on stdout for a
// case of each command (every case, through expected.json), and your_program.sh itself whenever it is
// not the course's own.
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCourse, type Case } from '../../harness/course.ts';
import { runWithEndpoints } from '../../harness/grade/case.ts';
import { playingOf } from '../../harness/grade/played.ts';
import { launcher, PROGRAM, type Launcher } from '../../harness/run/launcher.ts';
import { programEnv } from '../../harness/run/env.ts';
import { DEFAULT_LIMITS } from '../../harness/run/spawn.ts';
import { courseCopy, REPO } from '../helpers/cli.ts';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

function context(root: string, start: Awaited<ReturnType<typeof launcher>>) {
  return { runRoot: root, launcher: start, env: programEnv(), limits: DEFAULT_LIMITS };
}

describe('launcher', () => {
  // One case of each command, both ways. Every other case is compared too, through its expected.json:
  // bless writes it by running your_program.sh itself, and grader.test.ts passes the reference, bundled,
  // on every case against it. Here, the two ways side by side, with the exit code.
  it('prints the same bytes as your_program.sh on a case of each command', async () => {
    const course = loadCourse(REPO);
    // both in the sandbox, as graded; which program each starts is checked without it
    const bundled = await launcher(REPO, { bundle: true });
    const script = await launcher(REPO, { bundle: false });
    expect((await launcher(REPO, { bundle: true, sandbox: false })).command).toBe(process.execPath);
    expect((await launcher(REPO, { bundle: false, sandbox: false })).command).toBe(join(REPO, PROGRAM));
    // a case with a cassette runs with its player, as graded: without one it would only fail, both ways alike
    const run = async (testCase: Case, start: Launcher) => {
      return (await runWithEndpoints(testCase, context(REPO, start), playingOf(testCase))).result;
    };
    const cases = course.stages.flatMap((stage) => stage.cases);
    const firstOfEach = cases.filter((testCase, index) => cases.findIndex((other) => other.command === testCase.command) === index);
    expect(firstOfEach.map((testCase) => testCase.command)).toEqual(course.commands.map((command) => command.name));
    for (const testCase of firstOfEach) {
      const [fast, slow] = await Promise.all([run(testCase, bundled), run(testCase, script)]);
      expect(fast.exitCode, testCase.casePath).toBe(0);
      expect({ case: testCase.casePath, exit: fast.exitCode, stdout: fast.stdout.toString() }).toEqual({
        case: testCase.casePath,
        exit: slow.exitCode,
        stdout: slow.stdout.toString(),
      });
    }
  });

  it("removes the bundles that graders which are gone left behind (killed, they could not), and no one else's", async () => {
    const dir = courseCopy();
    copies.push(dir);
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!; // a process that has ended
    const folder = join(dir, '.theinference');
    mkdirSync(folder);
    for (const name of [`program-${gone}.mjs`, `module-${gone}.mjs`, `program-${process.ppid}.mjs`, 'notes.txt']) writeFileSync(join(folder, name), '');
    await launcher(dir, { bundle: true, sandbox: false });
    const left = readdirSync(folder);
    expect(left).not.toContain(`program-${gone}.mjs`);
    expect(left).not.toContain(`module-${gone}.mjs`);
    expect(left).toEqual(expect.arrayContaining([`program-${process.ppid}.mjs`, 'notes.txt', `program-${process.pid}.mjs`]));
  });

  it("runs your_program.sh itself when it is not the course's own", async () => {
    const dir = courseCopy();
    copies.push(dir);
    appendFileSync(join(dir, PROGRAM), '# changed\n');
    expect(await launcher(dir, { bundle: true, sandbox: false })).toMatchObject({ command: join(dir, PROGRAM), args: [] });
  });

  it('runs nothing of a solution that does not compile: its first error, with where, is the reason', async () => {
    const dir = courseCopy();
    copies.push(dir);
    writeFileSync(join(dir, 'src/mcp.ts'), "export function frame(msg: object): string {\n  return JSON.stringify(msg) + '\\n;\n}\n");
    expect((await launcher(dir, { bundle: true, sandbox: false })).refused?.split('\n')).toEqual([
      'src/mcp.ts:2:36: Unterminated string literal (your code does not compile)',
      "  2 |   return JSON.stringify(msg) + '\\n;",
      `    | ${' '.repeat(35)}^`,
    ]);
  });
});
