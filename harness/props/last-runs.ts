// What watch mode's property runs remember between gradings (see LastPropertyRuns): the batches
// of calls each run asked its oracle, the answers, and the verdicts they came to.
import type { Verdict } from '../run/verdict.ts';
import type { Call } from './oracle-session.ts';

/** A batch of calls asked of an oracle, and the lines that answered them, byte for byte. */
export interface Batch {
  calls: readonly Call[];
  lines: readonly Buffer[];
  /** Asked ahead (with patience) or on demand (without), as asked again. */
  patienceMs?: number;
}

/** The last run of each suite on each module (watch mode grades again on every save; its loop holds one
 *  of these across its gradings and passes it down), kept when it ran clean: every batch asked, and the
 *  verdicts. The checks are pure functions of the values (the same for the same seed) and the answers: a
 *  run whose oracle answers every batch of the last one with the same bytes would decide the same, so it
 *  takes the verdicts without running the checks again. Each batch is asked only once the ones before it
 *  were answered the same: then it is the batch the checks would ask next, never a call they would not make. */
export class LastPropertyRuns {
  private readonly runs = new Map<string, LastRun>();

  /** The last run by this key, forgotten as it is taken: only a run that ends clean is kept again. */
  take(key: string): LastRun | undefined {
    const run = this.runs.get(key);
    this.runs.delete(key);
    return run;
  }

  keep(key: string, run: LastRun): void {
    this.runs.set(key, run);
  }
}

export interface LastRun {
  batches: readonly Batch[];
  verdicts: readonly Verdict[];
}
