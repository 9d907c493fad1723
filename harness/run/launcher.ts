// How a case's program is started. The contract is `your_program.sh <command> <case>`; when
// your_program.sh is the course's own (it only runs `node --import tsx program.ts`), the same
// code is bundled once per grade with esbuild, in the bundler's own sandbox (bundle.ts), and started
// with plain `node`: a third of the cost per case, for the same bytes on stdout. Anything else runs
// your_program.sh itself. Either way the program starts inside the run root's sandbox (sandbox.ts),
// where there is one, which shows it of node_modules only the packages it may load, and each case's
// program a copy of the run root's parts of its own (showCase, root-copies.ts). The same run of
// the bundler bundles the student's module alone, for the property oracle.
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeAtomically } from '../files.ts';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CourseError } from '../course.ts';
import { bundle, BundleRefusal, BundlerFailure, prestartBundles, sweepBundles, type BundleEntry, type Bundled, type BundlesAhead } from './bundle.ts';
import type { PositionMapper } from './source-positions.ts';
import { jailFor, type Invocation, type Jail } from './sandbox.ts';

export const PROGRAM = 'your_program.sh';
const CANONICAL_PROGRAM = readFileSync(join(import.meta.dirname, '..', '..', PROGRAM), 'utf8');
/** One bundle per grader process: several graders may share a course (CI shards, a test suite),
 *  and none may run a bundle that another is still writing. */
const BUNDLE = join('.theinference', `program-${process.pid}.mjs`);
/** The student's module bundled alone, for the property oracle (visible in its sandbox). */
const MODULE_BUNDLE = join('.theinference', `module-${process.pid}.mjs`);
/** The student's module, which the property oracle loads. */
const MODULE = join('src', 'mcp.ts');
const WARM_START = join('.theinference', 'warm-start.mjs');
/** What a program loads before it runs: fetch, for one that talks HTTP (preload.mjs says why). */
const PRELOAD = join('.theinference', 'preload.mjs');
/** From harness/ or lib/ alike: these scripts are plain JavaScript, kept in harness/. */
const HARNESS = join(import.meta.dirname, '..', '..', 'harness');
/** The server a case's .mcp.json names, started by the student's spawnWire (harness/case-server/): shown
 *  in the sandbox at .theinference/case-server/, where program.ts puts it on the PATH. */
const CASE_SERVER_FILES = [
  { file: 'theinference-case-server', mode: 0o755 },
  { file: 'package.json', mode: 0o644 },
];

/** `args`: the arguments before `<command> <case>`. */
export interface Launcher extends Invocation {
  /** The same program started ahead of time, to wait for a go (warm-start.mjs) before it runs: where the
   *  course's own your_program.sh is bundled. */
  warm?: Invocation;
  /** The same program for a case that talks HTTP (THEINFERENCE_FETCH=1), with fetch loaded first (preload.mjs). */
  fetching?: Invocation;
  /** The waiting script itself, in the run root, where `warm` is: any plain-JavaScript program of the
   *  run root can be started ahead through it (the property oracle). */
  warmStart?: string;
  /** The sandbox the command starts in; other programs of the same run root (the property oracle) start in one like it. */
  jail: Jail;
  /** Where the program is a bundle: its stack traces' positions told in the sources' (it runs without source maps). */
  positions?: PositionMapper;
  /** Where the program and the module are bundles: their digests (Bundle's) together. Two launchers with
   *  the same run the same code, printing the same positions, in their cases and property oracles. */
  digest?: string;
  /** Why no program is started: the submission imports what the grader may not read (confine.ts). */
  refused?: string;
  /** The student's module bundled alone for the property oracle, or why there is none; a BundlerFailure
   *  (the bundler itself failed, the grader's trouble) means nothing can be started. */
  module: Bundled | BundlerFailure;
}

export interface LaunchOptions {
  bundle: boolean;
  /** true: the machine's network; false: none, sandbox or not; unset: its own where sandboxed (sandbox.ts). */
  network?: boolean;
  /** false: no sandbox even where one can be made (`--no-sandbox`). */
  sandbox?: boolean;
  /** The packages the course allows a submission to import (course.yaml's `packages:`); default none. */
  packages?: readonly string[];
  /** This launcher's bundles, started ahead (prestartLauncher): released instead of a fresh run. */
  ahead?: BundlesAhead;
}

export async function launcher(runRoot: string, options: LaunchOptions): Promise<Launcher> {
  for (const { file, mode } of CASE_SERVER_FILES) install(join(HARNESS, 'case-server', file), join(runRoot, '.theinference', 'case-server', file), mode);
  const start = await ownLauncher(runRoot, options);
  // A bundle needs nothing of node_modules but the packages the course allows; tsx compiles as it starts.
  const packages = [...(options.packages ?? []), ...(start.command === process.execPath ? [] : ['tsx'])];
  const jail = jailFor(runRoot, { sandbox: options.sandbox ?? true, network: options.network, packages });
  const warm = start.warm && jail.wrap(start.warm.command, start.warm.args);
  const fetching = start.fetching && jail.wrap(start.fetching.command, start.fetching.args);
  return {
    ...jail.wrap(start.command, start.args),
    ...(warm && { warm, warmStart: start.warmStart }),
    ...(fetching && { fetching }),
    jail,
    ...(start.positions && { positions: start.positions }),
    ...(start.digest && { digest: start.digest }),
    ...(start.refused && { refused: start.refused }),
    module: start.module,
  };
}

