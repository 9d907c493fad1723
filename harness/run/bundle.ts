// A TypeScript entry and what it imports from its own folder, bundled into one plain-JavaScript
// module with esbuild: what the grader starts with bare `node` instead of compiling through tsx at
// every start. Packages stay imports, resolved from the folder's node_modules as tsx would; the
// inline source map keeps stack traces naming the student's files and lines.
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { build } from 'esbuild';

const written = new Set<string>();

/** Bundles `entry` into `outfile`; false when it does not build (a syntax error: tsx will say so better). */
export async function bundle(entry: string, outfile: string): Promise<boolean> {
  try {
    mkdirSync(dirname(outfile), { recursive: true });
    if (!written.has(outfile)) {
      written.add(outfile);
      process.once('exit', () => rmSync(outfile, { force: true }));
    }
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'inline',
      logLevel: 'silent',
    });
    return true;
  } catch {
    return false;
  }
}
