// A bundle runs without source maps; the grader tells its stack traces in the sources' terms. The
// judge of "told right" is Node itself: the same bundle run with --enable-source-maps.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleOne } from '../helpers/bundle.ts';

// a space in the folder: Node names the module by a URL, where it is %20
const folder = mkdtempSync(join(tmpdir(), 'source positions-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const ENTRY = `import { parse } from './src/lib.ts';
const which: string = process.argv[2] ?? '';
if (which === 'printed') {
  try {
    parse('printed');
  } catch (error) {
    console.error('caught:', (error as Error).stack);
  }
} else if (which === 'async') {
  await Promise.resolve();
  [1].map(() => parse('async'));
} else {
  parse(which);
}
`;
const LIB = `/** Fails on purpose, a few lines down so that the bundle's lines differ from these. */
export function parse(text: string): unknown {
  const shapes: Record<string, { depth: number }> = { deep: { depth: 2 } };
  return (shapes[text] as { depth: number }).depth;
}
`;

/** What the program prints on stderr for `args`: as Node tells it from the same bundle with its map
 *  inline, and as the grader tells it from the bundle it runs without one. */
async function printed(args: string[]): Promise<{ node: string; grader: string }> {
  const built = await bundleOne(join(folder, 'program.ts'), join(folder, '.theinference', 'program-1.mjs'), folder);
  if (!('path' in built)) throw new Error('the test program did not bundle');
  const mapped = join(folder, '.theinference', 'mapped.mjs');
  await build({
    entryPoints: [join(folder, 'program.ts')],
    outfile: mapped,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  const run = (file: string, flags: string[]) => spawnSync(process.execPath, [...flags, file, ...args], { cwd: folder, encoding: 'utf8' }).stderr;
  // Node's source-mapped header ends in a blank line more; the rest is the comparison
  const node = run(mapped, ['--enable-source-maps']).replace(/\^\n\n\n/, '^\n\n');
  return { node, grader: built.positions(run(built.path, [])) };
}

describe('source positions', () => {
  mkdirSync(join(folder, 'src'));
  writeFileSync(join(folder, 'program.ts'), ENTRY);
  writeFileSync(join(folder, 'src', 'lib.ts'), LIB);

  it("tells an uncaught error's header (file, line, source line, caret) and its frames as Node's source maps would", async () => {
    const { node, grader } = await printed(['shallow']);
    expect(grader).toContain(`${join(folder, 'src', 'lib.ts')}:4\n  return (shapes[text] as { depth: number }).depth;\n`);
    expect(grader).toContain(`at parse (${join(folder, 'src', 'lib.ts')}:4:46)`);
    expect(grader).not.toContain('program-1.mjs');
    expect(grader).toBe(node);
  });

  it('tells anonymous and async frames, and a stack the program printed itself', async () => {
    for (const args of [['async'], ['printed']]) {
      const { node, grader } = await printed(args);
      expect(grader).not.toContain('program-1.mjs');
      expect(grader).toBe(node);
    }
  });

  it('leaves text without the bundle in it as it was', async () => {
    const built = await bundleOne(join(folder, 'program.ts'), join(folder, '.theinference', 'program-2.mjs'), folder);
    if (!('path' in built)) throw new Error('the test program did not bundle');
    const text = 'Error: no\n    at other (file:///elsewhere/program-2.mjs:1:1)\n    at node:internal/main:1:1\n';
    expect(built.positions(text)).toBe(text);
  });
});
