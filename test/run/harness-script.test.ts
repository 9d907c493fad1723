// The harness's own scripts that bare node runs in a sandbox (the property oracle, the bundler), made
// from their TypeScript source by esbuild once per process: made wherever this process's working folder
// has gone. A test grades in a course copy it then removes, and esbuild, loaded there, would take that
// folder as its working folder for good (under vitest nothing loads it earlier; tsx, which runs the CLI
// from source, does). Tried in a process of its own: a fresh esbuild in this worker would stay, and
// every later test's build here would start its service in the folder that is gone.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { REPO } from '../helpers/cli.ts';

it('makes each script, though the folder esbuild was first loaded in is gone', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'harness-script-'));
  const gone = join(scratch, 'gone');
  const from = (folder: string) => pathToFileURL(join(REPO, 'harness', folder, 'any.ts')).href;
  const check = join(scratch, 'check.ts');
  writeFileSync(
    check,
    `import { rmSync } from 'node:fs';
import { harnessScript } from ${JSON.stringify(pathToFileURL(join(REPO, 'harness/own-module.ts')).href)};
console.log(harnessScript(${JSON.stringify(from('run'))}, './bundle-worker').script);
process.chdir(${JSON.stringify(scratch)});
rmSync(${JSON.stringify(gone)}, { recursive: true });
console.log(harnessScript(${JSON.stringify(from('props'))}, './oracle').script);
`,
  );
  mkdirSync(gone);
  try {
    // started in the folder that goes: tsx loads esbuild there as it starts
    const tsx = pathToFileURL(join(REPO, 'node_modules/tsx/dist/loader.mjs')).href;
    const run = spawnSync(process.execPath, ['--import', tsx, check], { cwd: gone, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/^\S+script\.mjs\n\S+script\.mjs\n$/);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});
