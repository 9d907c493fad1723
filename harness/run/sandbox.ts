// A sandbox for every program the grader starts on a student's code: bubblewrap (`bwrap`), the
// namespace tool Flatpak is built on. Each program gets
// - a PID namespace: it sees only its own processes, and when it ends everything it started ends;
// - a mount namespace over an empty root: the system's programs and libraries, the parts of the
//   run root a program needs (program.ts, your_program.sh, src/, and of node_modules only the
//   packages it may load), all read-only, and a private /tmp of bounded size; never fixtures/, hidden
//   expected files, the grader's caches, reports or /proc. The run root's parts are a copy made for the
//   program alone (root-copies.ts says why: locks and the page cache go with an inode); the system
//   folders and node are the machine's own, shared by every program, and so are their locks and
//   cached pages: that is why the reports are sealed (docs/ci.md). Of cases/, only its own case's
//   inputs, at the same place for every case (showCase). Nothing else is writable: neither the root
//   that bwrap makes nor /dev (its /dev/shm too) is, since either would be memory of no bounded size;
// - a user namespace with every capability dropped, so that no read-only mount can be undone;
// - a network namespace of its own, with a loopback and nothing else: an HTTP case reaches its own
//   player through its gate (transports/http/gate.ts), and nothing else on the machine (`--network` lifts it).
// The bundler, which reads the submission's files before anything runs, gets a sandbox of its own
// (bundlerJail): the submission's src/, what esbuild needs, and one folder to write its output in.
// Where bwrap is missing or cannot make namespaces, programs run as before (process-group kill,
// scrubbed env) and the report says `sandbox: none`.
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { caseCopy } from './case-copies.ts';
import { withoutNetwork, type Invocation } from './network.ts';
import { packageFolders } from './packages.ts';
import { memoryFilter } from './memory-filter.ts';
import { rootCopy, type ShownPart } from './root-copies.ts';
import { ARGS_FD, SECCOMP_FD } from './spawn.ts';

export type { Invocation };

export type SandboxKind = 'bwrap' | 'none';

/** Starts commands inside the sandbox of one run root. */
export interface Jail {
  readonly kind: SandboxKind;
  /** false: its programs reach no network, not even the grader's 127.0.0.1 (an HTTP player reaches them
   *  through a Unix socket, its gate, which program.ts relays). */
  readonly network: boolean;
  /** `command args` as started in a fresh sandbox that also shows `extraReadOnly` (absolute paths), and
   *  nothing of the run root yet: the start every program of the run root is made from (withRunRoot). */
  wrap(command: string, args: string[], extraReadOnly?: string[]): Invocation;
  /** `start` (from wrap) shown the run root's parts: in a sandbox, a copy made now for this one start,
   *  updated by the start's `update` and removed by its `cleanup`. */
  withRunRoot(start: Invocation): Invocation;
  /** `start` (from wrap) shown the run root's parts (withRunRoot) and one case's input folder, and the
   *  argument that names it there: `casePath` itself without a sandbox; in one, CASE_IN_SANDBOX for every case. */
  showCase(start: Invocation, caseDir: string, casePath: string): { start: Invocation; caseArg: string };
}

/** Where a sandboxed program finds its case's inputs, whichever case it is: the folder's name, its
 *  place in cases/ and its mount's source (a copy in a temporary folder of neutral name) say nothing of
 *  which case it is, or whether it is a public, a generated or a hidden one. */
export const CASE_IN_SANDBOX = 'case';

/** What of a run root a program may see: the driver, the student's code, the grader's scripts beside the
 *  bundle. Of node_modules, only the packages it may load (JailOptions.packages). */
export const VISIBLE_PARTS = ['program.ts', 'your_program.sh', 'package.json', 'tsconfig.json', 'src', '.theinference'];

/** Size of a program's private /tmp: memory, counted against --memory as it fills (its cgroup's count,
 *  or the grader's look at what its tmpfs hold). */
const TMP_BYTES = 64 * 1024 * 1024;

/** After every option on the fd (where a case's folder and its gate are added last, the gate under
 *  /dev/shm): /dev (its /dev/shm, a folder of its tmpfs, with it) and the root bwrap makes, tmpfs of no
 *  bounded size, read-only once everything is mounted on them. */
const READ_ONLY_ROOT = ['--remount-ro', '/dev', '--remount-ro', '/'];

/** The most tasks (processes and their threads) a program's sandbox may hold. A client and a server it
 *  starts need a few dozen (a Node process runs about ten threads); one that forks without end is
 *  refused more (EAGAIN) by the kernel, before it fills the machine's table of processes. The kernel
 *  counts them in the sandbox's own user namespace, and for every user but root (RLIMIT_NPROC). */
export const MAX_TASKS = 512;

