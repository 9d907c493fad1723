// Runs one program under limits: a limit on the CPU time its processes use together (a busy
// machine slows a program down but does not make it use more CPU, so load cannot fail a correct
// program), a far wall-time backstop for a program that waits forever, a cap on what it may
// print, a memory limit, and a kill of its whole process group (grandchildren included) however it
// ends, plus of any process it started that left the group (setsid, a daemon). In a sandbox
// (`contained`) the kill of the leader ends everything in its PID namespace. A sandbox's memory is
// counted by a cgroup of its own where the machine gives one (cgroup.ts), else by the grader (its
// processes' resident memory and what its tmpfs hold) with what it cannot see refused
// (memory-filter.ts). Never throws for anything the program does; a program that could not be
// started comes back as `startError`.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readSync } from 'node:fs';
import type { Duplex } from 'node:stream';
import { DEFAULT_MEMORY_BYTES, STARVED_WALL_FACTOR, WALL_FACTOR } from '../defaults.ts';
import { IdleClock } from '../processes.ts';
import { type MemoryCounted, ProgramCgroup } from './cgroup.ts';
import { closeInheritedFds } from './inherited-fds.ts';
import { memoryFilter } from './memory-filter.ts';
import type { Invocation } from './network.ts';
import { afterProgress, progressNow } from './progress.ts';
import { killStrays, ProgramProcesses, RUN_MARK } from './program-processes.ts';

export interface Limits {
  /** CPU time (user + system) of all its processes together. */
  timeoutMs: number;
  /** Wall time, for a program that waits forever without using CPU; default WALL_FACTOR × timeoutMs. */
  wallMs?: number;
  /** Bytes kept of stdout and of stderr each; a program that prints more is stopped. */
  outputCap: number;
  /** Memory of all its processes together; past it the group is stopped. In a sandbox with a cgroup, all
   *  the kernel charges to it; otherwise their resident memory (Linux: read from /proc) and, in a
   *  sandbox, what its tmpfs hold. */
  memoryBytes?: number;
}

export const DEFAULT_LIMITS: Limits = { timeoutMs: 10_000, outputCap: 1024 * 1024, memoryBytes: DEFAULT_MEMORY_BYTES };

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  limits: Limits;
  /** Written to the program's stdin, which is then closed. */
  stdin?: string;
  /** Extra pipes beyond stdin/stdout/stderr (fd 3, 4, ...), handed to `onPipes`. */
  extraPipes?: number;
  onPipes?: (pipes: NodeJS.ReadWriteStream[]) => void;
  /** Aborting kills the program (used by watch mode when a newer save arrives). */
  signal?: AbortSignal;
  /** The command is a sandbox (sandbox.ts) whose end ends every process in it: nothing can leave it. */
  contained?: boolean;
  /** Written to fd ARGS_FD, which is then closed: the sandbox's own options (sandbox.ts). */
  argsFd?: string;
  /** Started ahead of time: the program (warm-start.mjs) waits for a line on one more pipe, whose fd
   *  its environment names (GO_FD), written when `release` resolves (`go <variables as JSON>`); its
   *  limits, its duration and `onPipes` (given with the release, for the other extra pipes) start then. */
  release?: Promise<Release>;
  /** Whether the other side (a cassette player) now waits for the program with nothing left to send it. */
  waitedOn?: () => boolean;
}

export interface Release {
  onPipes?: (pipes: NodeJS.ReadWriteStream[]) => void;
  /** Variables the program gets at the release, known only then (an HTTP player's URL). */
  env?: Record<string, string>;
  /** As RunOptions' waitedOn, known only at the release. */
  waitedOn?: () => boolean;
  /** The program is to say its end itself (warm-start.mjs) as it exits: it is graded then, and its
   *  processes, stopped, are killed only when `signal` aborts (the grading is over: prestart.ts). Their
   *  teardown, half of a small case's CPU (the kernel's, mostly), is off the clock. For a program that
   *  talks to nothing but its stdout and stderr (a player would wait for the connections it still
   *  holds), in a sandbox (`contained`: bwrap ends it with the grader; a stopped program outside one
   *  would outlive a grader killed outright). */
  sayEnd?: boolean;
}

/** The fd on which bwrap reads its options (`--args`): above every pipe a program is given. */
export const ARGS_FD = 9;
/** The fd on which bwrap reads its seccomp filter (`--seccomp`, memory-filter.ts), below ARGS_FD. */
export const SECCOMP_FD = 8;

