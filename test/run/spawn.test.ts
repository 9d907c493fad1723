// The limits around a student's program, with real processes: whatever it does, runProcess
// comes back in bounded time with the right facts, and leaves no process behind.
import { describe, expect, it } from 'vitest';
import { runProcess, type Limits, type RunResult } from '../../harness/run/spawn.ts';
import { stillRunning } from '../ci/helpers.ts';

const limits = { timeoutMs: 1500, outputCap: 64 * 1024 };

function node(script: string, overrides: Partial<Limits> = {}): Promise<RunResult> {
  return runProcess(process.execPath, ['-e', script], { cwd: process.cwd(), env: { PATH: process.env.PATH }, limits: { ...limits, ...overrides } });
}

/** `script` run with a CPU limit far off, and `waitedOn` saying whether a player waits for it: what stops
 *  it early is the stuck rule. */
function run(script: string, waitedOn: () => boolean): Promise<RunResult> {
  return runProcess(process.execPath, ['-e', script], {
    cwd: process.cwd(),
    env: { PATH: process.env.PATH },
    limits: { ...limits, timeoutMs: 60_000 },
    waitedOn,
  });
}

/** Whether `pid` is still running: not gone, a zombie, or one a SIGKILL waits for (stillRunning). */
async function alive(pid: number): Promise<boolean> {
  return (await stillRunning((candidate) => candidate === String(pid))).length > 0;
}

/** A script that starts a grandchild (which prints its pid and sleeps), then does `then`. */
function withGrandchild(then: string): string {
  return `const { spawn } = require('node:child_process');
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: ['ignore', 'inherit', 'inherit'] });
    process.stderr.write('grandchild ' + child.pid + '\\n');
    ${then}`;
}

function grandchildPid(result: RunResult): number {
  const match = /grandchild (\d+)/.exec(result.stderr.toString());
  if (!match) throw new Error(`no grandchild pid in ${result.stderr.toString()}`);
  return Number(match[1]);
}

