// The grader tested as testers are: its whole output on the reference solution, on the starter
// and on each deliberately broken solution in test/scenarios/ is recorded once as a golden file
// and compared; beside that, each run must end in the exit code and name the mistake it was built for.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden, normalise, REPO, runCli } from './helpers/cli.ts';

const STAGE = ['test', '--stage', 'config-and-framing', '--seed', '7'];

/** What each broken solution must make the grader say (written by hand, not recorded). */
const SCENARIOS: Record<string, { says: string[]; timeout?: string }> = {
  'pretty-printed': { says: ['pretty-printed', 'indent'] },
  crlf: { says: ['\\r\\n'] },
  'no-newline': { says: ['newline'] },
  'two-newlines': { says: ['newline'] },
  'whitespace-stripped': { says: ['whitespace'] },
  'keys-sorted': { says: ['order'] },
  'non-ascii-escaped': { says: ['\\u'] },
  'slash-escaped': { says: ['\\/'] },
  'parse-assumes-newline': { says: ['parseFrame'] },
  'logs-to-stdout': { says: ['console.error', 'stdout'] },
  hangs: { says: ['timeout: timed out after 2 s'], timeout: '2' },
  'floods-stdout': { says: ['printed more than 1 MiB on stdout'], timeout: '3' },
  crashes: { says: ['crash: exited with code 1', 'TypeError'] },
  'config-no-defaults': { says: ['default'] },
  'config-accepts-invalid': { says: ['invalid'] },
  'config-type-not-inferred': { says: ['type'] },
  'config-order-lost': { says: ['order'] },
};

describe('grading stage 1', () => {
  it('passes the reference solution on every case and property', async () => {
    const run = await runCli(STAGE);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/✗|!/);
    expectGolden(normalise(run.stdout), join(REPO, 'test/golden/reference.txt'));
  });

  it('fails the starter, with its "not implemented yet" message', async () => {
    const run = await runCli([...STAGE, '--submission', join(REPO, 'starter')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('not implemented yet: frame (stage config-and-framing)');
    expect(run.stdout).toContain('not implemented yet: parseConfig (stage config-and-framing)');
    expectGolden(normalise(run.stdout), join(REPO, 'test/golden/starter.txt'));
  });

  for (const [scenario, { says, timeout }] of Object.entries(SCENARIOS)) {
    it(`fails the scenario ${scenario}, saying so`, async () => {
      const dir = join(REPO, 'test/scenarios', scenario);
      const run = await runCli([...STAGE, '--submission', dir, ...(timeout ? ['--timeout', timeout] : [])]);
      expect(run.code).toBe(1);
      expect(run.stderr).toBe('');
      for (const phrase of says) expect(run.stdout).toContain(phrase);
      expectGolden(normalise(run.stdout), join(dir, 'grader-output.txt'));
    });
  }
});
