// What every face of the player hands back: the diagnoses as they come, and the report at the end.
import type { Diagnosis, PlayReport } from '../../exchange/diagnosis.ts';
import type { PlayerOptions } from './player-output.ts';

export interface PlayerSession {
  /** Resolves when the client closes its side, or when `finish()` is called. */
  readonly done: Promise<PlayReport>;
  /** Ends the session now (e.g. the client's process exited) and reports what was left unused. */
  finish(): PlayReport;
  /** The diagnoses so far. */
  readonly diagnoses: readonly Diagnosis[];
  /** It has put out all it can and waits for the client's next message (the recording has one). */
  waitsForClient(): boolean;
}

export interface FaceOptions extends PlayerOptions {
  /** Each diagnosis as it happens. */
  onDiagnosis?(diagnosis: Diagnosis): void;
  /** Each line the recorded server wrote on stderr, at its place. */
  onStderr?(line: string): void;
  /** Milliseconds between chunks a reader must see as separate reads (default 10). */
  chunkGapMs?: number;
}
