// The exchange of one played session, message by message, as the player logs it and a sequence
// diagram draws it (the data, ExchangeStep and Exchange, is in diagnosis.ts with the rest of what
// the player reports). Bounded: the first KEPT_STEPS steps are kept, each message at most
// KEPT_MESSAGE_CHARS long, the rest only counted.
import { STATUS_CODES } from 'node:http';
import { clip } from '../../terminal-text.ts';
import type { Exchange, ExchangeStep } from './diagnosis.ts';
import { isObject, kindOf, type Json } from '../format/model.ts';

export type { Exchange, ExchangeStep } from './diagnosis.ts';

/** Steps kept; a session of the course has a few dozen, past this the client is flooding the wire
 *  (and the report of a flooded wire stays a few tens of KB). */
export const KEPT_STEPS = 200;
/** Characters of a message's JSON text kept as the message; a bigger one is kept as that text, clipped. */
export const KEPT_MESSAGE_CHARS = 4096;
/** Characters of a method name or a string id kept (both are the client's, of any length). */
const KEPT_NAME_CHARS = 200;

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

/** The step for a message (or a line, as text) that went over the wire. `text`, when given, is what
 *  stands for the message if it is too big to keep (the line it came from, already clipped). */
export function exchangeStep(from: ExchangeStep['from'], message: Json, text?: string): ExchangeStep {
  const kept = text ?? keptMessage(message);
  const kind = isObject(message) ? kindOf(message) : undefined;
  if (!isObject(message) || kind === undefined) return { from, kind: 'line', message: kept };
  return {
    from,
    kind,
    ...(typeof message.method === 'string' && { method: clip(message.method, KEPT_NAME_CHARS) }),
    ...('id' in message && { id: keptId(message.id!) }),
    message: kept,
  };
}

/** The step for an HTTP request refused before any message of it was played (its request line and
 *  the headers that decided it), or for that refusal (its status line and why). */
export function httpStep(from: ExchangeStep['from'], text: string): ExchangeStep {
  return { from, kind: 'http', message: clip(text, KEPT_MESSAGE_CHARS) };
}

/** The message itself, or its JSON text clipped when that is longer than KEPT_MESSAGE_CHARS. */
export function keptMessage(message: Json): Json {
  if (typeof message === 'string') return clip(message, KEPT_MESSAGE_CHARS);
  const text = JSON.stringify(message);
  return text.length <= KEPT_MESSAGE_CHARS ? message : clip(text, KEPT_MESSAGE_CHARS);
}

function keptId(id: Json): Json {
  if (typeof id === 'string') return clip(id, KEPT_NAME_CHARS);
  return typeof id === 'number' || id === null ? id : clip(JSON.stringify(id), KEPT_NAME_CHARS);
}

/** Whether a response step carries a result or an error, also when its message was kept as clipped
 *  text (JSON.stringify's: `{"jsonrpc":"2.0","id":3,"result":…` or `{"result":…`). */
export function responseOutcome(step: ExchangeStep): 'result' | 'error' | undefined {
  if (step.kind !== 'response') return undefined;
  if (isObject(step.message)) return 'error' in step.message ? 'error' : 'result' in step.message ? 'result' : undefined;
  if (typeof step.message !== 'string') return undefined;
  const outcome = /^\{(?:"(?:jsonrpc|id)":(?:"(?:[^"\\]|\\.)*"|[-+.\deE]+|null),)*"(result|error)":/.exec(step.message);
  return outcome?.[1] as 'result' | 'error' | undefined;
}

/** An HTTP refusal as the exchange draws it: `406 Not Acceptable: Client must accept both …`. */
export function statusLine(status: number, why?: Json): string {
  const text = typeof why === 'string' && why !== '' ? why : (STATUS_CODES[status] ?? '');
  return `${status} ${text}`.trimEnd();
}
