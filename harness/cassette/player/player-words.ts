// The player's words for what it saw: a message in a few words, a value shown short, where a
// recorded frame is, which part of a message differs. What they quote of the client is clipped.
import { clip, cutPoint } from '../../terminal-text.ts';
import type { RecordedRef } from '../../exchange/diagnosis.ts';
import type { Miss } from '../matching/matching.ts';
import { describeMessage as describeInFull, idKey, kindOf, type Cassette, type ClientFrame, type Frame, type Json, type JsonObject } from '../format/model.ts';

export function show(value: Json | undefined): string {
  return value === undefined ? 'nothing' : preview(JSON.stringify(value));
}

export function preview(text: string): string {
  return text.length > 80 ? `${text.slice(0, cutPoint(text, 77))}...` : text;
}

/** A message in a few words, by default one the client sent, named with its own id; cut, since a
 *  client's method name may be of any length. */
export function describeMessage(message: JsonObject, idLabel = 'your id'): string {
  return clip(describeInFull(message, idLabel), 200);
}

/** The part of a message a path starts in, as a sentence names it: "params that differ", "a result that differs". */
export function differingPart(path: string): string {
  const part = path.split(/[.[]/)[0]!;
  if (part === 'params') return 'params that differ';
  return `${/^[aeiou]/.test(part) ? 'an' : 'a'} ${part} that differs`;
}

/** Where a recorded frame is in its cassette, for a sentence: ` (line 12)`. */
export function lineNote(frame: Frame): string {
  return frame.line === undefined ? '' : ` (line ${frame.line})`;
}

/** Where in the recording a diagnosis points: the frame, its line, the message (a second initialize: a
 *  new session; not after one the server refused, such as a 401 before the authorization). */
export function recordedRef(cassette: Cassette, index: number): RecordedRef {
  const frame = cassette.frames[index] as ClientFrame;
  const again =
    frame.message.method === 'initialize' &&
    cassette.frames
      .slice(0, index)
      .some((earlier) => earlier.from === 'client' && earlier.message.method === 'initialize' && (earlier.http?.reply?.status ?? 200) < 400);
  return { frame: index, ...(frame.line !== undefined ? { line: frame.line } : {}), message: frame.message, ...(again && { newSession: true }) };
}

/** Where a recorded frame comes, for a sentence: "after the initialize result", "at the start of the session", ... */
export function contextBefore(cassette: Cassette, index: number, methodOf: (recordedId: Json | undefined) => string | undefined): string {
  for (let i = index - 1; i >= 0; i--) {
    const frame = cassette.frames[i]!;
    if (frame.from === 'stderr' || frame.from === 'stdout' || frame.from === 'sse' || frame.from === 'auth') continue;
    const message = frame.message;
    if (frame.from === 'client') {
      return kindOf(message) === 'response'
        ? `after your client's answer to the server's request ${JSON.stringify(message.id)}`
        : `after your client's ${describeMessage(message, 'recorded id')}`;
    }
    if (kindOf(message) === 'response') {
      const method = methodOf(message.id);
      return `after the ${method ?? 'request'} ${'error' in message ? 'error' : 'result'}`;
    }
    return `after the server's ${describeMessage(message, "the server's id")}`;
  }
  return 'at the start of the session';
}

/** A recorded client message in a few words; an answer by the server request it answers. */
export function describeExpected(cassette: Cassette, message: JsonObject): string {
  if (kindOf(message) !== 'response') return describeMessage(message, 'recorded id');
  const request = cassette.frames.find(
    (frame) => frame.from === 'server' && kindOf(frame.message) === 'request' && idKey(frame.message.id) === idKey(message.id),
  ) as Extract<Frame, { from: 'server' }> | undefined;
  const method = typeof request?.message.method === 'string' ? `${request.message.method} ` : '';
  return `an answer to the server's ${method}request (the server's id ${JSON.stringify(message.id)})`;
}

/** How a client message differs from the recorded one at `path` (clipped): the spec's rule for an
 *  answer to roots/list, else the recording's. */
export function missWords(message: JsonObject, path: string, miss: Miss): string {
  return miss.kind === 'roots-answer'
    ? `your client's answer to the server's roots/list breaks the spec at ${path}: expected ${show(miss.expected)}, got ${show(miss.actual)}`
    : `your client sent ${describeMessage(message)} with ${differingPart(path)} from the recording at ${path}: expected ${show(miss.expected)}, got ${show(miss.actual)}`;
}
