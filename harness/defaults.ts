// The defaults a person can override on the command line, in one light module so that the usage
// text can name them without loading the grader.

/** Runs of each property (fast-check), `--runs`. */
export const DEFAULT_RUNS = 1000;

/** Runs of each property on each save in watch mode: with 1,000 the properties took a third of a save's
 *  verdict on stage 1. The seed is the session's, so a verdict changes only with the code; a grading
 *  without --watch, and CI's, make DEFAULT_RUNS. */
export const WATCH_RUNS = 100;

/** Memory a case's processes may make together (resident, in tmpfs, shared), `--memory` (run/cgroup.ts). */
export const DEFAULT_MEMORY_BYTES = 512 * 1024 * 1024;

/** How many cases each command's generator makes per CI run, `--random`. */
export const GENERATED_PER_COMMAND = 3;

/** The wall-time backstop, as a multiple of the CPU limit (`--timeout`): far enough that a correct
 *  program sharing a core with a dozen others still finishes. */
export const WALL_FACTOR = 3;

/** A program still computing at its wall backstop (a loop on a machine too busy to give it a core) gets
 *  up to this many backstops to reach its CPU limit before the backstop stops it. */
export const STARVED_WALL_FACTOR = 3;

/** Seeds are unsigned 32-bit numbers, as a report keeps them and `--seed` replays them. */
export const MAX_SEED = 2 ** 32 - 1;