/** The bundles the next launcher of this run root will take (watch mode, between saves), started now. */
export function prestartLauncher(runRoot: string, options: LaunchOptions): BundlesAhead {
  return prestartBundles(bundleEntries(runRoot, options), bundleOptions(runRoot, options));
}

/** Where the student's module is bundled for the property oracle of this grader process. */
export function moduleBundlePath(runRoot: string): string {
  return join(runRoot, MODULE_BUNDLE);
}

/** What to bundle: the module alone always (the property oracle loads it), the driver with it where
 *  it is started bundled. */
function bundleEntries(runRoot: string, options: LaunchOptions): BundleEntry[] {
  const module = { entry: join(runRoot, MODULE), outfile: moduleBundlePath(runRoot) };
  return programBundled(runRoot, options) ? [module, { entry: join(runRoot, 'program.ts'), outfile: join(runRoot, BUNDLE) }] : [module];
}

function programBundled(runRoot: string, options: LaunchOptions): boolean {
  return options.bundle && readFileSync(join(runRoot, PROGRAM), 'utf8') === CANONICAL_PROGRAM;
}

function bundleOptions(runRoot: string, options: LaunchOptions) {
  return { runRoot, folder: join(runRoot, 'src'), packages: options.packages ?? [], sandbox: options.sandbox ?? true };
}

async function ownLauncher(runRoot: string, options: LaunchOptions): Promise<Omit<Launcher, 'jail'>> {
  const script = { command: join(runRoot, PROGRAM), args: [] };
  sweepBundles(join(runRoot, dirname(BUNDLE)));
  let bundled: Bundled[];
  try {
    bundled = options.ahead ? await options.ahead.release() : await bundle(bundleEntries(runRoot, options), bundleOptions(runRoot, options));
  } catch (error) {
    if (!(error instanceof BundlerFailure)) throw error;
    return { ...script, module: error };
  }
  const [module, program] = bundled as [Bundled, Bundled | undefined];
  if (program === undefined) return { ...script, module };
  // The waiting script and what it loads go beside the bundle, which the sandbox shows.
  const warmStart = join(runRoot, WARM_START);
  install(join(HARNESS, 'run', 'warm-start.mjs'), warmStart, 0o644);
  const bundlePath = join(runRoot, BUNDLE);
  const warm = { command: process.execPath, args: [warmStart, bundlePath] };
  // Nothing runs, but the next save's programs may be started ahead all the same (watch mode): they load
  // the bundle only on their go, once that save has bundled it (their copies of the run root take it
  // then: root-copies.ts), so that the fix is as quick as any save.
  if (program instanceof BundleRefusal) return { ...script, refused: program.message, module, warm, warmStart };
  const preload = join(runRoot, PRELOAD);
  install(join(HARNESS, 'run', 'preload.mjs'), preload, 0o644);
  return {
    command: process.execPath,
    args: [program.path],
    warm,
    fetching: { command: process.execPath, args: ['--import', pathToFileURL(preload).href, program.path] },
    warmStart,
    positions: program.positions,
    ...(!(module instanceof BundleRefusal) && { digest: `${program.digest} ${module.digest}` }),
    module,
  };
}

/** A script of the harness copied into the run root's .theinference/: written only when it differs, and
 *  atomically, since programs started ahead may be reading it as it is written. */
function install(source: string, target: string, mode: number): void {
  const text = harnessScript(source);
  if (existsSync(target) && readFileSync(target, 'utf8') === text) return;
  mkdirSync(dirname(target), { recursive: true });
  writeAtomically(target, text, { overwrite: true, mode });
}

/** The harness's own scripts, read once per grader process (watch makes a launcher on every save). */
const scripts = new Map<string, string>();
function harnessScript(path: string): string {
  let text = scripts.get(path);
  if (text === undefined) scripts.set(path, (text = readFileSync(path, 'utf8')));
  return text;
}

/** your_program.sh must be there and executable before anything is graded. */
export function checkProgram(runRoot: string): void {
  const path = join(runRoot, PROGRAM);
  try {
    accessSync(path, constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CourseError(
      code === 'ENOENT'
        ? `${PROGRAM} is missing in ${runRoot} (the grader runs \`./${PROGRAM} <command> <case-dir>\`)`
        : `${PROGRAM} is not executable (run \`chmod +x ${PROGRAM}\`)`,
    );
  }
  readFileSync(path); // readable, too
}
