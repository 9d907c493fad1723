// The bundler reads only what the submission's src/ holds: the imports a real solution uses bundle as
// before, and every way out of src/ is refused with the import and its place named. Each refusal is
// tried twice: in the bundler's sandbox (the first wall: nothing outside src/ is there to be read) and
// without one (the plugin alone, as on a machine without bubblewrap), with the same words.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BundleRefusal, type Bundled } from '../../harness/run/bundle.ts';
import { MAX_BUNDLE_INPUT_BYTES } from '../../harness/run/confine.ts';
import { sandboxAvailability } from '../../harness/run/sandbox.ts';
import { bundleOne } from '../helpers/bundle.ts';

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

/** Both walls, then the plugin alone. */
const WALLS = [
  { name: 'in the sandbox', sandbox: true },
  { name: 'without a sandbox', sandbox: false },
];

function bundled(root: string, options: { sandbox?: boolean; packages?: string[] } = {}): Promise<Bundled> {
  return bundleOne(join(root, 'program.ts'), join(root, '.theinference', 'program-1.mjs'), root, options);
}

/** What the bundle prints when run. */
async function printed(root: string, options: { packages?: string[] } = {}): Promise<string> {
  const made = await bundled(root, options);
  if (made instanceof BundleRefusal) throw new Error(`did not bundle: ${made.message}`);
  return spawnSync(process.execPath, [made.path], { cwd: root, encoding: 'utf8' }).stdout;
}

async function refusal(root: string, sandbox = true): Promise<string> {
  const made = await bundled(root, { sandbox });
  if (!(made instanceof BundleRefusal)) throw new Error('was not refused');
  return made.message;
}