describe('runProcess', () => {
  it('captures stdout, stderr and the exit code', async () => {
    const result = await node(`process.stdout.write('out'); process.stderr.write('err'); process.exitCode = 3`);
    expect(result).toMatchObject({ exitCode: 3, signal: null, timeLimit: undefined, flooded: undefined });
    expect(result.stdout.toString()).toBe('out');
    expect(result.stderr.toString()).toBe('err');
  });

  it('stops a program that runs past its time, and its whole process group', async () => {
    const result = await node(withGrandchild(`for (;;) {}`));
    expect(result.timeLimit).toBe('cpu');
    expect(result.signal).toMatch(/SIGTERM|SIGKILL/);
    expect(await alive(grandchildPid(result))).toBe(false);
  });

  // The wall backstop set below the CPU limit stands for a machine so busy that a loop gets less
  // than a core: the loop must still get the CPU verdict, and a program that waits the wall one.
  it('leaves a program still computing at its wall backstop to the CPU limit; one that waits is stopped there', async () => {
    const loop = await node('for (;;) {}', { timeoutMs: 350, wallMs: 300 });
    // Past its backstop: to its CPU limit, or (on a machine too busy for even that) to the last deadline, three backstops on.
    if (loop.timeLimit === 'cpu') expect(loop.cpuMs).toBeGreaterThan(350);
    else expect(loop.durationMs).toBeGreaterThanOrEqual(3 * 300);
    // Its boot is computing too: a backstop of a second leaves a loaded machine room to boot it before
    // the backstop after. How long that takes on the wall clock is the machine's (the backstop counts
    // the grader's progress, progress.ts): what it must not do is reach its CPU limit.
    const waits = await node('setInterval(() => {}, 1000)', { timeoutMs: 1000, wallMs: 1000 });
    expect(waits.timeLimit).toBe('wall');
    expect(waits.cpuMs).toBeLessThan(1000);
  });

  // Waited on (a player with nothing left to send), a program that does nothing is stuck; one that
  // computes, or that is not waited on, is not. A wall backstop far off shows which stopped it.
  it('stops a program that does nothing while waited on; not one that computes meanwhile, nor one not waited on', async () => {
    const waits = await run('setInterval(() => {}, 1000)', () => true);
    expect(waits).toMatchObject({ stuck: true, timeLimit: undefined });
    // it computes for 3 s of its own CPU time (longer than STUCK_MS), then ends by itself
    const computes = await run('const end = process.cpuUsage().user + 3e6; while (process.cpuUsage().user < end) {}', () => true);
    expect(computes).toMatchObject({ exitCode: 0, timeLimit: undefined });
    expect(computes.stuck).toBeUndefined();
    // it sleeps past STUCK_MS, then ends by itself: nobody waited for it
    const sleeps = await run('setTimeout(() => {}, 3000)', () => false);
    expect(sleeps).toMatchObject({ exitCode: 0, timeLimit: undefined });
    expect(sleeps.stuck).toBeUndefined();
  });

  // Stuck is a stretch of doing nothing, not a sum of them: a client that waits for the player many
  // times over a long session (each answer slow to come on a loaded machine) waits longer than
  // STUCK_MS in all, and does something after each wait.
  it('does not stop a program that waits a little, again and again, for longer than STUCK_MS in all', async () => {
    // 12 waits of 400 ms, each followed by 30 ms of its own CPU time
    const waitsOften = await run(
      `let left = 12;
      const step = () => {
        const end = process.cpuUsage().user + 30e3;
        while (process.cpuUsage().user < end) {}
        if (--left > 0) setTimeout(step, 400);
      };
      setTimeout(step, 400);`,
      () => true,
    );
    expect(waitsOften).toMatchObject({ exitCode: 0, timeLimit: undefined });
    expect(waitsOften.stuck).toBeUndefined();
  });

  it('stops a program that ignores SIGTERM, with SIGKILL', async () => {
    // a CPU limit its boot cannot reach on a loaded machine: the wall backstop is what stops it
    const result = await node(`process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)`, { timeoutMs: 1000 });
    expect(result.timeLimit).toBe('wall');
    expect(result.signal).toBe('SIGKILL');
  });

  it('stops a program that floods stdout at the cap, keeping exactly the cap', async () => {
    const result = await node(`const line = 'x'.repeat(1000) + '\\n'; for (;;) process.stdout.write(line)`);
    expect(result.flooded).toBe('stdout');
    expect(result.timeLimit).toBeUndefined();
    expect(result.stdout.length).toBe(limits.outputCap);
  });

  it('returns when the program exits even if a grandchild holds its stdout open, and kills the grandchild', async () => {
    const result = await node(withGrandchild(`process.exit(0)`), { timeoutMs: 30_000 });
    expect(result.exitCode).toBe(0);
    expect(result.timeLimit).toBeUndefined();
    expect(result.durationMs).toBeLessThan(30_000);
    expect(await alive(grandchildPid(result))).toBe(false);
  });

  it('reports a program that cannot start', async () => {
    const result = await runProcess('/nonexistent/your_program.sh', [], { cwd: process.cwd(), env: {}, limits });
    expect(result.startError?.code).toBe('ENOENT');
  });

  it('reports a program killed by a signal', async () => {
    const result = await node(`process.kill(process.pid, 'SIGSEGV')`);
    expect(result.signal).toBe('SIGSEGV');
    expect(result.exitCode).toBe(null);
  });

  it('an abort signal stops the program', async () => {
    const controller = new AbortController();
    const running = runProcess(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      cwd: process.cwd(),
      env: {},
      limits: { ...limits, timeoutMs: 60_000 },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    const result = await running;
    expect(result.timeLimit).toBeUndefined();
    expect(result.signal).toBe('SIGTERM');
  });
});
