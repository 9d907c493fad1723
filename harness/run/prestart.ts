// Programs started ahead of time: between two saves in watch mode, a process per case of the next
// grading (as many as the cores and the memory allow; the rest as the grading takes the first), booted
// and waiting (warm-start.mjs) in its own sandbox. On the save each is released: its
// limits start, it runs the new bundle, and it is graded as a fresh start would be. Every case still
// runs in a process of its own that nothing else ever ran in; the start is what is done early.
import { freemem } from 'node:os';
import type { Invocation } from './network.ts';
import { CORES } from './pool.ts';
import { runCommand, type Release, type RunOptions, type RunResult } from './spawn.ts';

export interface Prestart {
  /** Starts its limits and its run now, with what is known only now (Release: its extra pipes, variables,
   *  whether its player waits for it; `own`: files of the run root made for it alone, its case's gate);
   *  `signal` stops it. */
  release(release: Release, signal: AbortSignal | undefined, own?: readonly string[]): Promise<RunResult>;
  cancel(): void;
}

export function prestart(start: Invocation, args: string[], options: Omit<RunOptions, 'release' | 'onPipes' | 'signal'>): Prestart {
  let go!: (release: Release) => void;
  const stopper = new AbortController();
  const result = runCommand(start, args, { ...options, release: new Promise((resolve) => (go = resolve)), signal: stopper.signal });
  return {
    release(release, signal, own) {
      // what it is shown of the run root as it is now: the bundle it will load was written after it started
      start.update?.(own);
      const stop = () => stopper.abort();
      if (signal?.aborted) stop();
      signal?.addEventListener('abort', stop, { once: true });
      void result.finally(() => signal?.removeEventListener('abort', stop));
      go(release);
      return result;
    },
    cancel: () => stopper.abort(),
  };
}

/** How many programs wait at once, at most, per core: a stage's worth on two cores (the largest has 31
 *  cases and a property oracle), so that a save of one stage finds each of its programs booted. */
const WAITING_PER_CORE = 16;
/** What one waiting program holds of memory that no other shares (its PSS, measured: 8 MiB), with room. */
const WAITING_BYTES = 16 * 2 ** 20;
/** Of the memory free when they start, the most the waiting programs may hold. */
const MEMORY_SHARE = 1 / 8;

/** As many programs as may wait at once here: bounded by the cores and by the memory free now. */
export function waitingLimit(): number {
  return Math.max(1, Math.min(WAITING_PER_CORE * CORES, Math.floor((freemem() * MEMORY_SHARE) / WAITING_BYTES)));
}

/** The programs started ahead for one grading, by key (a case folder, a stage's oracle), in the order the
 *  grading takes them. At most `limit` wait at once; each one taken starts the next in line, whose boot
 *  overlaps the cases before it. Each is taken once; the rest are cancelled, and so are those taken,
 *  when the grading is over: a program that said its end is stopped until then (spawn.ts's sayEnd). */
export class Prestarts {
  private readonly waiting = new Map<string, Prestart>();
  private readonly taken: Prestart[] = [];
  /** Programs planned and not started yet, in the order the grading will take them. */
  private readonly line: Array<{ key: string; start: () => Prestart | undefined }> = [];
  private readonly cancelOnExit = () => this.cancelAll();

  constructor(private readonly limit = waitingLimit()) {
    // Started in their own process groups, they would outlive a grader that exits: not so.
    process.once('exit', this.cancelOnExit);
  }

  /** Plans the program for `key`: started now if fewer than the limit wait, else once one before it is taken. */
  add(key: string, start: () => Prestart | undefined): void {
    this.line.push({ key, start });
    this.fill();
  }

  take(key: string): Prestart | undefined {
    const started = this.waiting.get(key);
    this.waiting.delete(key);
    if (started) this.taken.push(started);
    // one not started yet starts on demand, as if none had been planned
    const planned = this.line.findIndex((entry) => entry.key === key);
    if (planned !== -1) this.line.splice(planned, 1);
    // the next in line is started once this one has its go (a start is milliseconds of this thread);
    // none once all were cancelled, which empties the line
    setImmediate(() => this.fill());
    return started;
  }

  /** The programs not taken: cancelled (the grading has taken all it will). */
  cancelWaiting(): void {
    this.line.length = 0;
    for (const started of this.waiting.values()) started.cancel();
    this.waiting.clear();
  }

  /** The grading is over: the programs not taken are cancelled, and those taken that said their end are killed. */
  cancelAll(): void {
    this.cancelWaiting();
    for (const started of this.taken) started.cancel();
    this.taken.length = 0;
    process.off('exit', this.cancelOnExit);
  }

  private fill(): void {
    while (this.waiting.size < this.limit && this.line.length > 0) {
      const { key, start } = this.line.shift()!;
      const started = start();
      if (started) this.waiting.set(key, started);
    }
  }
}
