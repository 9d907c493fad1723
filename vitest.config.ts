import { availableParallelism } from 'node:os';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** The files that took a minute or more of a whole-suite run (a fresh-clone CI run on 2 cores), longest
 *  first. Without timings from an earlier run (a fresh clone, CI), vitest starts the largest files first,
 *  by bytes: a file short in bytes and long in time started last and set the end of the run (the
 *  scenario files, 56-113 s; grader.test.ts, 216 s, ended a run 14.5 minutes long). A file not named
 *  here, a new one or a renamed one, keeps vitest's order after them. */
const LONGEST_FIRST = [
  'test/grader.test.ts',
  'test/attacks/attacks.test.ts',
  'test/cassette/committed.test.ts',
  'test/export.test.ts',
  'test/author-commands.test.ts',
  'test/scenarios-authorization.test.ts',
  'test/props/check.test.ts',
  'test/scenarios-config-and-framing.test.ts',
  'test/sdk-client.test.ts',
  'test/classroom/classroom.test.ts',
  'test/authoring/new-case-hidden.test.ts',
  'test/authoring.test.ts',
  'test/authoring/new-case.test.ts',
  'test/scenarios-streamable-http.test.ts',
  'test/ci/submission.test.ts',
  'test/scenarios-handshake.test.ts',
  'test/props/hostile.test.ts',
  'test/ci/limits.test.ts',
  'test/props/run.test.ts',
  'test/scenarios-stateless.test.ts',
  'test/cassette/http-script.test.ts',
];

const ROOT = dirname(fileURLToPath(import.meta.url));

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(relative(ROOT, file.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    return sorted.toSorted((a, b) => rank(a) - rank(b));
  }
}

// Node 20 reads the certificate file this names at every start, before any code runs: about 40 ms of
// CPU per process on a machine that sets it, and the suite starts thousands. Nothing in it speaks TLS.
delete process.env.NODE_EXTRA_CA_CERTS;

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/exit-on-sigterm.ts'],
    // Most tests wait on child processes, many on a timeout or a backstop: with a worker per core the
    // cores were busy 81% of the run, with two 97% (259 s against 336 s on 2 cores). Three a core were
    // quicker on a quiet machine (178-189 s against 208 s), but beside two busy loops three tests failed
    // there that pass with two (240 s). The limits under test count CPU time, so sharing fails nothing.
    maxWorkers: 2 * availableParallelism(),
    // A worker runs its files one after another in one process: each file does not load vitest and
    // the harness again (a third of a second of CPU per file). No test changes what another reads.
    isolate: false,
    sequence: { sequencer: LongestFirst },
    // A backstop for a test that hangs, not a verdict: the longest test (the authoring walk-through, 87 s
    // in a whole-suite run on 2 cores) took more than 120 s beside 8 busy loops.
    testTimeout: 600_000,
    hookTimeout: 600_000,
  },
});
