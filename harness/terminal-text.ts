// Text on its way to a terminal, kept safe and short. Another program's words (a server's stderr,
// a client's line, a student's stderr) are escaped whole: control characters and escape sequences
// appear as `\x1b`, `\r`, ... so that they can neither move the cursor, recolour or retitle the
// screen, nor split one line of ours into two. Text the grader composed keeps its own colours
// (escapeGraderText). A line is cut at a length rather than printed whole.

/** C0 controls but tab, DEL, C1 controls, the Unicode line breaks and the bidi overrides. */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r' };

export function escapeControls(text: string): string {
  return text.replace(CONTROL, (char) => {
    const code = char.charCodeAt(0);
    return NAMED[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

/** C0 controls but tab and newline, and DEL (see escapeGraderText). */
const C0_AND_DEL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;
/** A colour or style (SGR) sequence, as the grader's own painters write them. */
const SGR = /\x1b\[[\d;]*m/y;

const hex = (char: string) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;

/**
 * Text the grader composed, which may quote a program's words (a crash's error line, a property's
 * counterexample). C0 controls, DEL and escape sequences are shown as `\xNN`, except, when
 * `keepColour`, the grader's own colour sequences. C1 controls are left as they are: the property
 * explainer quotes generated characters such as U+0080 as themselves.
 */
export function escapeGraderText(text: string, keepColour: boolean): string {
  if (!keepColour || !text.includes('\x1b')) return text.replace(C0_AND_DEL, hex);
  let out = '';
  let start = 0;
  for (let at = text.indexOf('\x1b'); at !== -1; at = text.indexOf('\x1b', at + 1)) {
    SGR.lastIndex = at;
    if (!SGR.test(text)) continue;
    out += text.slice(start, at).replace(C0_AND_DEL, hex) + text.slice(at, SGR.lastIndex);
    start = SGR.lastIndex;
    at = start - 1;
  }
  return out + text.slice(start).replace(C0_AND_DEL, hex);
}

/** At most `max` characters of `text` (never half a surrogate pair), and `…` when it was cut. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, cutPoint(text, max))}…`;
}

/** Where to cut `text` to keep at most `max` UTF-16 units without splitting a character's pair. */
export function cutPoint(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** The first `max` lines of `text` (as `text.split('\n')` would cut them) and how many lines follow. */
export function headLines(text: string, max: number): { lines: string[]; more: number } {
  const lines: string[] = [];
  let start = 0;
  while (lines.length < max) {
    const end = text.indexOf('\n', start);
    if (end === -1) {
      lines.push(text.slice(start));
      return { lines, more: 0 };
    }
    lines.push(text.slice(start, end));
    start = end + 1;
  }
  let more = 1;
  for (let at = text.indexOf('\n', start); at !== -1; at = text.indexOf('\n', at + 1)) more++;
  return { lines, more };
}
