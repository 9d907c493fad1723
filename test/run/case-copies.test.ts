// The copies of case folders shown to sandboxed programs: one per folder while it stays as it was,
// a fresh one once it changes, the old one kept while a program still shows it, and none left
// once the grader process exits.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caseCopy } from '../../harness/run/case-copies.ts';
import { cleanUp, folder } from '../ci/helpers.ts';
import { REPO } from '../helpers/cli.ts';

afterAll(cleanUp);

describe('caseCopy', () => {
  it("copies a case folder's directories and regular files once, and shows that copy again while the folder is unchanged", () => {
    const dir = folder({ 'case.md': 'about\n', 'sub/calls.json': '[]\n' });
    symlinkSync('/etc/hostname', join(dir, 'link'));
    const first = caseCopy(dir);
    const second = caseCopy(dir);
    expect(second.path).toBe(first.path);
    expect(readdirSync(first.path).sort()).toEqual(['case.md', 'sub']);
    expect(readFileSync(join(first.path, 'sub/calls.json'), 'utf8')).toBe('[]\n');
    first.release();
    second.release();
    expect(existsSync(first.path)).toBe(true); // kept for the case's next program
  });

  it('makes a fresh copy once a file changes, is added or removed; the old one goes when its last program has ended', () => {
    const dir = folder({ 'case.md': 'about\n' });
    const old = caseCopy(dir);
    writeFileSync(join(dir, 'case.md'), 'about, edited\n');
    const edited = caseCopy(dir);
    expect(edited.path).not.toBe(old.path);
    expect(readFileSync(join(edited.path, 'case.md'), 'utf8')).toBe('about, edited\n');
    expect(readFileSync(join(old.path, 'case.md'), 'utf8')).toBe('about\n'); // its program still shows it
    old.release();
    old.release(); // a second release changes nothing
    expect(existsSync(old.path)).toBe(false);
    expect(existsSync(edited.path)).toBe(true);
    writeFileSync(join(dir, 'calls.json'), '[]\n');
    const added = caseCopy(dir);
    expect(readdirSync(added.path).sort()).toEqual(['calls.json', 'case.md']);
    rmSync(join(dir, 'calls.json'));
    expect(readdirSync(caseCopy(dir).path)).toEqual(['case.md']);
  });

  it('shows a case folder removed meanwhile as an empty one', () => {
    const dir = folder({ 'case.md': 'about\n' });
    rmSync(dir, { recursive: true });
    expect(readdirSync(caseCopy(dir).path)).toEqual([]);
  });

  it('removes the copies of folders that are gone, once unused, as copies of others are made', () => {
    const gone = folder({ 'case.md': 'about\n' });
    const shown = caseCopy(gone);
    const unused = caseCopy(folder({ 'case.md': 'another\n' }));
    unused.release();
    rmSync(gone, { recursive: true });
    // the copies are looked at once they are many (a grading's own cases cost it few looks)
    const more = Array.from({ length: 70 }, (_, at) => caseCopy(folder({ 'case.md': `case ${at}\n` })));
    expect(existsSync(shown.path)).toBe(true); // a program still shows it
    shown.release();
    for (const copy of more) copy.release();
    for (let at = 0; at < 140; at += 1) caseCopy(folder({ 'case.md': `case ${70 + at}\n` })).release();
    expect(existsSync(shown.path)).toBe(false);
    expect(existsSync(unused.path)).toBe(true); // its folder is there: kept for its next program
  });

  it('leaves no copy behind when the grader process exits', () => {
    const dir = folder({ 'case.md': 'about\n' });
    const script = `import { caseCopy } from ${JSON.stringify(join(REPO, 'harness/run/case-copies.ts'))}; console.log(caseCopy(${JSON.stringify(dir)}).path);`;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    const path = child.stdout.trim();
    expect(path.startsWith(join(tmpdir(), 'theinference-case-'))).toBe(true);
    expect(existsSync(path)).toBe(false);
  });
});
