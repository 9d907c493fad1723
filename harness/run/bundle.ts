// A TypeScript entry and what it imports from the submission's src/, bundled into one plain-JavaScript
// module with esbuild: what the grader starts with bare `node` instead of compiling through tsx at
// every start. Packages stay imports, resolved from the folder's node_modules as tsx would. The
// source map stays with the grader, which tells stack traces in the student's files and lines.
// The bundler runs in the grader, outside every sandbox: it reads only what confine.ts allows.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { build, type BuildFailure, type TsconfigRaw } from 'esbuild';
import { BundleRefusal, confine, MAX_BUNDLE_INPUT_BYTES, REFUSED } from './confine.ts';
import { sourcePositions, type PositionMapper } from './source-positions.ts';

export { BundleRefusal };

export interface Bundle {
  path: string;
  /** Rewrites the bundle's positions in what it prints as the sources' (source-positions.ts). */
  positions: PositionMapper;
}

/** The bundles this process wrote, removed when it exits: one listener for all of them, however many
 *  run roots one process grades in (watch mode, a test suite). */
const written = new Set<string>();
const removeWritten = () => {
  for (const file of written) rmSync(file, { force: true });
};

/** A bundle named by the grader process that wrote it (`program-<pid>.mjs`, `module-<pid>.mjs`). */
const OWNED = /^(?:program|module)-(\d+)\.mjs$/;

/** Folders swept by this process: what was left there before it started is gone after one sweep. */
const swept = new Set<string>();

/** Removes the bundles of grader processes that are gone: one killed outside its control (SIGKILL)
 *  could not remove its own at exit, and they would pile up in the course folder. Once per folder. */
export function sweepBundles(folder: string): void {
  if (swept.has(folder)) return;
  swept.add(folder);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return; // no folder yet: nothing to sweep
  }
  for (const name of names) {
    const pid = Number(OWNED.exec(name)?.[1]);
    if (pid > 0 && !alive(pid)) rmSync(join(folder, name), { force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // someone else's: alive
  }
}

/** One ES module for the node that runs the grader's programs (also the oracle's own, from source). */
export const BUNDLE_OPTIONS = { bundle: true, platform: 'node', format: 'esm', target: 'node20' } as const;

/** A bundle larger than this is refused: more than its inputs may be, with room for the driver. */
const MAX_BUNDLE_BYTES = 2 * MAX_BUNDLE_INPUT_BYTES;

export interface BundleOptions {
  /** The run root: the bundler's working folder, where tsconfig.json is read (the course's, in CI). */
  runRoot: string;
  /** The only folder whose files the entry may import (the submission's src/). */
  folder: string;
}

/** Bundles `entry` into `outfile`. A BundleRefusal when it imports what it may not (confine.ts), or
 *  does not compile (a syntax error): then nothing of it runs, and the first error is the verdict;
 *  undefined when the bundler itself failed (the program then runs through tsx). */
export async function bundle(entry: string, outfile: string, options: BundleOptions): Promise<Bundle | BundleRefusal | undefined> {
  try {
    mkdirSync(dirname(outfile), { recursive: true });
    if (written.size === 0) process.once('exit', removeWritten);
    written.add(outfile);
    const { outputFiles } = await build({
      ...BUNDLE_OPTIONS,
      entryPoints: [entry],
      outfile,
      absWorkingDir: options.runRoot,
      tsconfigRaw: tsconfigOf(options.runRoot),
      plugins: [confine({ entry, folder: options.folder, base: options.runRoot })],
      sourcemap: 'external', // made, not linked from the bundle: node never reads it
      write: false,
      logLevel: 'silent',
    });
    const code = outputFiles.find((file) => file.path === resolve(outfile));
    const map = outputFiles.find((file) => file.path === `${resolve(outfile)}.map`);
    if (code === undefined || map === undefined) return undefined;
    if (code.contents.length > MAX_BUNDLE_BYTES) return new BundleRefusal(`the bundle of your code is larger than ${MAX_BUNDLE_BYTES / 1024 / 1024} MiB`);
    writeFileSync(outfile, code.contents);
    return { path: outfile, positions: sourcePositions(outfile, JSON.parse(map.text)) };
  } catch (error) {
    return refusalIn(error);
  }
}

/** A failed build's first refusal, else its first error (the code does not compile), told as
 *  `<file>:<line>:<column>: <what>`, the file as it stands in the run root. */
function refusalIn(error: unknown): BundleRefusal | undefined {
  const errors = (error as Partial<BuildFailure>).errors ?? [];
  const refused = errors.find((message) => message.detail === REFUSED);
  const first = refused ?? errors[0];
  if (first === undefined) return undefined;
  const at = first.location ? `${first.location.file}:${first.location.line}:${first.location.column + 1}: ` : '';
  return new BundleRefusal(refused ? `${at}${first.text}` : `${at}${first.text} (your code does not compile)`);
}

/** The run root's TypeScript options, given to esbuild so that it reads no tsconfig.json itself (one
 *  under src/ could extend any file). Plain JSON only; none where it is not. */
function tsconfigOf(runRoot: string): TsconfigRaw | undefined {
  try {
    const { compilerOptions } = JSON.parse(readFileSync(join(runRoot, 'tsconfig.json'), 'utf8')) as TsconfigRaw;
    return compilerOptions && { compilerOptions };
  } catch {
    return undefined;
  }
}
