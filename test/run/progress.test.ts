// The grader's progress clock: what a held-up event loop (a machine with no core for the grader) lets
// pass does not count against a program's wall-time backstop.
import { describe, expect, it } from 'vitest';
import { afterProgress, progressNow } from '../../harness/run/progress.ts';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('progress', () => {
  it('counts a held-up loop as one short step, however long it was held', async () => {
    progressNow();
    await wait(150); // a tick has come: the clock runs
    const before = progressNow();
    const held = performance.now();
    while (performance.now() - held < 1000); // the loop held up for a second of wall time
    expect(progressNow() - before).toBeLessThanOrEqual(200 + 1);
  });

  it('afterProgress waits for progress, not for the wall clock: a held-up loop does not bring it closer', async () => {
    const from = progressNow();
    let fired = false;
    afterProgress(600, () => (fired = true));
    const held = performance.now();
    while (performance.now() - held < 1000); // more wall time than it waits for, all in one held-up step
    await wait(0);
    expect(fired).toBe(false);
    await new Promise<void>((resolve) => afterProgress(800 - (progressNow() - from), resolve));
    await wait(0);
    expect(fired).toBe(true);
  });
});
