// What /proc tells of a process, read from real processes: the states of all its threads (a
// process's own state is its main thread's, which says nothing of a worker that computes).
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { anyThreadBusy } from '../harness/processes.ts';

let child: ChildProcess | undefined;
afterEach(() => child?.kill('SIGKILL'));

/** A node process running `script`, once it has said `ready` on stdout. */
async function started(script: string): Promise<number> {
  child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve) => child!.stdout!.once('data', () => resolve()));
  return child.pid!;
}

describe('anyThreadBusy', () => {
  it('is true while a worker thread computes and the main thread only waits, false once all of them wait', async () => {
    const pid = await started(`
      const { Worker } = require('node:worker_threads');
      const worker = new Worker('const end = Date.now() + 60000; while (Date.now() < end) {}', { eval: true });
      worker.once('online', () => console.log('ready'));
      setInterval(() => {}, 1000);`);
    expect(anyThreadBusy(pid)).toBe(true);
    child!.kill('SIGKILL');
    const idle = await started(`console.log('ready'); setInterval(() => {}, 1000);`);
    // a thread of a process just started may still be finishing its start: its states settle at once
    let busy = true;
    for (let look = 0; look < 50 && busy; look++) {
      busy = anyThreadBusy(idle);
      if (busy) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(busy).toBe(false);
  });

  it('is false for a process that has ended', () => {
    expect(anyThreadBusy(2 ** 22 + 1)).toBe(false);
  });
});
