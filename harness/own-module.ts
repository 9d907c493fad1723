// The harness runs from its TypeScript source (harness/, through tsx) or compiled at install
// (lib/, plain node): a file of its own that it names at run time takes the extension of the
// module naming it, so the same code finds it either way.
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scratchFolder } from './scratch.ts';

/** The path of module `name` (relative, no extension) beside the module at `from` (its import.meta.url). */
export function ownModule(from: string, name: string): string {
  return fileURLToPath(new URL(`${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from));
}

/** A script of the harness that bare node runs in a sandbox (the property oracle, the bundler). */
export interface HarnessScript {
  script: string;
  /** What of the disk it needs shown to run. */
  files: string[];
}

const scripts = new Map<string, HarnessScript>();

/** The compiled harness's top folder (lib/): this module's, which sits there. */
const COMPILED_ROOT = dirname(fileURLToPath(import.meta.url));

/** Module `name` beside `from` as a script for bare node. Compiled (lib/), the module itself, shown with
 *  the whole compiled harness (the modules it imports, wherever in it they are) and the package.json that
 *  makes it an ES module. From its
 *  TypeScript source (the tests, a harness being edited), bundled by esbuild once per process into a
 *  private folder, so that it starts with bare node as compiled, not through tsx (a third of a second
 *  per start). The harness's own code only: nothing of a submission is read here. */
export function harnessScript(from: string, name: string): HarnessScript {
  const source = ownModule(from, name);
  let made = scripts.get(source);
  if (made) return made;
  if (source.endsWith('.ts')) {
    const dir = scratchFolder('script');
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, 'script.mjs');
    // loaded here, not with this module: only a harness run from source needs it, and only once
    const { buildSync } = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
    // its own folder as esbuild's: the working folder of this process may be gone (a test's course copy)
    buildSync({
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      entryPoints: [source],
      outfile: script,
      absWorkingDir: dirname(source),
      logLevel: 'silent',
    });
    made = { script, files: [dir] };
  } else {
    made = { script: source, files: [COMPILED_ROOT, ...packageJsonAbove(source)] };
  }
  scripts.set(source, made);
  return made;
}

function packageJsonAbove(file: string): string[] {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return [join(dir, 'package.json')];
  }
  return [];
}
