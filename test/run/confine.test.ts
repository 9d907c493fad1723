// The bundler reads only what the submission's src/ holds: the imports a real solution uses bundle as
// before, and every way out of src/ is refused with the import and its place named.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bundle, BundleRefusal } from '../../harness/run/bundle.ts';
import { MAX_BUNDLE_INPUT_BYTES } from '../../harness/run/confine.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A run root with a driver that imports ./src/mcp.ts, and these files besides (paths from the root). */
function runRoot(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'confine-'));
  made.push(root);
  const all = { 'program.ts': "import * as mcp from './src/mcp.ts';\nconsole.log(JSON.stringify(mcp.answer()));\n", ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

async function bundled(root: string) {
  return bundle(join(root, 'program.ts'), join(root, '.theinference', 'program-1.mjs'), { runRoot: root, folder: join(root, 'src') });
}

/** What the bundle prints when run. */
async function printed(root: string): Promise<string> {
  const made = await bundled(root);
  if (!made || made instanceof BundleRefusal) throw new Error(`did not bundle: ${made?.message}`);
  return spawnSync(process.execPath, [made.path], { cwd: root, encoding: 'utf8' }).stdout;
}

async function refusal(root: string): Promise<string> {
  const made = await bundled(root);
  if (!(made instanceof BundleRefusal)) throw new Error('was not refused');
  return made.message;
}

describe('the bundler, confined to src/', () => {
  it("bundles what a solution imports: its own files by TypeScript's rules, JSON and text, packages and builtins left to run time", async () => {
    const root = runRoot({
      'src/mcp.ts': [
        "import { one } from './parts/one.js';", // names ./parts/one.ts
        "import { two } from './parts/two';", // extensionless
        "import { three } from './parts';", // a folder's index
        "import data from './data.json' with { type: 'json' };",
        "import note from './note.txt' with { type: 'text' };",
        "import { parse } from 'yaml';",
        "import { sep } from 'node:path';",
        'export const answer = () => [one, two, three, data.four, note.trim(), parse("x: 6").x, sep];',
      ].join('\n'),
      'src/parts/one.ts': 'export const one = 1;',
      'src/parts/two.ts': 'export const two = 2;',
      'src/parts/index.ts': 'export const three = 3;',
      'src/data.json': '{"four": 4}',
      'src/note.txt': 'five\n',
    });
    symlinkSync(join(import.meta.dirname, '..', '..', 'node_modules'), join(root, 'node_modules'));
    expect(await printed(root)).toBe('[1,2,3,4,"five",6,"/"]\n');
    const bundle = readFileSync(join(root, '.theinference', 'program-1.mjs'), 'utf8');
    expect(bundle).toMatch(/from "yaml"/);
  });

  it("reads no tsconfig.json or package.json under src/ (one could extend any file): the run root's options only", async () => {
    const root = runRoot({
      'src/mcp.tsx': 'const h = (tag: string) => tag;\nexport const answer = () => <b />;',
      'src/mcp.ts': "export { answer } from './mcp.tsx';",
      'src/tsconfig.json': '{"compilerOptions": {"jsx": "react", "jsxFactory": "readFromSrc"}}',
      'tsconfig.json': '{"compilerOptions": {"jsx": "react", "jsxFactory": "h"}}',
    });
    expect(await printed(root)).toBe('"b"\n');
  });

  it('refuses a way out, naming the import and where it is', async () => {
    const outside = runRoot({ 'secret.ts': 'export const answer = () => "secret";' });
    const cases: [Record<string, string>, string][] = [
      [{ 'src/mcp.ts': `export * from '${join(outside, 'secret.ts')}';` }, `src/mcp.ts:1:15: imports "${join(outside, 'secret.ts')}", an absolute path`],
      [{ 'src/mcp.ts': "\n\nexport * from '../secret.ts';", 'secret.ts': '' }, 'src/mcp.ts:3:15: imports "../secret.ts", which is outside src/'],
      [
        { 'src/mcp.ts': "export * from './deep/a.ts';", 'src/deep/a.ts': "export * from '../../../x.ts';" },
        'src/deep/a.ts:1:15: imports "../../../x.ts", which is outside src/',
      ],
      [
        { 'src/mcp.ts': "import x from 'file:../secret.ts';\nexport const answer = () => x;" },
        'imports "file:../secret.ts", which is not a relative path or a package name',
      ],
      [{ 'src/mcp.ts': "const t = await import('/etc/passwd');" }, 'imports "/etc/passwd", an absolute path'],
    ];
    for (const [files, words] of cases) expect(await bundled(runRoot(files)), words).toMatchObject({ message: expect.stringContaining(words) });
  });

  it('refuses a link that leads out of src/, and what is not a regular file', async () => {
    const outside = runRoot({ 'secret.ts': 'export const answer = () => "secret";' });
    const linked = runRoot({ 'src/mcp.ts': "export * from './inside.ts';" });
    symlinkSync(join(outside, 'secret.ts'), join(linked, 'src', 'inside.ts'));
    expect(await refusal(linked)).toBe('src/mcp.ts:1:15: imports "./inside.ts", a link to a file outside src/');

    const device = runRoot({ 'src/mcp.ts': "import zero from './zero' with { type: 'text' };\nexport const answer = () => zero;" });
    symlinkSync('/dev/zero', join(device, 'src', 'zero'));
    expect(await refusal(device)).toContain('imports "./zero", a link to a file outside src/');

    const fifo = runRoot({ 'src/mcp.ts': "import waits from './pipe' with { type: 'text' };\nexport const answer = () => waits;" });
    expect(spawnSync('mkfifo', [join(fifo, 'src', 'pipe')]).status).toBe(0);
    expect(await refusal(fifo)).toBe('src/mcp.ts:1:19: imports "./pipe", a device, a FIFO or a socket, not a file: only files are bundled');
  });

  it('refuses more bytes than a bundle may read', async () => {
    const root = runRoot({ 'src/mcp.ts': "import big from './big.txt' with { type: 'text' };\nexport const answer = () => big.length;", 'src/big.txt': '' });
    truncateSync(join(root, 'src', 'big.txt'), MAX_BUNDLE_INPUT_BYTES + 1); // sparse: no disk used
    expect(await refusal(root)).toBe('src/mcp.ts:1:17: imports src/big.txt, larger than 16 MiB');
  });

  it('refuses a syntax error: its first error, where it is, and that the code does not compile', async () => {
    const made = await bundled(runRoot({ 'src/mcp.ts': 'export const = ;' }));
    expect(made).toBeInstanceOf(BundleRefusal);
    expect((made as BundleRefusal).message).toMatch(/^src\/mcp\.ts:1:14: .+ \(your code does not compile\)$/);
  });
});