/** The environment variable that tells a program started ahead which fd its go comes on. */
export const GO_FD = 'THEINFERENCE_GO_FD';

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Which time limit stopped it, when one did: its CPU time, or the wall-time backstop. */
  timeLimit?: 'cpu' | 'wall';
  /** CPU time its processes had used at the last measurement (0 where there is no /proc). */
  cpuMs: number;
  /** The program printed more than `outputCap` on stdout or stderr and was stopped. */
  flooded: 'stdout' | 'stderr' | undefined;
  stdout: Buffer;
  stderr: Buffer;
  /** Its processes together went past `limits.memoryBytes` and were stopped: by which count. */
  outOfMemory: false | Exclude<MemoryCounted, 'none'>;
  /** It did nothing for STUCK_MS while the other side waited for it (`waitedOn`), and was stopped: the
   *  session could not go on, and the wall backstop would have come only much later. */
  stuck?: true;
  durationMs: number;
  startError?: NodeJS.ErrnoException;
}

/** The longest line a program started ahead may say its end in (`end <code>`, warm-start.mjs). */
const END_LINE_MAX = 16;
/** How long a killed group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 300;
/** How long stdout/stderr may stay open after the program exits (a grandchild holding the pipe). */
const DRAIN_GRACE_MS = 200;
/** The same for a sandboxed program, where nothing outlives it to hold the pipes: their end is on its
 *  way, and only a machine stalled this long could delay it. Not the grace above, which a busy machine
 *  outlasted before the grader had read a byte of what a correct program printed. */
const SANDBOX_DRAIN_MS = 10_000;
/** How often the CPU time and memory of a program's known processes are measured, and how often all
 *  of /proc is read to find new ones (a busy machine has hundreds of processes: not every 100 ms). */
const POLL_MS = 100;
const DISCOVERY_MS = 500;
export { WALL_FACTOR };
/** The share of a core a program must have used since the last check to count as computing, not waiting. */
const COMPUTING_SHARE = 0.05;
/** How often (at most) a computing program past its wall backstop is looked at again. */
const RECHECK_MS = 1000;
/** How long a program may do nothing (no CPU used, no process runnable or in a disk wait) while the
 *  other side waits for it, in the grader's progress: long past any pause of a correct program, which
 *  computes or reads what it was sent. */
export const STUCK_MS = 2000;

/** A command as a launcher or a sandbox made it, with `args` after its own: its options on their fd,
 *  its variables over `options.env`. */
export function runCommand(start: Invocation, args: string[], options: RunOptions): Promise<RunResult> {
  const own = { env: { ...options.env, ...start.env }, ...(start.argsFd !== undefined && { argsFd: start.argsFd }) };
  const run = runProcess(start.command, [...start.args, ...args], { ...options, ...own });
  return start.cleanup ? run.finally(start.cleanup) : run;
}

export function runProcess(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  closeInheritedFds();
  return new Promise((resolve) => {
    // A sandbox (bwrap, which reads its options on ARGS_FD before it starts anything) is put in its
    // cgroup before its options are written: all it starts is in it.
    let cgroup: ProgramCgroup | undefined;
    try {
      cgroup = options.argsFd !== undefined ? ProgramCgroup.make(options.limits.memoryBytes) : undefined;
    } catch (error) {
      resolve(notStarted(error as NodeJS.ErrnoException));
      return;
    }
    new ProgramRun(command, args, options, cgroup, started, resolve).start();
  });
}

/** One program from its spawn to its result: its limits watched, its output kept, and all it started
 *  killed however it ends. */
