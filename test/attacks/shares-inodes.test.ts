// A submission that looks for what of the run root its programs share (test/attacks/shares-inodes/):
// each prints the device and inode of every file and folder of the run root it is shown, and one case's
// program holds a lock on its bundle while another case's program tries it. Two programs of one
// grading that see one inode could pass anything through it (a lock held or not, pages of it cached or
// not), a hidden case's program to one whose words are reported: each program is shown a copy of its
// own (root-copies.ts), and neither the inodes nor the lock are shared.
import { availableParallelism } from 'node:os';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checks, cleanUp, folder, leftBehind, leftInTmp, runCi } from '../ci/helpers.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
/** What each program is shown of the run root (the bundle: the file its argv[1] names). */
const SHOWN = [
  'the bundle',
  'program.ts',
  'your_program.sh',
  'package.json',
  'src',
  'src/mcp.ts',
  'src/attack.ts',
  '.theinference',
  '.theinference/warm-start.mjs',
  '.theinference/preload.mjs',
  '.theinference/case-server',
  '.theinference/case-server/theinference-case-server',
];

// stage 1 with one case of each command: an mcp-frame case and an mcp-config case, run at once
const course = courseCopy();
trimCourse(course);
afterAll(() => {
  rmSync(course, { recursive: true, force: true });
  cleanUp();
});

interface Seen {
  command: string;
  inodes: Record<string, string>;
  lockSeen?: boolean;
}

// The two cases meet only while both run: with one core, the grader runs them one after the other.
describe.skipIf(availableParallelism() < 2)('shares-inodes', () => {
  it('shows no two programs of a grading the same inode of the run root: each its own copy, whose lock no other program sees', async () => {
    const dir = folder({ 'src/mcp.ts': `import './attack.ts';\n${STARTER}` });
    cpSync(join(REPO, 'test/attacks/shares-inodes/src'), join(dir, 'src'), { recursive: true });
    const run = await runCi(['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '5', '--random', '0', '--submission', dir], { cwd: course });
    expect(run.stderr).toBe('');
    expect(run.report).toMatchObject({ sandbox: 'bwrap' });
    const said = (check: { stderr: { text: string } | null }) => (check.stderr?.text ?? '').split('\n').find((text) => text.startsWith('shares: '));
    const all = checks(run.report);
    const cases = all.filter((check) => check.origin !== 'property');
    for (const check of cases) expect(said(check), `${check.name}: ${check.status} ${check.message}`).toBeDefined();
    // the property oracle's, said with each property it failed: one process, or one after another (after a crash)
    const oracles = new Set(all.filter((check) => check.origin === 'property').flatMap((check) => said(check) ?? []));
    expect(oracles.size).toBeGreaterThan(0);
    const seen = [...cases.map((check) => said(check)!), ...oracles].map((line) => JSON.parse(line.slice('shares: '.length)) as Seen);
    expect(seen.map((program) => program.command).sort()).toEqual([...[...oracles].map(() => '--module'), 'mcp-config', 'mcp-frame']);
    // each was shown all of these, and no two of them are one inode
    for (const program of seen) expect(Object.keys(program.inodes).sort(), program.command).toEqual([...SHOWN].sort());
    const shared = seen.flatMap((one, i) =>
      seen
        .slice(i + 1)
        .flatMap((other) => SHOWN.filter((path) => one.inodes[path] === other.inodes[path]).map((path) => `${one.command} and ${other.command}: ${path}`)),
    );
    expect(shared).toEqual([]);
    // the mcp-config program tried the bundle while the mcp-frame program held a lock on its own
    expect(seen.find((program) => program.command === 'mcp-config')!.lockSeen).toBe(false);
    expect(await leftBehind(run.tmp)).toEqual([]);
    expect(leftInTmp(run.tmp)).toEqual([]);
  });
});
