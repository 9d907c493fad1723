// What the player tells the grader when a client strays from the recording. Plain data, so that it
// crosses a process boundary or lands in a JSON report unchanged; `message` is one line a student reads.
import type { Exchange } from './exchange.ts';
import type { Json, JsonObject } from './model.ts';

export type DiagnosisKind =
  | 'unexpected-method' // the client sent another method (or kind of message) than the one recorded next
  | 'params-differ' // right method, params (or the answer to a server request) differ at `path`
  | 'out-of-order' // the message is recorded, but later than where the session is
  | 'exhausted' // the recording has no client message left
  | 'unused' // the session ended with recorded client messages never sent
  | 'invalid-message' // the message breaks the MCP schema of the negotiated version
  | 'not-json' // the client wrote a line that is not a JSON object
  | 'line-too-long'; // the client wrote more than the player holds without a newline; reading stopped

export interface RecordedRef {
  /** Index into the cassette's frames. */
  frame: number;
  /** Line in the cassette file, when it came from a file. */
  line?: number;
  message: JsonObject;
}

export interface Diagnosis {
  kind: DiagnosisKind;
  /** One line in plain words. */
  message: string;
  /** The cassette file, when known. */
  cassette?: string;
  /** Where the difference is, for params-differ: `params.arguments.message`. */
  path?: string;
  expected?: Json;
  actual?: Json;
  /** What the client sent (parsed), or the line itself when it was not JSON or too long to keep
   *  (then its first 4096 characters and `…`). */
  received?: Json;
  /** The recorded client message the player was waiting for. */
  waitingFor?: RecordedRef;
  /** The recorded client message closest to what was received. */
  nearest?: RecordedRef;
  /** For unused: how many recorded client messages were never sent. */
  unusedCount?: number;
}

export interface PlayReport {
  /** No diagnosis at all, every recorded client message consumed. */
  ok: boolean;
  /** Every recorded client message was consumed. */
  complete: boolean;
  consumed: number;
  expected: number;
  /** The first diagnoses (KEPT_DIAGNOSES in player.ts), in the order they happened. */
  diagnoses: Diagnosis[];
  /** How many more there were, counted and not kept. */
  moreDiagnoses: number;
  /** The session message by message, each diagnosis on the client message that caused it. */
  exchange: Exchange;
}

/** "cassettes/x.yaml:40: params-differ: ..." */
export function formatDiagnosis(diagnosis: Diagnosis): string {
  const where = diagnosis.cassette ? `${diagnosis.cassette}${diagnosis.nearest?.line ? `:${diagnosis.nearest.line}` : ''}: ` : '';
  return `${where}${diagnosis.kind}: ${diagnosis.message}`;
}

/** The line that follows the kept diagnoses when there were more: "… and 127,980 more". */
export function moreDiagnosesLine(report: Pick<PlayReport, 'moreDiagnoses'>): string | undefined {
  return report.moreDiagnoses > 0 ? `… and ${report.moreDiagnoses.toLocaleString('en-US')} more` : undefined;
}

/** Every kept diagnosis formatted, then the count of the rest. */
export function formatDiagnoses(report: PlayReport): string[] {
  const lines = report.diagnoses.map(formatDiagnosis);
  const more = moreDiagnosesLine(report);
  if (more !== undefined) lines.push(more);
  return lines;
}