class ProgramRun {
  private readonly limits: Limits;
  private readonly extraPipes: number;
  private readonly child: ChildProcess;
  /** The value of RUN_MARK in its environment: what finds a process that left its group. */
  private readonly mark = randomBytes(8).toString('hex');
  /** Why it could not be put in its cgroup: it is then stopped before it reads its options. */
  private joinError: NodeJS.ErrnoException | undefined;
  private readonly stdout: Capture;
  private readonly stderr: Capture;
  private timeLimit: RunResult['timeLimit'];
  private outOfMemory: RunResult['outOfMemory'] = false;
  private stuck = false;
  private flooded: RunResult['flooded'];
  private exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private startError: NodeJS.ErrnoException | undefined;
  private finished = false;
  private openStreams = 2; // stdout and stderr
  /** It said its end (Release's sayEnd) and was stopped: killed once `options.signal` aborts. */
  private lingering = false;
  private readonly wallMs: number;
  private lastDeadline = Infinity;
  /** Where the CPU time that shows it still computing is counted from. */
  private measuredFrom: { at: number; cpuMs: number };
  private wallTimer: { cancel(): void } | undefined;
  /** Every process seen in the group or started by one in it, for the CPU and memory sums and the final kill. */
  private readonly processes: ProgramProcesses;
  private lastDiscovery: number;
  private poll: NodeJS.Timeout | undefined;
  /** CPU time used before the release (a program started ahead, booting): not the program's. */
  private cpuBefore = 0;
  private released = false;
  private foundWhileWaiting = false;
  private readonly findWhileWaiting: NodeJS.Timeout | undefined;
  private readonly endLine = new EndLine();

  constructor(
    command: string,
    args: string[],
    private readonly options: RunOptions,
    private readonly cgroup: ProgramCgroup | undefined,
    private started: number,
    private readonly resolve: (result: RunResult) => void,
  ) {
    this.limits = options.limits;
    this.extraPipes = options.extraPipes ?? 0;
    this.child = this.spawn(command, args);
    this.stdout = new Capture(this.limits.outputCap);
    this.stderr = new Capture(this.limits.outputCap);
    // The wall-time backstop is for a program waiting for what never comes (onWallDeadline).
    this.wallMs = this.limits.wallMs ?? this.limits.timeoutMs * WALL_FACTOR;
    this.measuredFrom = { at: progressNow(), cpuMs: 0 };
    options.signal?.addEventListener('abort', this.stop);
    this.processes = new ProgramProcesses(this.child.pid, options.contained ?? false);
    // A sandboxed program's processes all die with its PID namespace: no need to find them early, and
    // most cases are over before the first scan of /proc (a few ms each on a busy machine) comes due.
    // Outside a sandbox a process that leaves the group must be found at once, to be killed with it.
    this.lastDiscovery = options.contained ? performance.now() : -Infinity;
    // A sandboxed program started ahead has its whole tree (bwrap, its init, node) long before the go:
    // found while it waits, the release only reads their CPU times, off the walk down /proc.
    this.findWhileWaiting =
      options.release && options.contained
        ? setTimeout(() => {
            if (this.released) return;
            this.processes.discover();
            this.foundWhileWaiting = true;
          }, DISCOVERY_MS).unref()
        : undefined;
  }

