// Ctrl-C (SIGINT) or SIGTERM during grading stops the grading, not the grader at once: the signal
// aborts every running case (each is killed with its sandbox), the command removes its scratch
// folders, writes its report marked `interrupted` when one was asked for, and exits 128 + the
// signal's number. A second signal exits at once.

const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

export interface Interruption {
  readonly signal: AbortSignal;
  /** 130 or 143 once a signal came; undefined before. */
  readonly exitCode: 130 | 143 | undefined;
  /** Gives the signals back to their default handling. */
  dispose(): void;
}

export function onInterrupt(): Interruption {
  const controller = new AbortController();
  let exitCode: 130 | 143 | undefined;
  const handlers = Object.entries(EXIT_CODES).map(([name, code]) => {
    const handler = () => {
      if (exitCode !== undefined) process.exit(exitCode);
      exitCode = code;
      controller.abort();
    };
    process.on(name, handler);
    return [name, handler] as const;
  });
  return {
    signal: controller.signal,
    get exitCode() {
      return exitCode;
    },
    dispose() {
      for (const [name, handler] of handlers) process.off(name, handler);
    },
  };
}
