// The harness's own scripts that bare node runs in a sandbox (the property oracle, the bundler), made
// from their TypeScript source by esbuild once per process: made wherever this process's working folder
// has gone. A test grades in a course copy it then removes, and esbuild, loaded there, would take that
// folder as its working folder for good (under vitest nothing loads it earlier; tsx, which runs the CLI
// from source, does).
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it, vi } from 'vitest';
import { REPO } from '../helpers/cli.ts';

it('makes each script, though the folder esbuild was first loaded in is gone', async () => {
  // a fresh esbuild and a fresh harness module, loaded in a folder that then goes
  const require = createRequire(join(REPO, 'harness/own-module.ts'));
  delete require.cache[require.resolve('esbuild')];
  vi.resetModules();
  const from = (folder: string) => pathToFileURL(join(REPO, 'harness', folder, 'any.ts')).href;
  const home = process.cwd();
  const gone = mkdtempSync(join(tmpdir(), 'gone-'));
  process.chdir(gone);
  let harnessScript: typeof import('../../harness/own-module.ts').harnessScript;
  try {
    ({ harnessScript } = await import('../../harness/own-module.ts'));
    expect(harnessScript(from('run'), './bundle-worker').script).toMatch(/script\.mjs$/);
  } finally {
    process.chdir(home);
    rmSync(gone, { recursive: true });
  }
  expect(harnessScript(from('props'), './oracle').script).toMatch(/script\.mjs$/);
});
