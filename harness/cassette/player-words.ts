// The player's words for what it saw: a message in a few words, a value shown short, where a
// recorded frame is, which part of a message differs. What they quote of the client is clipped.
import { clip, cutPoint } from '../terminal-text.ts';
import { describeMessage as describeInFull, type Frame, type Json, type JsonObject } from './model.ts';

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
