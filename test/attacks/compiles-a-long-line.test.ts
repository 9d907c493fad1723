// Code that does not compile on a line of 80 KB, or imports by a name of 100 KB: the bundler's refusal
// quotes both (the line under a compile error, the import in its words), and it goes back to the
// grader on the bundler's outcome line, whose cap is 64 KiB. A refusal that outgrew it was lost, and
// the whole grading was the grader's failure ("infra: the bundler failed: exit 0"). Each is the
// student's mistake, said in a few hundred characters, the caret under its place.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.ts';
import { checks, cleanUp, folder, runCi } from '../ci/helpers.ts';

afterAll(cleanUp);

const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
const STAGE_1 = ['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '5', '--random', '0'];
/** The longest a refusal's words may be here: a few hundred characters, and the course's rule. */
const SHORT = 3000;

/** Every check of the run failed at the bundle (a case "not run", a property "not checked"), each
 *  with the same words; those words. */
async function refusedWith(source: string): Promise<{ message: string; details: string }> {
  const run = await runCi([...STAGE_1, '--submission', folder({ 'src/mcp.ts': source })]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(1);
  const all = checks(run.report);
  expect(all.length).toBeGreaterThan(10);
  const said = new Set(all.map((check) => `${check.status} ${check.message.replace(/^not (?:run|checked): /, '')}`));
  expect(said.size, [...said].join('\n')).toBe(1);
  expect(all[0]!.status).toBe('fail');
  return { message: all[0]!.message.replace(/^not run: /, ''), details: all[0]!.details?.text ?? '' };
}

describe('a refusal that quotes 80 KB of code', () => {
  it('a compile error in a line of 80 KB: the window of the line around the error, the caret under it', async () => {
    const line = `export const big = [${'1,'.repeat(20_000)} ) ${'2,'.repeat(20_000)}];`;
    const column = line.indexOf(')') + 1;
    const { message, details } = await refusedWith(`${STARTER}\n${line}\n`);
    const lineNumber = STARTER.split('\n').length + 1;
    expect(message).toMatch(new RegExp(`^src/mcp\\.ts:${lineNumber}:${column}: .*"\\)".* \\(your code does not compile\\)$`));
    // the frame: the window of the line, cut with …, and the caret under the )
    const frame = details.split('\n');
    const shown = frame.find((row) => row.startsWith(`  ${lineNumber} | `))!;
    const caret = frame[frame.indexOf(shown) + 1]!;
    expect(shown.length).toBeLessThan(200);
    expect(shown).toMatch(/\| …[1,]+ \) [2,]+…$/);
    expect(shown[caret.indexOf('^')]).toBe(')');
  });

  it('an import of a package named in 100 KB: refused, naming it cut short, with the rule', async () => {
    const { message } = await refusedWith(`import '${'z'.repeat(100_000)}';\n${STARTER}`);
    expect(message.length).toBeLessThan(SHORT);
    expect(message).toMatch(/^src\/mcp\.ts:1:8: imports "z{200}…", a package the course does not allow/);
  });

  it('an import of a file named in 100 KB: not found (a name too long to be a file), cut short', async () => {
    const { message } = await refusedWith(`import './${'z'.repeat(100_000)}';\n${STARTER}`);
    expect(message.length).toBeLessThan(SHORT);
    expect(message).toMatch(/^src\/mcp\.ts:1:8: cannot find "\.\/z{198}…" \(your code does not compile\)$/);
  });
});
