// Text for a student's eyes: strings quoted with every invisible or line-breaking character
// escaped, so that a stray "\r" or a second "\n" shows up on the screen rather than moving it.
import fc from 'fast-check';

/** Characters JSON.stringify leaves raw that a terminal would break a line on or hide. */
const INVISIBLE = /[\u0085\u00a0\u2028\u2029\ufeff\u200b-\u200f]/g;

function escapeInvisible(text: string): string {
  return text.replace(INVISIBLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A value the way fast-check prints it, with invisible characters escaped. */
export function show(value: unknown): string {
  return escapeInvisible(fc.stringify(value));
}

/** At most `max` characters of one line, marked when cut. */
export function clip(text: string, max = 200): string {
  const oneLine = text.replace(/\r?\n/g, '\\n');
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
