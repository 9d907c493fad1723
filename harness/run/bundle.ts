// A TypeScript entry and what it imports from the submission's src/, bundled into one plain-JavaScript
// module with esbuild: what the grader starts with bare `node` instead of compiling through tsx at
// every start. The bundler reads the submission's files, so it runs in a sandbox of its own
// (sandbox.ts's bundlerJail): it sees src/, the entries, esbuild and its own script, writes one empty
// folder, reaches no network, and runs under limits of CPU time, memory and output like a program's.
// The grader reads back only the files it wrote there, bounded. Each run is a fresh process, used
// once; watch mode starts the next one ahead (prestartBundles), and the save releases it.
// The source map stays with the grader, which tells stack traces in the student's files and lines.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire, type SourceMapPayload } from 'node:module';
import { dirname, join } from 'node:path';
import type { TsconfigRaw } from 'esbuild';
import { writeAtomically } from '../files.ts';
import { harnessScript } from '../own-module.ts';
import type { BundleOutcome, BundleRequest } from './bundle-worker.ts';
import { MAX_BUNDLE_INPUT_BYTES, readRegularFile } from './confine.ts';
import { programEnv } from './env.ts';
import { prestart } from './prestart.ts';
import { bundlerJail } from './sandbox.ts';
import { sourcePositions, type PositionMapper } from './source-positions.ts';
import { DEFAULT_LIMITS, runCommand, type Limits, type RunOptions, type RunResult } from './spawn.ts';
import type { Invocation } from './network.ts';
import { running } from '../processes.ts';
import { scratchFolder } from '../scratch.ts';

export interface Bundle {
  path: string;
  /** Rewrites the bundle's positions in what it prints as the sources' (source-positions.ts). */
  positions: PositionMapper;
  /** A digest of the code and of where each of its positions is in the sources (the map's mappings):
   *  two bundles with the same run the same and print the same. A comment's or a type's words, which
   *  esbuild drops, change neither; a line added above code moves its positions, which a crash prints. */
  digest: string;
}

/** Why a bundle was refused: one line, `<file>:<line>:<column>: <what>`; the submission's doing. */
export class BundleRefusal {
  constructor(readonly message: string) {}
}

/** The bundler itself failed (it could not start, or crashed on its own): the grader's trouble, never a verdict on the code. */
export class BundlerFailure extends Error {}

export type Bundled = Bundle | BundleRefusal;

export interface BundleOptions {
  /** The run root: the bundler's working folder, where tsconfig.json is read (the course's, in CI). */
  runRoot: string;
  /** The only folder whose files an entry may import (the submission's src/). */
  folder: string;
  /** The packages the course allows a submission to import (course.yaml's `packages:`). */
  packages: readonly string[];
  /** false: no sandbox even where one can be made (`--no-sandbox`); the plugin's checks still hold. */
  sandbox: boolean;
}

export interface BundleEntry {
  entry: string;
  outfile: string;
}

/** A bundle or map larger than this is refused: more than its inputs may be, with room for the driver. */
const MAX_BUNDLE_BYTES = 2 * MAX_BUNDLE_INPUT_BYTES;

/** What one run of the bundler may use: a bundle of the largest src/ allowed takes a fraction of it. */
const BUNDLER_LIMITS: Limits = { ...DEFAULT_LIMITS, timeoutMs: 10_000, outputCap: 64 * 1024 };

/** Bundles each entry into its outfile in one run of the bundler, in its sandbox. Refusals (an import the
 *  course does not allow, a way out of src/, code that does not compile, a limit) come back per entry;
 *  a bundler that could not run throws BundlerFailure. */
export function bundle(entries: readonly BundleEntry[], options: BundleOptions): Promise<Bundled[]> {
  const run = bundlerRun(entries, options);
  return run.finish((onPipes) => runCommand(run.start, [], { ...run.options, onPipes }));
}

/** The same run started now and waiting (watch mode, between saves); `release` has it read the files as
 *  they are then. */
export interface BundlesAhead {
  release(signal?: AbortSignal): Promise<Bundled[]>;
  cancel(): void;
}

