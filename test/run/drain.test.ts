// What a sandboxed program printed before it exited is all kept, however late the grader reads it.
// Beside two busy loops a correct stage-1 case was graded "printed nothing": its exit was seen with
// both pipes still open, and the 200 ms grace a pipe gets (for a grandchild holding it) ran out
// before a byte was read. In a sandbox nothing outlives the program to hold the pipes, so their end
// is awaited. Here the grader's reading of the pipes is held back until well after the exit.
import type * as childProcess from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';

/** Longer than the grace a pipe left open gets outside a sandbox. */
const HELD_MS = 600;

type Handle = { readStart(): number; readStop(): number };

vi.mock('node:child_process', async (original) => {
  const actual = await original<typeof childProcess>();
  return {
    ...actual,
    spawn: (...args: Parameters<typeof actual.spawn>) => {
      const child = actual.spawn(...args);
      const starts: (() => number)[] = [];
      for (const stream of [child.stdout, child.stderr]) {
        const handle = (stream as unknown as { _handle: Handle } | null)?._handle;
        if (!handle) continue;
        const readStart = handle.readStart.bind(handle);
        starts.push(readStart);
        handle.readStop(); // the stream started reading as it was made
        handle.readStart = () => 0; // nothing is read from this pipe until released below
      }
      child.on('exit', () => setTimeout(() => starts.forEach((start) => start()), HELD_MS));
      return child;
    },
  };
});

const { jailFor, sandboxAvailability } = await import('../../harness/run/sandbox.ts');
const { runCommand } = await import('../../harness/run/spawn.ts');

describe.skipIf(!sandboxAvailability().available)('a sandboxed program whose output the grader reads late', () => {
  it('has all it printed kept, on stdout and stderr', async () => {
    const jail = jailFor('/tmp', { sandbox: true, network: false });
    const start = jail.wrap(process.execPath, ['-e', 'process.stdout.write("printed"); process.stderr.write("done")']);
    const result = await runCommand(start, [], {
      cwd: '/',
      env: {},
      contained: true,
      limits: { timeoutMs: 10_000, outputCap: 1024 },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout.toString()).toBe('printed');
    expect(result.stderr.toString()).toBe('done');
  });
});