it('runs in a sandbox here, as CI grades', () => {
  expect(sandboxAvailability()).toEqual({ available: true });
});

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
        "import { EOL } from 'os';", // a built-in by its bare name
        'export const answer = () => [one, two, three, data.four, note.trim(), parse("x: 6").x, sep, EOL];',
      ].join('\n'),
      'src/parts/one.ts': 'export const one = 1;',
      'src/parts/two.ts': 'export const two = 2;',
      'src/parts/index.ts': 'export const three = 3;',
      'src/data.json': '{"four": 4}',
      'src/note.txt': 'five\n',
    });
    symlinkSync(join(import.meta.dirname, '..', '..', 'node_modules'), join(root, 'node_modules'));
    expect(await printed(root, { packages: ['yaml'] })).toBe('[1,2,3,4,"five",6,"/","\\n"]\n');
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

  it.each(WALLS)('refuses a way out, naming the import and where it is, $name', async ({ sandbox }) => {
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
    for (const [files, words] of cases) expect(await bundled(runRoot(files), { sandbox }), words).toMatchObject({ message: expect.stringContaining(words) });
  });

  it.each(WALLS)('refuses a link that leads out of src/, and what is not a regular file, $name', async ({ sandbox }) => {
    const outside = runRoot({ 'secret.ts': 'export const answer = () => "secret";' });
    const linked = runRoot({ 'src/mcp.ts': "export * from './inside.ts';" });
    symlinkSync(join(outside, 'secret.ts'), join(linked, 'src', 'inside.ts'));
    expect(await refusal(linked, sandbox)).toBe('src/mcp.ts:1:15: imports "./inside.ts", a link to a file outside src/');

    const device = runRoot({ 'src/mcp.ts': "import zero from './zero' with { type: 'text' };\nexport const answer = () => zero;" });
    symlinkSync('/dev/zero', join(device, 'src', 'zero'));
    expect(await refusal(device, sandbox)).toContain('imports "./zero", a link to a file outside src/');

    const fifo = runRoot({ 'src/mcp.ts': "import waits from './pipe' with { type: 'text' };\nexport const answer = () => waits;" });
    expect(spawnSync('mkfifo', [join(fifo, 'src', 'pipe')]).status).toBe(0);
    expect(await refusal(fifo, sandbox)).toBe('src/mcp.ts:1:19: imports "./pipe", a device, a FIFO or a socket, not a file: only files are bundled');
  });

  it.each(WALLS)('refuses, as not compiling, a submission without src/ at all (nothing to find there), $name', async ({ sandbox }) => {
    const root = runRoot({});
    expect((await refusal(root, sandbox)).split('\n')[0]).toBe('program.ts:1:22: cannot find "./src/mcp.ts" (your code does not compile)');
  });

  it('refuses more bytes than a bundle may read', async () => {
    const root = runRoot({ 'src/mcp.ts': "import big from './big.txt' with { type: 'text' };\nexport const answer = () => big.length;", 'src/big.txt': '' });
    truncateSync(join(root, 'src', 'big.txt'), MAX_BUNDLE_INPUT_BYTES + 1); // sparse: no disk used
    expect(await refusal(root)).toBe('src/mcp.ts:1:17: imports src/big.txt, larger than 16 MiB');
  });

  it('refuses a syntax error: its first error, where it is, that the code does not compile, and the line with a caret', async () => {
    const made = await bundled(runRoot({ 'src/mcp.ts': 'export const = ;' }));
    expect(made).toBeInstanceOf(BundleRefusal);
    const [first, ...frame] = (made as BundleRefusal).message.split('\n');
    expect(first).toMatch(/^src\/mcp\.ts:1:14: .+ \(your code does not compile\)$/);
    expect(frame).toEqual(['  1 | export const = ;', `    | ${' '.repeat(13)}^`]);
  });

  it.each(WALLS)("refuses a package the course does not allow, the MCP SDK above all, quoting the course's rule, $name", async ({ sandbox }) => {
    const sdk = runRoot({
      'src/mcp.ts':
        "import { sep } from 'node:path';\nimport { Client } from '@modelcontextprotocol/sdk/client/index.js';\nexport const answer = () => [sep, typeof Client];",
    });
    const words = await refusal(sdk, sandbox);
    expect(words).toMatch(
      /^src\/mcp\.ts:2:24: imports "@modelcontextprotocol\/sdk\/client\/index\.js", a package the course does not allow \(course\.yaml's packages: none\)/,
    );
    expect(words).toContain(
      'the client is written by hand (the course: "There is an official SDK. Project #2 does not use it for the client half, on purpose.")',
    );
    // a package the course lists is left as an import; another still is not
    const yaml = runRoot({ 'src/mcp.ts': "import { parse } from 'yaml';\nimport 'zod';\nexport const answer = () => parse('a: 1');" });
    expect(await bundled(yaml, { sandbox, packages: ['yaml'] })).toMatchObject({
      message: expect.stringMatching(/^src\/mcp\.ts:2:8: imports "zod", a package the course does not allow \(course\.yaml's packages: yaml\)/),
    });
  });

  it.each(WALLS)('refuses a computed import, which esbuild would expand by walking folders itself, $name', async ({ sandbox }) => {
    const outside = runRoot({ 'secret.ts': 'export const answer = () => "secret";' });
    const computed = (line: string) =>
      runRoot({ 'src/mcp.ts': `const n = String.fromCharCode(109, 99, 112);\n${line}\nexport const answer = () => 1;`, 'src/own.ts': '' });
    const words = 'import each of your files by a string literal, so that the bundle holds what you name and nothing else';
    // the student's template literals, written as text: `${n}` in them is theirs, not this file's
    const N = '$' + '{n}';
    const cases: [string, string][] = [
      // a template literal reaching out of src/ (through /proc/self/cwd, through ..): its files come to onLoad unasked
      [`await import(\`../../../proc/self/cwd/src/${N}.ts\`);`, 'a computed import'],
      [`await import(\`../${N}.ts\`);`, 'src/mcp.ts:2:14: a computed import (a template literal, or a string built from parts)'],
      [`await import(\`${join(outside, N)}.ts\`);`, 'src/mcp.ts:2:7: import() of a computed value'],
      // a string built from parts, by require
      ["require('../' + n + '.ts');", 'a computed import'],
      // one matching a file of src/ that no import names
      [`await import(\`./${N}.ts\`);`, 'src/mcp.ts:2:14: a computed import'],
      // one whose only match is the file itself: no file reaches onLoad unasked, esbuild's list of imports tells
      [`await import(\`./mc$` + '{n.slice(2)}.ts`);', 'src/mcp.ts: a computed import (esbuild reads it as "./mc*.ts")'],
      // values esbuild cannot expand at all: left to run time, they would load whatever the sandbox shows
      ['await import(n);', 'src/mcp.ts:2:7: import() of a computed value'],
      ['require(n);', 'src/mcp.ts:2:1: require() of a computed value'],
    ];
    for (const [line, start] of cases) {
      const message = await refusal(computed(line), sandbox);
      expect(message, line).toContain(start);
      expect(message, line).toContain(words);
      expect(message, line).not.toContain('secret');
    }
  });

  it.each(WALLS)('refuses a script that links a source map outside src/, which esbuild would read itself, $name', async ({ sandbox }) => {
    const root = runRoot({
      'src/mcp.ts': "export { answer } from './linked.js';",
      'src/linked.js': 'export const answer = () => 1;\n//# sourceMappingURL=../secret.map\n',
      'secret.map': '{"version":3,"sources":["s.ts"],"sourcesContent":["the answers"],"mappings":"AAAA"}',
    });
    expect(await refusal(root, sandbox)).toBe(
      'src/mcp.ts:1:24: src/linked.js links a source map outside src/ (../secret.map): only the files there are bundled',
    );
    // one of its own is read as before
    const own = runRoot({
      'src/mcp.ts': "export { answer } from './linked.js';",
      'src/linked.js': 'export const answer = () => 1;\n//# sourceMappingURL=linked.js.map\n',
      'src/linked.js.map': '{"version":3,"sources":["linked.ts"],"sourcesContent":["export const answer = () => 1;"],"mappings":"AAAA"}',
    });
    expect(await printed(own)).toBe('1\n');
  });
});
