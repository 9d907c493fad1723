// A program that starts processes without end (a fork bomb; a server that starts the client that starts
// it) is refused more than MAX_TASKS by the kernel inside its sandbox, and the machine's table of
// processes (32,768 entries on many machines, this one's too) stays there for the grader and everyone
// else. The kernel counts them for every user but root: as root, this test runs the sandbox as nobody,
// as a grader run by any other user does (a student's, GitHub's runners).
import { chmodSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { jailFor, MAX_TASKS } from '../../harness/run/sandbox.ts';
import { DEFAULT_LIMITS, runCommand } from '../../harness/run/spawn.ts';
import { cleanUp, folder, stillRunning } from '../ci/helpers.ts';

afterAll(cleanUp);

/** What each child sleeps, to find any left behind by its command line. */
const MARK = '600.125';
const TRIED = 1000;

describe('forks-without-end', () => {
  it(`holds at most ${MAX_TASKS} tasks in a sandbox: the rest are refused (EAGAIN), and all of them end with the program`, async () => {
    const root = folder({ 'program.ts': '// driver\n', 'src/mcp.ts': '// solution\n' });
    chmodSync(root, 0o755); // for nobody to reach
    const jail = jailFor(root, { sandbox: true });
    expect(jail.kind).toBe('bwrap');
    const script = `
      const { spawn } = require('node:child_process');
      const seen = { started: 0, refused: 0, codes: [] };
      const settled = () => {
        if (seen.started + seen.refused < ${TRIED}) return;
        console.log(JSON.stringify({ ...seen, codes: [...new Set(seen.codes)] }));
        process.exit(0);
      };
      for (let i = 0; i < ${TRIED}; i++) {
        const child = spawn('sleep', ['${MARK}'], { stdio: 'ignore' });
        child.on('spawn', () => { seen.started++; settled(); });
        child.on('error', (error) => { seen.refused++; seen.codes.push(error.code); settled(); });
      }`;
    const start = jail.wrap(process.execPath, ['-e', script]);
    const asNobody = process.getuid?.() === 0;
    const result = await runCommand(
      asNobody ? { ...start, command: 'setpriv', args: ['--reuid=65534', '--regid=65534', '--clear-groups', start.command, ...start.args] } : start,
      [],
      // no memory limit: the RSS of 500 sleeps adds up past it and would stop the program first
      { cwd: root, env: { PATH: process.env.PATH }, limits: { outputCap: DEFAULT_LIMITS.outputCap, timeoutMs: 20_000 }, contained: true },
    );
    expect(result.stderr.toString()).toBe('');
    const seen = JSON.parse(result.stdout.toString()) as { started: number; refused: number; codes: string[] };
    expect(seen.started).toBeLessThan(MAX_TASKS);
    expect(seen.started).toBeGreaterThan(MAX_TASKS / 2); // what a client needs, it has
    expect(seen).toMatchObject({ refused: TRIED - seen.started, codes: ['EAGAIN'] });
    expect(await stillRunning((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MARK))).toEqual([]);
  });
});
