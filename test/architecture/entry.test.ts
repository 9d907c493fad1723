// bin/theinference.js runs the compiled harness (lib/) when it is current, and the source through
// tsx when lib/ is missing or a source file is newer: a stale build never grades. Checked on a
// stand-in harness whose two builds say which one ran.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'entry-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function standIn(): string {
  const root = mkdtempSync(join(dir, 'package-'));
  for (const folder of ['bin', 'harness/report', 'lib']) mkdirSync(join(root, folder), { recursive: true });
  copyFileSync(join(REPO, 'bin', 'theinference.js'), join(root, 'bin', 'theinference.js'));
  writeFileSync(join(root, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'), 'dir');
  const cli = (which: string) =>
    `export async function main() { console.log(${JSON.stringify(which)}); return 0; }\nexport function internalError() { return 2; }\n`;
  writeFileSync(join(root, 'harness', 'cli.ts'), cli('source'));
  writeFileSync(join(root, 'harness', 'report', 'other.ts'), 'export {};\n');
  writeFileSync(join(root, 'lib', 'cli.js'), cli('compiled'));
  return root;
}

const ran = (root: string) => execFileSync(process.execPath, [join(root, 'bin', 'theinference.js')], { encoding: 'utf8' }).trim();
const at = (path: string, seconds: number) => utimesSync(path, seconds, seconds);

describe('bin/theinference.js', () => {
  it('runs lib/ when it was built after every source file', () => {
    const root = standIn();
    at(join(root, 'harness', 'cli.ts'), 1000);
    at(join(root, 'harness', 'report', 'other.ts'), 1000);
    at(join(root, 'lib', 'cli.js'), 2000);
    expect(ran(root)).toBe('compiled');
  });

  it('runs the source when any source file, however deep, is newer than lib/', () => {
    const root = standIn();
    at(join(root, 'harness', 'cli.ts'), 1000);
    at(join(root, 'lib', 'cli.js'), 2000);
    at(join(root, 'harness', 'report', 'other.ts'), 3000);
    expect(ran(root)).toBe('source');
  });

  it('runs the source when there is no lib/', () => {
    const root = standIn();
    rmSync(join(root, 'lib'), { recursive: true });
    expect(ran(root)).toBe('source');
  });
});
