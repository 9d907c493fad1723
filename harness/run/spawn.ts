// Runs one program under limits: a time limit, a cap on what it may print, and a kill of its
// whole process group (grandchildren included) however it ends. Never throws for anything the
// program does; a program that could not be started at all comes back as `startError`.
import { spawn } from 'node:child_process';

export interface Limits {
  timeoutMs: number;
  /** Bytes kept of stdout and of stderr each; a program that prints more is stopped. */
  outputCap: number;
}

export const DEFAULT_LIMITS: Limits = { timeoutMs: 10_000, outputCap: 1024 * 1024 };

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
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The program printed more than `outputCap` on stdout or stderr and was stopped. */
  flooded: 'stdout' | 'stderr' | undefined;
  stdout: Buffer;
  stderr: Buffer;
  durationMs: number;
  startError?: NodeJS.ErrnoException;
}

/** How long a killed group gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 300;
/** How long stdout/stderr may stay open after the program exits (a grandchild holding the pipe). */
const DRAIN_GRACE_MS = 200;

export function runProcess(command: string, args: string[], options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const { limits } = options;
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true, // its own process group, so that a kill reaches everything it started
      stdio: ['pipe', 'pipe', 'pipe', ...Array(options.extraPipes ?? 0).fill('pipe')],
    });
    const stdout = new Capture(limits.outputCap);
    const stderr = new Capture(limits.outputCap);
    let timedOut = false;
    let flooded: RunResult['flooded'];
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let startError: NodeJS.ErrnoException | undefined;
    let finished = false;
    let openStreams = 2;

    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const stop = () => {
      killGroup('SIGTERM');
      setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS).unref();
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      killGroup('SIGKILL'); // leave nothing behind, even a grandchild that outlived its parent
      child.stdout?.destroy();
      child.stderr?.destroy();
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        timedOut,
        flooded,
        stdout: stdout.bytes(),
        stderr: stderr.bytes(),
        durationMs: performance.now() - started,
        startError,
      });
    };

    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, limits.timeoutMs);
    options.signal?.addEventListener('abort', stop);

    const watch = (stream: NodeJS.ReadableStream | null, capture: Capture, name: 'stdout' | 'stderr') => {
      stream?.on('data', (chunk: Buffer) => {
        if (capture.add(chunk) || flooded) return;
        flooded = name;
        stop();
      });
      stream?.on('close', () => {
        openStreams -= 1;
        if (openStreams === 0 && exit) finish();
      });
    };
    watch(child.stdout, stdout, 'stdout');
    watch(child.stderr, stderr, 'stderr');

    child.on('error', (error: NodeJS.ErrnoException) => {
      startError = error;
      exit = { code: null, signal: null };
      finish();
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      if (openStreams === 0) finish();
      else setTimeout(finish, DRAIN_GRACE_MS).unref();
    });

    child.stdin?.on('error', () => {}); // a program that exits without reading its stdin is not our error
    if (options.onPipes) options.onPipes(child.stdio.slice(3) as unknown as NodeJS.ReadWriteStream[]);
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    else if (!options.onPipes) child.stdin?.end();
  });
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
