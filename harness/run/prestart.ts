// Programs started ahead of time: between two saves in watch mode, one process per case of the next
// grading, booted and waiting (warm-start.mjs) in its own sandbox. On the save each is released: its
// limits start, it runs the new bundle, and it is graded as a fresh start would be. Every case still
// runs in a process of its own that nothing else ever ran in; the start is what is done early.
import type { Command } from './network.ts';
import { runCommand, type Release, type RunOptions, type RunResult } from './spawn.ts';

export interface Prestart {
  /** Starts its limits and its run now, with what is known only now (Release: its extra pipes, variables,
   *  whether its player waits for it); `signal` stops it. */
  release(release: Release, signal: AbortSignal | undefined): Promise<RunResult>;
  cancel(): void;
}

export function prestart(start: Command, args: string[], options: Omit<RunOptions, 'release' | 'onPipes' | 'signal'>): Prestart {
  let go!: (release: Release) => void;
  const stopper = new AbortController();
  const result = runCommand(start, args, { ...options, release: new Promise((resolve) => (go = resolve)), signal: stopper.signal });
  return {
    release(release, signal) {
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

/** The programs started ahead for one grading, by case folder; each is taken once, the rest cancelled. */
export class Prestarts {
  private readonly waiting = new Map<string, Prestart>();
  private readonly cancelOnExit = () => this.cancelAll();

  constructor() {
    // Started in their own process groups, they would outlive a grader that exits: not so.
    process.once('exit', this.cancelOnExit);
  }

  add(casePath: string, started: Prestart): void {
    this.waiting.set(casePath, started);
  }

  take(casePath: string): Prestart | undefined {
    const started = this.waiting.get(casePath);
    this.waiting.delete(casePath);
    return started;
  }

  cancelAll(): void {
    for (const started of this.waiting.values()) started.cancel();
    this.waiting.clear();
    process.off('exit', this.cancelOnExit);
  }
}