export function prestartBundles(entries: readonly BundleEntry[], options: BundleOptions): BundlesAhead {
  const run = bundlerRun(entries, options);
  const started = prestart(run.start, [], run.options);
  return {
    release: (signal) => run.finish((onPipes) => started.release({ onPipes }, signal)),
    cancel: () => {
      started.cancel();
      run.discard();
    },
  };
}

interface BundlerRun {
  start: Invocation;
  options: Omit<RunOptions, 'release' | 'signal' | 'onPipes'>;
  /** Runs it with its outcome pipe heard: the bundles, read back bounded and put in place, as soon as it
   *  says what came of them (its process ends meanwhile, under its limits); or what stopped it. */
  finish(run: (onPipes: (pipes: NodeJS.ReadWriteStream[]) => void) => Promise<RunResult>): Promise<Bundled[]>;
  discard(): void;
}

function bundlerRun(entries: readonly BundleEntry[], options: BundleOptions): BundlerRun {
  const output = scratchFolder('bundle');
  const esbuild = esbuildFiles();
  const worker = harnessScript(import.meta.url, './bundle-worker');
  const request: BundleRequest = {
    esbuild: esbuild.main,
    runRoot: options.runRoot,
    folder: options.folder,
    packages: options.packages,
    tsconfig: tsconfigOf(options.runRoot),
    entries,
    output,
    maxBytes: MAX_BUNDLE_BYTES,
  };
  const jail = bundlerJail(
    { readOnly: [options.folder, ...entries.map(({ entry }) => entry), ...esbuild.files, ...worker.files], output, chdir: options.runRoot },
    options,
  );
  const env = { ...programEnv(), ...(esbuild.binary && { ESBUILD_BINARY_PATH: esbuild.binary }) };
  const discard = () => rmSync(output, { recursive: true, force: true });
  return {
    start: jail.wrap(process.execPath, [worker.script, JSON.stringify(request)]),
    options: { cwd: options.runRoot, env, limits: BUNDLER_LIMITS, contained: jail.kind === 'bwrap', stdin: '', extraPipes: 1 },
    finish: async (run) => {
      const outcome = new OutcomeLine();
      const ended = run(([pipe]) => outcome.hear(pipe));
      try {
        // what it says, read as soon as it is said; only a bundler that ends without saying is waited for
        const said = await Promise.race([outcome.said, ended.then(() => outcome.afterEnd())]);
        const outcomes = said === undefined ? outcomesOf(await ended, entries.length) : outcomesSaid(said, entries.length);
        return entries.map((entry, index) => collectOne(entry, outcomes[index]!, index, output));
      } finally {
        void ended.finally(discard);
      }
    },
    discard,
  };
}

/** The line the bundler writes on fd 3 (BundleOutcome per entry, as JSON), bounded: `said` resolves
 *  with it, or with nothing once the pipe is closed without it (the bundler ended, or never had one). */
export class OutcomeLine {
  readonly said: Promise<string | undefined>;
  private resolve!: (line: string | undefined) => void;
  private chunks: Buffer[] = [];
  private size = 0;
  private heard = false;
  private lineEnded = false;

  constructor() {
    this.said = new Promise((resolve) => (this.resolve = resolve));
  }

  /** Once the bundler has ended: what its pipe said, which closes with it; nothing, where it never had one. */
  afterEnd(): Promise<string | undefined> {
    return this.heard ? this.said : Promise.resolve(undefined);
  }

  hear(pipe: NodeJS.ReadWriteStream | undefined): void {
    if (pipe === undefined) return this.resolve(undefined);
    this.heard = true;
    pipe.on('error', () => this.resolve(undefined));
    pipe.on('close', () => this.resolve(undefined));
    // each chunk is looked at once: the line is joined when its end comes, not at every chunk of it
    pipe.on('data', (chunk: Buffer) => {
      if (this.lineEnded || this.size > BUNDLER_LIMITS.outputCap) return;
      const end = chunk.indexOf(0x0a);
      this.chunks.push(end === -1 ? chunk : chunk.subarray(0, end));
      this.size += chunk.length;
      if (end === -1) return;
      this.lineEnded = true;
      this.resolve(Buffer.concat(this.chunks).toString('utf8'));
      this.chunks = [];
    });
  }
}

