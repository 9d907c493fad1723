// The grader tested as testers are: its whole output on the reference solution and on the starter
// is recorded once as a golden file and compared, and correct clients that chose otherwise pass.
// The deliberately broken solutions (test/scenarios/) are graded in scenarios-<stage>.test.ts, a
// file a stage so that they run beside each other. The reference goes through the binary a student
// runs; the starter and the variants in this process (runInProcess), warm, as the scenarios.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopy, expectGraderGolden, normalise, patchedSubmission, REPO, runCli, runInProcess, trimCourse } from './helpers/cli.ts';
import { SCENARIOS, SEED } from './helpers/scenarios.ts';

describe('the grader', () => {
  it('passes the reference solution on every stage, case and property', async () => {
    const run = await runCli(['test', ...SEED]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/✗|!/);
    expect(run.stdout).toContain('all graded stages pass: config-and-framing, handshake, tools');
    expectGraderGolden(normalise(run.stdout), join(REPO, 'test/golden/reference.txt'));
  });

  for (const stage of ['config-and-framing', 'handshake', 'tools', 'streamable-http', 'translate', 'stateless']) {
    it(`fails the starter at ${stage}, with its "not implemented yet" message`, async () => {
      const run = await runInProcess(['test', '--stage', stage, ...SEED, '--submission', join(REPO, 'starter')]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/not implemented yet: \w+(\.\w+)? \(stage [a-z-]+\)/);
      expect(run.stdout).not.toContain('✓'); // a student starts at zero: nothing unwritten passes
      expectGraderGolden(normalise(run.stdout), join(REPO, `test/golden/starter-${stage}.txt`));
    });
  }

  // Correct clients that chose otherwise where the protocol lets them (test/variants/<choice>/change.diff):
  // the cases ask for what MCP asks and nothing more, so each passes every stage. Their choices are the
  // client's, which stage 1 does not use: of its cases, a course copy keeps one of each command.
  const course = courseCopy();
  trimCourse(course, [], ['config-and-framing']);
  afterAll(() => rmSync(course, { recursive: true, force: true }));
  for (const variant of readdirSync(join(REPO, 'test/variants'))) {
    it(`passes ${variant}, a correct client that chose otherwise`, async () => {
      const submission = patchedSubmission(join(REPO, 'test/variants', variant, 'change.diff'));
      try {
        const run = await runInProcess(['test', '--stage', 'tools', '--runs', '10', ...SEED, '--submission', submission], { cwd: course });
        expect(run.stdout).not.toMatch(/✗|!/);
        expect(run.stdout).toMatch(/^all graded stages pass: tools, handshake, config-and-framing$/m);
        expect(run.code).toBe(0);
      } finally {
        rmSync(submission, { recursive: true, force: true });
      }
    });
  }

  it('has a test for every scenario folder, in a file of its stage', () => {
    expect(readdirSync(join(REPO, 'test/scenarios')).sort()).toEqual(Object.keys(SCENARIOS).sort());
    const files = readdirSync(join(REPO, 'test')).filter((name) => name.startsWith('scenarios-'));
    for (const { stage } of Object.values(SCENARIOS)) expect(files).toContain(`scenarios-${stage}.test.ts`);
  });
});
