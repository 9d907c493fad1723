// Defaults of CI grading that the CLI's usage text names, kept apart so that printing it loads nothing heavy.

/** How many cases each command's generator makes per run (`--random`). */
export const GENERATED_PER_COMMAND = 3;