  /** The child, in its own process group and (a sandbox) its cgroup, given its options and filter. */
  private spawn(command: string, args: string[]): ChildProcess {
    const { options, extraPipes, cgroup } = this;
    const sandboxed = options.argsFd !== undefined;
    const filter = sandboxed ? memoryFilter() : undefined;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...options.env, [RUN_MARK]: this.mark, ...(options.release && { [GO_FD]: String(3 + extraPipes) }) },
      detached: true, // its own process group, so that a kill reaches everything it started
      stdio: stdioFor(extraPipes + (options.release ? 1 : 0), sandboxed, filter !== undefined),
    });
    const pipes = child.stdio as unknown as (NodeJS.WritableStream | null)[];
    const give = (fd: number, bytes: string | Buffer) => {
      pipes[fd]?.on('error', () => {}); // a program that could not start never reads it
      pipes[fd]?.end(bytes);
    };
    try {
      if (cgroup && child.pid !== undefined) cgroup.join(child.pid);
    } catch (error) {
      this.joinError = error as NodeJS.ErrnoException; // never started outside it: stopped below, its options unread
    }
    if (filter) give(SECCOMP_FD, filter);
    if (options.argsFd !== undefined && !this.joinError) give(ARGS_FD, options.argsFd);
    return child;
  }

  /** Its output watched, its end awaited, its limits started (now, or at its release), its stdin given. */
  start(): void {
    const { options, child } = this;
    if (options.signal?.aborted) this.stop(); // aborted before it started: the listener would never fire
    if (this.joinError) this.stop(); // not in its cgroup: it never runs
    this.watch(child.stdout, this.stdout, 'stdout');
    this.watch(child.stderr, this.stderr, 'stderr');
    child.on('error', (error: NodeJS.ErrnoException) => {
      this.startError = error;
      this.exit = { code: null, signal: null };
      this.finish();
    });
    child.on('exit', (code, signal) => {
      this.exit = { code, signal };
      if (this.openStreams === 0) this.finish();
      else setTimeout(() => this.finish(), options.contained ? SANDBOX_DRAIN_MS : DRAIN_GRACE_MS).unref();
    });
    child.stdin?.on('error', () => {}); // a program that exits without reading its stdin is not our error
    if (options.release) void options.release.then((release) => this.arm(release));
    else this.arm({ onPipes: options.onPipes });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    else if (!options.onPipes && !options.release) child.stdin?.end();
  }

  private killGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // the group is already gone
    }
  }

  /** Stops it: SIGTERM, then SIGKILL after a grace. An abort listener, hence a fixed function. */
  private readonly stop = (): void => {
    // A sandbox ends with its init process (PID 1 of its namespace), which is killed directly: the
    // kill of bwrap alone could come before bwrap has tied the init's life to its own.
    if (this.options.contained) this.processes.signalAll('SIGKILL');
    this.killGroup('SIGTERM');
    setTimeout(() => this.killGroup('SIGKILL'), KILL_GRACE_MS).unref();
  };

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.wallTimer?.cancel();
    clearInterval(this.poll);
    this.released = true; // a release that comes after the end has nothing to start
    this.options.signal?.removeEventListener('abort', this.stop);
    // the kernel may have killed in its cgroup since the last poll: the end it made is that
    if (!this.outOfMemory && this.limits.memoryBytes !== undefined && this.cgroup?.oomKilled()) this.outOfMemory = 'cgroup';
    if (this.lingering) this.killOnceGraded();
    else this.killAll();
    this.child.stdout?.destroy();
    this.child.stderr?.destroy();
    this.resolve(this.result());
  }

  /** Stopped whole, as it was when it said its end: killed, all of it, once the grading is over. */
  private killOnceGraded(): void {
    const { signal } = this.options;
    const kill = () => {
      this.processes.signalAll('SIGKILL');
      this.killGroup('SIGKILL');
      this.cgroup?.remove();
    };
    if (signal && !signal.aborted) signal.addEventListener('abort', kill, { once: true });
    else kill();
  }

  /** Leaves nothing behind, even a grandchild that outlived its parent. */
  private killAll(): void {
    const { options, processes } = this;
    this.killGroup('SIGKILL');
    // Something may have left the group: a process still holds the pipes, the run was stopped,
    // or one was seen outside the group. Only then is every process's environment read. (A
    // sandbox that ended by itself took everything with it; one stopped early may have had its
    // init started just as bwrap was killed, and the init carries the mark too.)
    const suspicious =
      this.openStreams > 0 ||
      this.timeLimit !== undefined ||
      this.flooded !== undefined ||
      this.outOfMemory ||
      this.stuck ||
      options.signal?.aborted ||
      processes.leftGroup;
    if (suspicious) killStrays(this.mark);
    else if (!options.contained) killStrays(this.mark, processes.tracked);
    this.cgroup?.remove();
  }

  private result(): RunResult {
    return {
      exitCode: this.exit?.code ?? null,
      signal: this.exit?.signal ?? null,
      timeLimit: this.timeLimit,
      cpuMs: this.processes.cpuMs - this.cpuBefore,
      flooded: this.flooded,
      stdout: this.stdout.bytes(),
      stderr: this.stderr.bytes(),
      outOfMemory: this.outOfMemory,
      ...(this.stuck && { stuck: true as const }),
      durationMs: performance.now() - this.started,
      startError: this.startError ?? this.joinError,
    };
  }

  // The wall-time backstop is for a program waiting for what never comes. One still computing when it
  // is due (a loop on a machine too busy to give it a whole core) is left to the CPU limit, which
  // gives it the loop's verdict however loaded the machine; up to a last, far deadline. Its wall time
  // is the grader's progress (progress.ts): what a starved grader made it wait is not counted.
  private onWallDeadline(): void {
    const now = progressNow();
    // measured now, every process looked for: the last poll may not have found a sandbox's yet
    const cpuMs = this.processes.measure(true, false).cpuMs;
    const computing = cpuMs - this.measuredFrom.cpuMs >= (now - this.measuredFrom.at) * COMPUTING_SHARE;
    const recheckIn = Math.min(RECHECK_MS, this.wallMs, this.lastDeadline - now);
    if (computing && recheckIn > 0 && this.timeLimit === undefined) {
      this.measuredFrom = { at: now, cpuMs };
      this.wallTimer = afterProgress(recheckIn, () => this.onWallDeadline());
      return;
    }
    this.timeLimit ??= 'wall';
    this.stop();
  }

  /** The limits start: now, or when a program started ahead is released. */
  private arm({ onPipes, env, waitedOn = this.options.waitedOn, sayEnd = false }: Release = {}): void {
    if (this.released) return;
    this.released = true;
    if (this.options.release) this.go(env, sayEnd);
    this.lastDeadline = progressNow() + this.wallMs * STARVED_WALL_FACTOR;
    this.wallTimer = afterProgress(this.wallMs, () => this.onWallDeadline());
    // Doing nothing while waited on, in the grader's progress: one stretch of it, not a sum.
    const idle = new IdleClock(progressNow(), Number.NaN);
    this.poll = setInterval(() => this.checkLimits(idle, waitedOn), POLL_MS);
    this.poll.unref();
    onPipes?.(this.child.stdio.slice(3, 3 + this.extraPipes) as unknown as NodeJS.ReadWriteStream[]);
    if (this.options.release && !onPipes && this.options.stdin === undefined) this.child.stdin?.end();
  }

  /** A program started ahead is released: what it used booting is set aside, and it is told to go. */
  private go(env: Record<string, string> | undefined, sayEnd: boolean): void {
    const { options, child, processes } = this;
    // What booted: in a sandbox, below its leader (found by a cheap walk down the tree); outside
    // one, the leader itself, which has started nothing while it waited: no read of all of /proc.
    clearTimeout(this.findWhileWaiting);
    this.cpuBefore = processes.measure(options.contained === true && !this.foundWhileWaiting, false).cpuMs;
    this.started = performance.now();
    this.measuredFrom = { at: progressNow(), cpuMs: this.cpuBefore };
    this.lastDiscovery = options.contained ? this.started : -Infinity;
    const control = child.stdio[3 + this.extraPipes] as Duplex | null;
    control?.on('error', () => {}); // it may have ended while it waited
    // its end is taken from it only where what it wrote before can be read at once (drainNow)
    const endSaid = sayEnd && options.contained === true && control !== null && fdOf(child.stdout) !== undefined && fdOf(child.stderr) !== undefined;
    if (endSaid) control.on('data', (chunk: Buffer) => this.onEndSaid(chunk, control));
    control?.end(`go ${endSaid ? 'say-end ' : ''}${JSON.stringify(env ?? {})}\n`);
  }

  /** One poll: its CPU time, its memory and (while waited on) its idleness against the limits. */
  private checkLimits(idle: IdleClock, waitedOn: (() => boolean) | undefined): void {
    const { options, limits, processes, cgroup } = this;
    if (this.timeLimit !== undefined || this.outOfMemory || this.stuck) return;
    const waited = waitedOn?.() === true;
    // while waited on, a sandbox's every process is looked for (a cheap walk down its tree): one not
    // yet found could be computing
    const discover = performance.now() - this.lastDiscovery >= DISCOVERY_MS || (waited && options.contained === true);
    if (discover) this.lastDiscovery = performance.now();
    // a cgroup counts its memory itself, and says when it went past (the kernel killed in it)
    const usage = processes.measure(discover, limits.memoryBytes !== undefined && !cgroup);
    const now = progressNow();
    const idleMs = waited ? idle.look(now, usage.cpuMs, () => processes.busy()).stretchMs : 0;
    if (!waited) idle.reset(now, usage.cpuMs);
    if (usage.cpuMs - this.cpuBefore > limits.timeoutMs) {
      this.timeLimit = 'cpu';
      this.stop();
    } else if (limits.memoryBytes !== undefined && (cgroup ? cgroup.oomKilled() : usage.memoryBytes > limits.memoryBytes)) {
      this.outOfMemory = cgroup ? 'cgroup' : 'resident';
      this.stop();
    } else if (idleMs >= STUCK_MS) {
      this.stuck = true;
      this.stop();
    }
  }

  private take(chunk: Buffer, capture: Capture, name: 'stdout' | 'stderr'): void {
    if (capture.add(chunk) || this.flooded) return;
    this.flooded = name;
    this.stop();
  }

  private watch(stream: NodeJS.ReadableStream | null, capture: Capture, name: 'stdout' | 'stderr'): void {
    stream?.on('data', (chunk: Buffer) => this.take(chunk, capture, name));
    stream?.on('close', () => {
      this.openStreams -= 1;
      if (this.openStreams === 0 && this.exit) this.finish();
    });
  }

  // `end <code>`: it is leaving with that code, all its 'exit' listeners run (warm-start.mjs). It is
  // stopped at once, and what it wrote before is in its pipes: read now (the end comes on a pipe of
  // its own, which the event loop may read first), it is all a real exit would leave (what a process
  // has not written when it exits is lost either way). A program that says so early only ends its
  // own case there, as process.exit() would.
  private onEndSaid(chunk: Buffer, control: Duplex): void {
    const code = this.endLine.hear(chunk);
    // anything else written there is not an end, and is read no further: the program ends as any does
    if (code === null) control.destroy();
    if (code === undefined || code === null || this.exit || this.finished) return;
    this.processes.signalAll('SIGSTOP'); // its init and node are in a session of their own
    this.killGroup('SIGSTOP');
    drainNow(this.child.stdout, (chunk) => this.take(chunk, this.stdout, 'stdout'));
    drainNow(this.child.stderr, (chunk) => this.take(chunk, this.stderr, 'stderr'));
    this.exit = { code, signal: null };
    this.lingering = !this.flooded; // a flood was stopped (and is being killed) as any is
    this.finish();
  }
}