/** The system folders a program's interpreter and shell need. */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];
/** The few files of /etc that name resolution, TLS and user names read; never the rest. */
const SYSTEM_FILES = [
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/localtime',
  '/etc/ssl',
  '/etc/ca-certificates',
];

export interface JailOptions {
  /** false: run without a sandbox even where one can be made (`--no-sandbox`). */
  sandbox: boolean;
  /** true: the machine's network; false: none, even without a sandbox (through unshare); unset: none in
   *  a sandbox, the machine's without one (a student's laptop without bubblewrap still grades). */
  network?: boolean;
  /** The packages of the run root's node_modules a program may load, their dependencies with them: the
   *  course's allowed ones, and tsx where programs compile their TypeScript as they start. */
  packages?: readonly string[];
}

/** Whether bwrap can make a sandbox here, and why not when it cannot. Probed once per process. */
let probed: { available: boolean; reason?: string } | undefined;

export function sandboxAvailability(): { available: boolean; reason?: string } {
  if (probed) return probed;
  if (process.platform !== 'linux') return (probed = { available: false, reason: `${process.platform} has no Linux namespaces` });
  // the options every sandbox uses (--size needs bubblewrap 0.7 or later)
  const probe = spawnSync('bwrap', [...tmpArgs(), ...systemArgs(), '--unshare-user', '--unshare-pid', '--proc', '/proc', '--', 'true'], {
    encoding: 'utf8',
    timeout: 5000,
  });
  if (probe.error) {
    const code = (probe.error as NodeJS.ErrnoException).code;
    return (probed = { available: false, reason: code === 'ENOENT' ? 'bwrap is not installed' : `bwrap: ${code ?? probe.error.message}` });
  }
  if (probe.status !== 0)
    return (probed = { available: false, reason: `bwrap cannot make namespaces here: ${probe.stderr.trim().split('\n')[0] ?? `exit ${probe.status}`}` });
  return (probed = { available: true });
}

/** How to make a sandbox where there is none: one line for an error message. */
export const ENABLE_SANDBOX =
  'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow user namespaces (see docs/ci.md), or grade with --no-sandbox';

export function jailFor(runRoot: string, options: JailOptions): Jail {
  if (!options.sandbox || !sandboxAvailability().available) return plainJail(options.network !== false);
  const network = options.network === true;
  // The same for every program of this run root: worked out once.
  const shown = [
    ...tmpArgs(), // first: the run root may be under /tmp, and its parts are shown over it
    ...systemArgs(),
    ...nodeArgs(),
  ];
  const parts = [...VISIBLE_PARTS.map((part) => join(runRoot, part)), ...packageFolders(join(runRoot, 'node_modules'), options.packages ?? [])].flatMap(
    (path): ShownPart[] => (existsSync(path) ? [{ source: realpathSync(path), shown: path }] : []),
  );
  const environment = sandboxEnvironment();
  const namespaces = namespaceArgs(network, runRoot);
  const tasks = taskLimit();
  const withRunRoot = (start: Invocation): Invocation => {
    const copy = rootCopy(runRoot, parts);
    return { ...start, argsFd: withArgs(start, copy.args), update: copy.update, cleanup: both(start.cleanup, copy.release) };
  };
  return {
    kind: 'bwrap',
    network,
    // Its options on a pipe, not its command line: inside, /proc/1/cmdline (its init) would show the host's paths.
    wrap: (command, args, extraReadOnly = []) => ({
      command: 'bwrap',
      args: ['--args', String(ARGS_FD), ...READ_ONLY_ROOT, '--', ...tasks, command, ...args],
      argsFd: `${[...shown, ...extraReadOnly.flatMap(visible), ...namespaces].join('\0')}\0`,
      env: environment,
    }),
    withRunRoot,
    showCase: (start, caseDir) => {
      const own = withRunRoot(start);
      let copy: ReturnType<typeof caseCopy>;
      try {
        copy = caseCopy(caseDir);
      } catch (error) {
        own.cleanup?.();
        throw error;
      }
      return {
        start: { ...own, argsFd: withArgs(own, ['--ro-bind', copy.path, join(runRoot, CASE_IN_SANDBOX)]), cleanup: both(own.cleanup, copy.release) },
        caseArg: CASE_IN_SANDBOX,
      };
    },
  };
}

/** `start`'s sandbox options, and `args` after them. */
function withArgs(start: Invocation, args: readonly string[]): string | undefined {
  return args.length === 0 ? start.argsFd : `${start.argsFd ?? ''}${args.join('\0')}\0`;
}

/** Both removals, in turn. */
function both(first: (() => void) | undefined, then: () => void): () => void {
  return () => {
    try {
      first?.();
    } finally {
      then();
    }
  };
}

/** Where the bundler runs: it sees `readOnly` (the submission's src/, the entries, esbuild, its own
 *  script), writes only `output` (an empty folder of its own), and reaches no network, ever. */
