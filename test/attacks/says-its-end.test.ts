// A program started ahead tells the grader its end on the go's pipe (warm-start.mjs), which the
// program itself can write to as well. One that says an end early and goes on (printing, computing)
// gains nothing a process.exit() there would not give it: its case ends there, with what it had
// printed, and it is stopped at once, computing nothing more, until the grading is over. One that
// writes there what is no end is read no further.
import { describe, expect, it } from 'vitest';
import { startAhead } from '../helpers/started-ahead.ts';

describe('a program that says its end early', () => {
  it('ends its case there, as process.exit() would, and is stopped until the grading is over', async () => {
    const ahead = startAhead(`import { writeSync } from 'node:fs';
      process.stdout.write('printed before\\n', () => {
        writeSync(Number(process.env.THEINFERENCE_GO_FD), 'end 0\\n');
        setTimeout(() => {
          process.stdout.write('printed after\\n');
          for (;;) {}
        }, 200);
      });`);
    const result = await ahead.started.release({ sayEnd: true }, undefined);
    expect(result).toMatchObject({ exitCode: 0, signal: null, timeLimit: undefined });
    expect(result.stdout.toString()).toBe('printed before\n');
    // stopped: it computes nothing, however long the grading goes on
    const stopped = await ahead.afterStop();
    expect(stopped.map(({ state }) => state)).toEqual(['T', 'T', 'T']);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ahead.processes()).toEqual(stopped);
  });

  it('floods the pipe its end goes on: the grader reads a line of it, no more, and the program ends as any does', async () => {
    // 10 MB that are no end: were they read, the grader would hold them
    const ahead = startAhead(`import { writeSync } from 'node:fs';
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      try {
        for (; sent < 10 * 1024 * 1024; sent += chunk.length) writeSync(Number(process.env.THEINFERENCE_GO_FD), chunk);
      } catch (error) {
        process.stderr.write(error.code + '\\n');
      }
      process.stdout.write(String(sent) + '\\n');`);
    const result = await ahead.started.release({ sayEnd: true }, undefined);
    expect(result).toMatchObject({ exitCode: 0, signal: null, timeLimit: undefined });
    // the pipe is a socket (libuv's socketpair): one closed with data unread says so to the writer
    // as ECONNRESET, one closed before it as EPIPE, whichever the kernel saw first
    expect(['EPIPE\n', 'ECONNRESET\n']).toContain(result.stderr.toString());
    // what a pipe holds, at most, past the line read
    expect(Number(result.stdout.toString())).toBeLessThan(1024 * 1024);
  });
});