/** What a program started ahead says on the go's pipe: `end <code>`, or anything else, which is no end.
 *  Only its first END_LINE_MAX characters and one more are kept: what the program writes there after
 *  them (its end said, or not) decides nothing, and kept whole it was read again at each chunk. */
export class EndLine {
  private said = '';

  /** The code once the end is said; null once what came is no end; undefined until one or the other. */
  hear(chunk: Buffer): number | null | undefined {
    if (this.said.length <= END_LINE_MAX) this.said += chunk.toString('latin1', 0, END_LINE_MAX + 1 - this.said.length);
    const end = /^end (\d{1,3})\n/.exec(this.said);
    if (end) return Number(end[1]);
    return this.said.length > END_LINE_MAX ? null : undefined;
  }
}

/** The fd under a child's pipe, where Node shows it (Linux, macOS). */
function fdOf(stream: NodeJS.ReadableStream | null): number | undefined {
  const fd = (stream as unknown as { _handle?: { fd?: unknown } } | null)?._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** What is in a child's pipe now, read at once (the pipe is non-blocking: it stops where it is empty),
 *  after all that the stream has handed on already. */
function drainNow(stream: NodeJS.ReadableStream | null, onChunk: (chunk: Buffer) => void): void {
  const fd = fdOf(stream);
  if (fd === undefined) return;
  const buffer = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let read: number;
    try {
      read = readSync(fd, buffer, 0, buffer.length, null);
    } catch {
      return; // EAGAIN: empty
    }
    if (read === 0) return;
    onChunk(Buffer.from(buffer.subarray(0, read)));
  }
}