function outcomesSaid(line: string, count: number): BundleOutcome[] {
  let outcomes: BundleOutcome[] | undefined;
  try {
    outcomes = (JSON.parse(line) as { outcomes?: BundleOutcome[] }).outcomes;
  } catch {
    outcomes = undefined;
  }
  if (outcomes?.length !== count) throw new BundlerFailure(`the bundler said what it cannot have: ${line.slice(0, 200)}`);
  return outcomes;
}

/** What stopped a bundler that ended without saying what came of its bundles: a limit is the
 *  submission's doing, a bundler that could not start or crashed is the grader's. */
function outcomesOf(result: RunResult, count: number): BundleOutcome[] {
  const limit = limitReached(result);
  if (limit) return Array<BundleOutcome>(count).fill({ refused: `bundling your code ${limit}` });
  if (result.startError) throw new BundlerFailure(`the bundler could not start: ${result.startError.message}`);
  const why =
    result.stderr
      .toString('utf8')
      .trim()
      .split('\n')
      .find((line) => line.trim() !== '') ?? `exit ${result.exitCode ?? result.signal}`;
  throw new BundlerFailure(`the bundler failed: ${why.slice(0, 300)}`);
}

function limitReached(result: RunResult): string | undefined {
  if (result.timeLimit === 'cpu') return `used more than ${BUNDLER_LIMITS.timeoutMs / 1000} s of CPU time and was stopped`;
  if (result.timeLimit === 'wall') return 'took too long and was stopped';
  if (result.outOfMemory) return `used more than ${(BUNDLER_LIMITS.memoryBytes ?? 0) / 1024 / 1024} MiB of memory and was stopped`;
  if (result.flooded) return `made the bundler print more than ${BUNDLER_LIMITS.outputCap / 1024} KiB and was stopped`;
  return undefined;
}

function collectOne({ outfile }: BundleEntry, outcome: BundleOutcome, index: number, output: string): Bundled {
  if ('refused' in outcome) return new BundleRefusal(outcome.refused);
  const code = readRegularFile(join(output, `${index}.mjs`), MAX_BUNDLE_BYTES);
  const map = readRegularFile(join(output, `${index}.mjs.map`), MAX_BUNDLE_BYTES);
  if (typeof code === 'string' || typeof map === 'string')
    throw new BundlerFailure(`the bundler's output is unusable: ${[code, map].find((read) => typeof read === 'string')}`);
  mkdirSync(dirname(outfile), { recursive: true });
  if (written.size === 0) process.once('exit', removeWritten);
  written.add(outfile);
  // atomically: programs started ahead may be about to load it
  writeAtomically(outfile, code, { overwrite: true });
  const payload = JSON.parse(Buffer.from(map).toString('utf8')) as SourceMapPayload;
  const digest = createHash('sha256')
    .update(code)
    .update(JSON.stringify([payload.sources, payload.mappings]))
    .digest('hex');
  return { path: outfile, positions: sourcePositions(outfile, payload), digest };
}

/** esbuild's JavaScript API, its binary for this machine, and what of them a sandbox must show. */
interface EsbuildFiles {
  main: string;
  binary?: string;
  files: string[];
}

let esbuildFound: EsbuildFiles | undefined;

function esbuildFiles(): EsbuildFiles {
  if (esbuildFound) return esbuildFound;
  const require = createRequire(import.meta.url);
  const main = require.resolve('esbuild');
  const packageDir = dirname(dirname(main)); // <esbuild>/lib/main.js
  const files = [packageDir];
  let binary: string | undefined;
  try {
    // the binary package esbuild would find for itself (Linux: @esbuild/linux-<arch>)
    const binaryPackage = dirname(createRequire(main).resolve(`@esbuild/${process.platform}-${process.arch}/package.json`));
    binary = join(binaryPackage, 'bin', 'esbuild');
    files.push(binaryPackage);
  } catch {
    // elsewhere esbuild finds its binary itself, where no sandbox shows only parts of the disk
  }
  return (esbuildFound = { main, ...(binary && { binary }), files });
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
    if (pid > 0 && !running(pid)) rmSync(join(folder, name), { force: true });
  }
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
