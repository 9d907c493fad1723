import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Node 20 reads the certificate file this names at every start, before any code runs: about 40 ms of
// CPU per process on a machine that sets it, and the suite starts thousands. Nothing in it speaks TLS.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most tests wait on child processes, many on a timeout or a backstop: with a worker per core the
    // cores were busy 81% of the run, with two 97% while the scenarios each started a grader; with
    // those graded in-process, two left them idle 11% of the time (208 s), three did not (178 s). The
    // limits under test count CPU time, so sharing the cores fails nothing.
    maxWorkers: 3 * availableParallelism(),
    // A worker runs its files one after another in one process: each file does not load vitest and
    // the harness again (a third of a second of CPU per file). No test changes what another reads.
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