/** stdin, stdout, stderr and `pipes` more; and fd ARGS_FD, when there are arguments to give on it,
 *  and SECCOMP_FD, when there is a filter. */
function stdioFor(pipes: number, argsFd: boolean, seccomp: boolean): ('pipe' | 'ignore')[] {
  const stdio: ('pipe' | 'ignore')[] = ['pipe', 'pipe', 'pipe', ...Array<'pipe'>(pipes).fill('pipe')];
  if (!argsFd) return stdio;
  while (stdio.length < ARGS_FD) stdio.push('ignore');
  stdio[ARGS_FD] = 'pipe';
  if (seccomp) stdio[SECCOMP_FD] = 'pipe';
  return stdio;
}

/** A run that never started: what it needed could not be made. */
function notStarted(error: NodeJS.ErrnoException): RunResult {
  return {
    exitCode: null,
    signal: null,
    cpuMs: 0,
    flooded: undefined,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    outOfMemory: false,
    durationMs: 0,
    startError: error,
  };
}

/** Keeps the first `cap` bytes of a stream; says when more arrived. */
class Capture {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly cap: number) {}

  /** false once the stream has gone past the cap */
  add(chunk: Buffer): boolean {
    const room = this.cap - this.size;
    if (room > 0) {
      const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(kept);
      this.size += kept.length;
    }
    return chunk.length <= room;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}
