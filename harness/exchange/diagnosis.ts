// What the player tells the grader: when a client strays from the recording, and the session message
// by message. Plain data, so that it crosses a process boundary or lands in a JSON report unchanged;
// `message` is one line a student reads.
import type { Json, JsonObject } from '../json.ts';

/** The kinds a diagnosis may have: each protocol adds its own to this interface (TypeScript's
 *  declaration merging, from its table of kinds), so the core names none of them. */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the protocols' tables of kinds
export interface DiagnosisKinds {}
export type DiagnosisKind = keyof DiagnosisKinds & string;

/** The kinds of step an exchange has (ExchangeStep). */
export type StepKind = 'request' | 'notification' | 'response' | 'line' | 'transport';

export interface RecordedRef {
  /** Index into the cassette's frames. */
  frame: number;
  /** Line in the cassette file, when it came from a file. */
  line?: number;
  message: JsonObject;
  /** A recorded request that starts a new session, the server having lost the first (the protocol says which). */
  newSession?: boolean;
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
  /** For a message held to a recorded one and found to differ: the rule that found it (matching.ts:
   *  kind, id, roots-answer, answer, method, params). */
  rule?: string;
}

export interface PlayReport {
  /** No diagnosis at all (advice aside), every recorded client message consumed. */
  ok: boolean;
  /** Every recorded client message was consumed. */
  complete: boolean;
  consumed: number;
  expected: number;
  /** The first diagnoses (KEPT_DIAGNOSES in kept.ts), in the order they happened: each a rule the client
   *  broke (a MUST, or the course's: kinds/). */
  diagnoses: Diagnosis[];
  /** Recommendations the client did not follow (a SHOULD: kinds/), each kind once: the session goes on. */
  advice: Diagnosis[];
  /** How many more there were, counted and not kept. */
  moreDiagnoses: number;
  /** The session message by message, each diagnosis on the client message that caused it. */
  exchange: Exchange;
}

/** One message of a played session (exchange.ts logs them), as a sequence diagram draws it: who sent
 *  what, in order, what the recording expected where the client spoke, and where it first strayed. */
export interface ExchangeStep {
  from: 'client' | 'server';
  /** What the step is, in its protocol's words: a `request`, `notification` or `response`, a `line`
   *  that is no message, or a `transport` step: a request the transport refused before any message of
   *  it was played (its request line and the headers that decided it), or that refusal. */
  kind: StepKind;
  /** As on the wire (clipped); for requests and notifications. */
  method?: string;
  /** As on the wire, after the player mapped recorded ids to the live ones (a string id clipped,
   *  an id that is neither string, number nor null as its JSON text); for requests and responses. */
  id?: Json;
  /** What went over the wire: the parsed message, or the text (clipped, `…` at the cut) when it is
   *  not JSON or its JSON text is longer than KEPT_MESSAGE_CHARS (exchange.ts). */
  message: Json;
  /** For a client message: the recorded client message it was matched against, or that the player
   *  was waiting for when it came (absent once the recording had no client message left). Clipped alike. */
  recorded?: Json;
  /** For a client message the player objected to: the first diagnosis it caused, when that one was
   *  kept (the player keeps its first diagnoses in full and only counts the rest). */
  diagnosis?: { kind: DiagnosisKind; message: string };
}

export interface Exchange {
  /** The first steps, in the order they went over the wire. */
  steps: ExchangeStep[];
  /** How many more steps there were, counted and not kept. */
  more: number;
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
