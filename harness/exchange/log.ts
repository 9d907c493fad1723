// The exchange of one played session, message by message, as a player logs it and a sequence diagram
// draws it (the data, ExchangeStep and Exchange, is in diagnosis.ts with the rest of what a player
// reports). Bounded: the first KEPT_STEPS steps are kept, each message at most KEPT_MESSAGE_CHARS long,
// the rest only counted.
import type { Json } from '../json.ts';
import { clip } from '../terminal-text.ts';
import type { Exchange, ExchangeStep } from './diagnosis.ts';

/** Steps kept; a session of the course has a few dozen, past this the client is flooding the wire
 *  (and the report of a flooded wire stays a few tens of KB). */
export const KEPT_STEPS = 200;
/** Characters of a message's JSON text kept as the message; a bigger one is kept as that text, clipped. */
export const KEPT_MESSAGE_CHARS = 4096;
/** Characters of a method name or a string id kept (both are the client's, of any length). */
export const KEPT_NAME_CHARS = 200;

/** The exchange as it is played: steps are made only while there is room for them. */
export class ExchangeLog {
  private readonly steps: ExchangeStep[] = [];
  private more = 0;

  get exchange(): Exchange {
    return { steps: this.steps, more: this.more };
  }

  /** Adds the step `make` builds (called only when it is kept), at the end or just before `before`
   *  (a message that went over the wire ahead of one already logged); the step, or undefined when counted. */
  add(make: () => ExchangeStep, before?: ExchangeStep): ExchangeStep | undefined {
    const at = before === undefined ? -1 : this.steps.indexOf(before);
    if (this.steps.length >= KEPT_STEPS && at === -1) {
      this.more++;
      return undefined;
    }
    const step = make();
    if (at === -1) this.steps.push(step);
    else this.steps.splice(at, 0, step);
    if (this.steps.length > KEPT_STEPS) {
      this.steps.pop();
      this.more++;
    }
    return step;
  }
}

/** The message itself, or its JSON text clipped when that is longer than KEPT_MESSAGE_CHARS. */
export function keptMessage(message: Json): Json {
  if (typeof message === 'string') return clip(message, KEPT_MESSAGE_CHARS);
  const text = JSON.stringify(message);
  return text.length <= KEPT_MESSAGE_CHARS ? message : clip(text, KEPT_MESSAGE_CHARS);
}

/** An id as a step keeps it: a string clipped, one that is neither string, number nor null as its JSON text. */
export function keptId(id: Json): Json {
  if (typeof id === 'string') return clip(id, KEPT_NAME_CHARS);
  return typeof id === 'number' || id === null ? id : clip(JSON.stringify(id), KEPT_NAME_CHARS);
}
