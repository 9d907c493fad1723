// The steps of an MCP session's exchange (the log that keeps them, bounded, is the exchange core's:
// exchange/log.ts): a JSON-RPC message or a line, an HTTP request refused before any message of it was
// played, a refusal's status line.
import { STATUS_CODES } from 'node:http';
import type { ExchangeStep } from '../../exchange/diagnosis.ts';
import { KEPT_MESSAGE_CHARS, KEPT_NAME_CHARS, keptId, keptMessage } from '../../exchange/log.ts';
import { clip } from '../../terminal-text.ts';
import { isObject, kindOf, type Json } from '../format/model.ts';

export type { Exchange, ExchangeStep } from '../../exchange/diagnosis.ts';
export { ExchangeLog, KEPT_MESSAGE_CHARS, KEPT_STEPS, keptMessage } from '../../exchange/log.ts';

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
export function transportStep(from: ExchangeStep['from'], text: string): ExchangeStep {
  return { from, kind: 'transport', message: clip(text, KEPT_MESSAGE_CHARS) };
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
