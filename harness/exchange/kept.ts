// What the player keeps of the rules a client broke: the first KEPT_DIAGNOSES in full, the rest only
// counted; what the spec recommends and the client did not do, each kind once (advice fails nothing).
// Bounded whatever the client writes: a message is worked out only for a diagnosis that is kept, and
// what it quotes of the client comes out escaped and clipped.
import { clip, escapeControls } from '../terminal-text.ts';
import type { Diagnosis, DiagnosisKind, ExchangeStep } from './diagnosis.ts';

/** Diagnoses kept in full; a client that goes on making mistakes gets them counted, not kept. */
export const KEPT_DIAGNOSES = 20;
/** Characters of a diagnosis's message, and of a client's line quoted in `received` when it is long. */
const MESSAGE_CHARS = 2000;
export const RECEIVED_CHARS = 4096;

export type Fields = Omit<Diagnosis, 'kind' | 'message'>;

export class KeptDiagnoses {
  /** The diagnoses kept, in the order they happened. */
  readonly misses: Diagnosis[] = [];
  /** Recommendations not followed (a SHOULD, as its kind's row says), each kind once. */
  readonly advice: Diagnosis[] = [];
  /** Diagnoses past KEPT_DIAGNOSES: counted only. */
  more = 0;

  /** `isAdvice`: whether a kind is advice (a SHOULD), as the protocol's table of kinds says. */
  constructor(
    private readonly cassetteFile: string | undefined,
    private readonly isAdvice: (kind: DiagnosisKind) => boolean,
    private readonly onDiagnosis?: (diagnosis: Diagnosis) => void,
  ) {}

  get full(): boolean {
    return this.misses.length >= KEPT_DIAGNOSES;
  }

  /** Kept while there is room (and noted on `step`, the client message that caused it), else counted.
   *  `longLine`: the clipped text that stands for the client's line when it is long. */
  add(kind: DiagnosisKind, message: () => string, fields: Fields, step: ExchangeStep | undefined, longLine?: string): void {
    if (this.isAdvice(kind)) {
      if (this.advice.some((given) => given.kind === kind)) return;
      this.advice.push({ kind, message: clip(escapeControls(message()), MESSAGE_CHARS), ...this.where(), ...fields });
      return;
    }
    if (this.full) {
      this.more++;
      return;
    }
    // A long line is kept as its clipped text, not as the (large) value parsed from it.
    const kept =
      longLine === undefined
        ? fields
        : { ...fields, received: longLine, ...(fields.actual !== undefined && { actual: clip(JSON.stringify(fields.actual), RECEIVED_CHARS) }) };
    const diagnosis: Diagnosis = { kind, message: clip(escapeControls(message()), MESSAGE_CHARS), ...this.where(), ...kept };
    this.misses.push(diagnosis);
    if (step && !step.diagnosis) step.diagnosis = { kind, message: diagnosis.message };
    this.onDiagnosis?.(diagnosis);
  }

  /** Room for one more, whatever was kept: the last kept one is counted instead (the diagnosis that
   *  says why the session ended is always kept). */
  makeRoom(): void {
    if (!this.full) return;
    this.misses.pop();
    this.more++;
  }

  /** The message of the last diagnosis kept. */
  get lastMessage(): string {
    return this.misses[this.misses.length - 1]!.message;
  }

  private where(): { cassette?: string } {
    return this.cassetteFile ? { cassette: this.cassetteFile } : {};
  }
}
