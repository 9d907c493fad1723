// A course author's hidden cases (kept outside the course, laid out as CI's --cases reads them) are
// blessed where they are: `bless --cases <dir>` runs the reference on them in a scratch copy and writes
// each expected.json beside its case in <dir>, and nothing into the course.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopy, REPO, runCli } from '../helpers/cli.ts';

const course = courseCopy();
const hidden = mkdtempSync(join(tmpdir(), 'hidden-cases-'));
afterAll(() => {
  rmSync(course, { recursive: true, force: true });
  rmSync(hidden, { recursive: true, force: true });
});

/** Every path under `dir`, for a before-and-after: the course's own (node_modules is the repo's, which
 *  the tests running beside this one write their caches into). */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path !== 'node_modules' && !path.startsWith('node_modules/'))
    .sort();
}

describe('bless --cases <dir>', () => {
  it("writes a hidden case's expected.json beside it, from the reference, and nothing into the course", async () => {
    // a new hidden case of stage 1's framing command: the inputs of a course case, no expected.json yet
    const input = join(hidden, 'cases', 'config-and-framing', 'mcp-frame', 'more-numbers');
    mkdirSync(input, { recursive: true });
    cpSync(join(REPO, 'cases', 'config-and-framing', 'mcp-frame', 'numbers', 'messages.json'), join(input, 'messages.json'));
    const before = tree(course);

    const blessed = await runCli(['bless', '--cases', hidden, '--stage', '1'], { cwd: course });
    expect(blessed.stderr).toBe('');
    expect(blessed.code).toBe(0);
    expect(blessed.stdout).toContain('new      config-and-framing/hidden-mcp-frame/more-numbers');
    expect(blessed.stdout).toMatch(/^bless \(the hidden cases in \S+\): 1 new \(config-and-framing\/hidden-mcp-frame\/more-numbers\)$/m);
    const written = join(hidden, 'fixtures', 'config-and-framing', 'mcp-frame', 'more-numbers', 'expected.json');
    // the same inputs as the course's case: the same bytes the reference printed there
    expect(readFileSync(written, 'utf8')).toBe(readFileSync(join(REPO, 'fixtures', 'config-and-framing', 'mcp-frame', 'numbers', 'expected.json'), 'utf8'));
    expect(tree(course)).toEqual(before);

    const again = await runCli(['bless', '--cases', hidden, '--stage', '1'], { cwd: course });
    expect(again.stdout).toMatch(/^bless \(the hidden cases in \S+\): 1 unchanged$/m);
    expect(existsSync(join(course, 'fixtures', 'config-and-framing', 'hidden-mcp-frame'))).toBe(false);
  });
});
