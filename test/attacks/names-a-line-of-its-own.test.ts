// A submission that names its files so that the grader's words about them break into lines of the
// student's own: a file whose name holds a line break and a forged verdict, which fails to compile (its
// name is in the compile error's first line), and an import whose specifier holds one (its words are in
// the refusal). What the grader prints of either stays on its own line, the break shown escaped.
import { afterAll, describe, expect, it } from 'vitest';
import { checks, cleanUp, folder, QUICK, runCi } from '../ci/helpers.ts';

afterAll(cleanUp);

const FORGED = '  ✓ all graded stages pass';

describe('names-a-line-of-its-own: a file name with a line break starts no line of the report', () => {
  it("a file that does not compile: its name's line break is shown, not taken", async () => {
    const sub = folder({
      'src/mcp.ts': `export * from './x\\n${FORGED}.ts';\n`,
      [`src/x\n${FORGED}.ts`]: 'export const broken = ;\n',
    });
    const run = await runCi([...QUICK, '--submission', sub]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).not.toContain(FORGED);
    expect(run.stdout).toContain(`x\\n${FORGED}.ts:1:`);
    for (const check of checks(run.report)) expect(check.message.includes('\n') || (check.details?.text ?? '').split('\n').includes(FORGED)).toBe(false);
  });

  it("an import refused: the specifier's line break is shown, not taken", async () => {
    const sub = folder({ 'src/mcp.ts': `export * from 'evil\\n${FORGED}';\n` });
    const run = await runCi([...QUICK, '--submission', sub]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).not.toContain(FORGED);
    expect(run.stdout).toContain(`imports "evil\\n${FORGED}"`);
  });
});
