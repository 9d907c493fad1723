// The grader tested as testers are: its whole output on the reference solution and on the starter
// is recorded once as a golden file and compared, and correct clients that chose otherwise pass.
// The deliberately broken solutions (test/scenarios/) are graded in scenarios-<stage>.test.ts, a
// file a stage so that they run beside each other. The reference goes through the binary a student
// runs; the starter and the variants in this process (runInProcess), warm, as the scenarios.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DiagnosisKind } from '../harness/exchange/diagnosis.ts';
import { KINDS } from '../harness/protocols/index.ts';
import { courseCopies, expectGraderGolden, normalise, patchedSubmission, REPO, runCli, runInProcess, trimCourse } from './helpers/cli.ts';
import { SCENARIOS, SEED, STAGES, VARIANTS } from './helpers/scenarios.ts';

describe('the grader', () => {
  it('passes the reference solution on every stage, case and property', async () => {
    const run = await runCli(['test', ...SEED]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/✗|!/);
    expect(run.stdout).toContain('all graded stages pass: config-and-framing, handshake, tools');
    expectGraderGolden(normalise(run.stdout), join(REPO, 'test/golden/reference.txt'));
  });

  for (const stage of STAGES) {
    it(`fails the starter at ${stage}, with its "not implemented yet" message`, async () => {
      const run = await runInProcess(['test', '--stage', stage, ...SEED, '--submission', join(REPO, 'starter')]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/not implemented yet: \w+(\.\w+)? \(stage [a-z-]+\)/);
      expect(run.stdout).not.toContain('✓'); // a student starts at zero: nothing unwritten passes
      expectGraderGolden(normalise(run.stdout), join(REPO, `test/golden/starter-${stage}.txt`));
    });
  }

  // Correct clients that chose otherwise where the protocol lets them (test/variants/<choice>/change.diff):
  // the cases ask for what MCP asks and nothing more, so each passes every stage to its own; one that
  // does not do what the spec only recommends (a SHOULD) is given that advice, and passes. Of the stages
  // before its own, a course copy keeps one case of each command.
  const courseFor = courseCopies((dir, stage) => trimCourse(dir, [], STAGES.slice(0, STAGES.indexOf(stage))));
  it('has an entry for every variant folder', () => {
    expect(readdirSync(join(REPO, 'test/variants')).sort()).toEqual(Object.keys(VARIANTS).sort());
  });
  for (const [variant, { stage, advice = [] }] of Object.entries(VARIANTS)) {
    it(`passes ${variant}, a correct client that chose otherwise${advice.length > 0 ? `, with advice (${advice.join(', ')})` : ''}`, async () => {
      const submission = patchedSubmission(join(REPO, 'test/variants', variant, 'change.diff'));
      try {
        const run = await runInProcess(['test', '--stage', stage, '--runs', '10', ...SEED, '--submission', submission], { cwd: courseFor(stage) });
        expect(run.stdout).not.toMatch(/✗|!/);
        expect(run.stdout).toMatch(new RegExp(`^all graded stages pass: ${stage}, `, 'm'));
        expect(run.code).toBe(0);
        // each piece of advice it earns, named, with the spec's words; and none other
        const given = [...run.stdout.matchAll(/^ {6}advice: ([a-z-]+): /gm)].map((match) => match[1]);
        expect([...new Set(given)].sort()).toEqual([...advice].sort());
        // each with the words of its rule: a SHOULD, or what a server the spec allows may refuse
        for (const kind of advice) expect(run.stdout).toContain(KINDS[kind as DiagnosisKind].words.slice(0, 60));
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
