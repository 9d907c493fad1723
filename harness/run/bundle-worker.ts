// The bundler as it runs inside its own sandbox (bundle.ts starts it): esbuild, with the confine
// plugin, makes each entry's bundle and writes it, with its source map, into the one folder it may
// write; one line on fd 3 says what came of each. Started ahead (watch mode), it loads esbuild and
// starts its service, then waits for the go before it reads a file of the submission.
import { createReadStream, writeFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BuildFailure, TsconfigRaw } from 'esbuild';
import { COMPUTED_IMPORTS, computedImportIn, confine, refusalOf } from './confine.ts';

/** What the grader asks of one run, as JSON in its one argument. */
export interface BundleRequest {
  /** esbuild's JavaScript API (its package's lib/main.js), shown in the sandbox. */
  esbuild: string;
  /** The bundler's working folder; paths in refusals are told from here. */
  runRoot: string;
  /** The only folder whose files an entry may import (the submission's src/). */
  folder: string;
  /** The packages the course allows (course.yaml's `packages:`): left as imports. */
  packages: readonly string[];
  /** The run root's TypeScript options, read by the grader: esbuild reads no tsconfig.json itself. */
  tsconfig?: TsconfigRaw;
  /** Each entry, and the path its bundle will have (which its source map's paths are relative to). */
  entries: readonly { entry: string; outfile: string }[];
  /** Where the i-th bundle is written, as `<i>.mjs` and `<i>.mjs.map`. */
  output: string;
  /** A bundle or map larger than this is refused, not written. */
  maxBytes: number;
}

/** What came of each entry, in order: its bundle written, or why there is none. */
export type BundleOutcome = { built: true } | { refused: string };

/** The pipe the outcome line goes on (the grader's first extra pipe). */
const OUTCOME_FD = 3;

/** The environment variable that names the fd of the go, where the bundler was started ahead (spawn.ts's GO_FD). */
const GO_FD = 'THEINFERENCE_GO_FD';

const request = JSON.parse(process.argv[2] ?? '') as BundleRequest;
const esbuild = (await import(pathToFileURL(request.esbuild).href)) as typeof import('esbuild');
// Started ahead, it bundles once before the go, and throws that away: esbuild's service and this process's
// plugin code are warm when the save comes (a cold first build takes twice as long).
if (process.env[GO_FD] !== undefined) await Promise.all(request.entries.map((entry) => build(entry).catch(() => undefined)));
await go();
const outcomes = await Promise.all(request.entries.map(bundleOne));
// on its own pipe, which the grader reads without waiting for this process to end
writeSync(OUTCOME_FD, `${JSON.stringify({ outcomes })}\n`);

/** Waits for the go, where there is one to wait for: the first line on its fd. */
async function go(): Promise<void> {
  const fd = process.env[GO_FD];
  if (fd === undefined) return;
  for await (const _chunk of createReadStream('', { fd: Number(fd) })) return;
}

/** One entry's build, in memory. */
function build({ entry, outfile }: { entry: string; outfile: string }) {
  return esbuild.build({
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    entryPoints: [entry],
    outfile,
    absWorkingDir: request.runRoot,
    ...(request.tsconfig && { tsconfigRaw: request.tsconfig }),
    plugins: [confine({ entries: [entry], folder: request.folder, base: request.runRoot, packages: request.packages })],
    logOverride: Object.fromEntries(Object.keys(COMPUTED_IMPORTS).map((id) => [id, 'error'])),
    sourcemap: 'external', // made, not linked from the bundle: node never reads it
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
}

async function bundleOne({ entry, outfile }: { entry: string; outfile: string }, index: number): Promise<BundleOutcome> {
  try {
    const { outputFiles, metafile } = await build({ entry, outfile });
    const computed = computedImportIn(metafile);
    if (computed !== undefined) return { refused: computed };
    const code = outputFiles.find((file) => file.path === resolve(outfile));
    const map = outputFiles.find((file) => file.path === `${resolve(outfile)}.map`);
    if (code === undefined || map === undefined) throw new Error(`esbuild made no bundle of ${entry}`);
    if (code.contents.length > request.maxBytes || map.contents.length > request.maxBytes) {
      return { refused: `the bundle of your code is larger than ${request.maxBytes / 1024 / 1024} MiB` };
    }
    writeFileSync(join(request.output, `${index}.mjs`), code.contents);
    writeFileSync(join(request.output, `${index}.mjs.map`), map.contents);
    return { built: true };
  } catch (error) {
    const refusal = refusalOf((error as Partial<BuildFailure>).errors ?? []);
    if (refusal === undefined) throw error;
    return { refused: refusal };
  }
}