export interface BundlerJail {
  readonly kind: SandboxKind;
  wrap(command: string, args: string[]): Invocation;
}

export function bundlerJail(parts: { readOnly: readonly string[]; output: string; chdir: string }, options: { sandbox: boolean }): BundlerJail {
  if (!options.sandbox || !sandboxAvailability().available) return { kind: 'none', wrap: (command, args) => ({ command, args }) };
  const sandbox = [
    ...tmpArgs(),
    ...systemArgs(),
    ...nodeArgs(),
    ...parts.readOnly.flatMap(visible),
    ...['--bind', parts.output, parts.output],
    ...namespaceArgs(false, parts.chdir),
  ];
  return {
    kind: 'bwrap',
    wrap: (command, args) => ({
      command: 'bwrap',
      args: ['--args', String(ARGS_FD), ...READ_ONLY_ROOT, '--', command, ...args],
      argsFd: `${sandbox.join('\0')}\0`,
      env: sandboxEnvironment(),
    }),
  };
}

/** The namespaces of every sandbox: all but the network's unless it is given, a read-only /dev, the
 *  filter of what memory the grader cannot count (memory-filter.ts; spawn.ts gives it on SECCOMP_FD),
 *  and its working folder. */
function namespaceArgs(network: boolean, chdir: string): string[] {
  return [
    '--unshare-user',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(network ? [] : ['--unshare-net']),
    '--die-with-parent', // the grader's kill of bwrap ends the namespace, and so everything in it
    '--new-session', // no controlling terminal to push keystrokes into
    '--proc',
    '/proc',
    '--dev', // read-only once all is mounted (READ_ONLY_ROOT)
    '/dev',
    ...(memoryFilter() ? ['--seccomp', String(SECCOMP_FD)] : []),
    // made where nothing shown is under it (a bundler shown a src/ kept elsewhere)
    '--dir',
    chdir,
    '--chdir',
    chdir,
  ];
}

/** No sandbox: programs run as they are (network off through unshare when asked). */
function plainJail(network: boolean): Jail {
  const offline = network ? undefined : withoutNetwork();
  return {
    kind: 'none',
    network,
    wrap: (command, args) => (offline ? offline({ command, args }) : { command, args }),
    withRunRoot: (start) => start,
    showCase: (start, _caseDir, casePath) => ({ start, caseArg: casePath }),
  };
}

/** A path shown read-only at the same place, when it exists (a symbolic link: what it points to). */
function visible(path: string): string[] {
  return existsSync(path) ? ['--ro-bind', realpathSync(path), path] : [];
}

/** What of a program's environment names the host, told as the sandbox sees it: HOME is its private /tmp,
 *  PATH only the folders it shows. Set on bwrap itself, whose environment its init shows in /proc/1. */
function sandboxEnvironment(): Record<string, string> {
  const shownDirs = [...SYSTEM_DIRS, dirname(dirname(realpathSync(process.execPath)))];
  const path = (process.env.PATH ?? '').split(':').filter((dir) => shownDirs.some((shown) => dir === shown || dir.startsWith(`${shown}/`)));
  return { HOME: '/tmp', PATH: path.length > 0 ? [...new Set(path)].join(':') : '/usr/bin:/bin' };
}

function systemArgs(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    const stat = lstatSync(dir, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink())
      args.push('--symlink', readlinkSync(dir), dir); // merged /usr: /bin -> usr/bin
    else if (stat?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const file of SYSTEM_FILES) args.push('--ro-bind-try', file, file);
  return args;
}

/** The node that runs programs, where it is not under /usr (nvm, a CI tool cache): its install folder. */
function nodeArgs(): string[] {
  const prefix = dirname(dirname(realpathSync(process.execPath)));
  return prefix === '/usr' || prefix.startsWith('/usr/') ? [] : ['--ro-bind', prefix, prefix];
}

/** Sets MAX_TASKS inside the sandbox, where the count is the sandbox's alone (set outside, before
 *  bubblewrap makes its user namespace, it would be compared with all the user's processes too), and
 *  then runs the command in its place: util-linux's prlimit, where the system folders have it. */
function taskLimit(): string[] {
  const prlimit = ['/usr/bin/prlimit', '/bin/prlimit'].find((path) => existsSync(path));
  return prlimit === undefined ? [] : [prlimit, `--nproc=${MAX_TASKS}`, '--'];
}

/** A private, bounded /tmp; and TMPDIR, when it names another folder, a private one there too. */
function tmpArgs(): string[] {
  const dirs = ['/tmp'];
  const tmpdir = process.env.TMPDIR;
  if (tmpdir && tmpdir !== '/tmp' && tmpdir.startsWith('/')) dirs.push(tmpdir);
  return dirs.flatMap((dir) => ['--size', String(TMP_BYTES), '--tmpfs', dir]);
}
