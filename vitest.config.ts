import { availableParallelism } from 'node:os';
import { basename } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The scenario files first. Without timings from an earlier run (a fresh clone, CI), vitest starts
 *  the largest files first; the scenario files are the smallest and among the longest (each grades a
 *  stage's broken solutions: 18 to 92 s in a fresh-clone CI run), and the last one to start set the end
 *  of the run. */
class ScenariosFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const scenarios = (file: TestSpecification) => basename(file.moduleId).startsWith('scenarios-');
    return [...sorted.filter(scenarios), ...sorted.filter((file) => !scenarios(file))];
  }
}

// Node 20 reads the certificate file this names at every start, before any code runs: about 40 ms of
// CPU per process on a machine that sets it, and the suite starts thousands. Nothing in it speaks TLS.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most tests wait on child processes, many on a timeout or a backstop: with a worker per core the
    // cores were busy 81% of the run, with two 97% (259 s against 336 s on 2 cores). Three a core were
    // quicker on a quiet machine (178-189 s against 208 s), but beside two busy loops three tests failed
    // there that pass with two (240 s). The limits under test count CPU time, so sharing fails nothing.
    maxWorkers: 2 * availableParallelism(),
    // A worker runs its files one after another in one process: each file does not load vitest and
    // the harness again (a third of a second of CPU per file). No test changes what another reads.
    isolate: false,
    sequence: { sequencer: ScenariosFirst },
    // A backstop for a test that hangs, not a verdict: the longest test (the authoring walk-through, 87 s
    // in a whole-suite run on 2 cores) took more than 120 s beside 8 busy loops.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
