// Text on its way to a terminal or a report, kept safe and short. Another program's words (a server's
// stderr, a client's line, a student's stderr) are escaped whole: control characters and escape
// sequences appear as `\x1b`, `\r`, ... so that they can neither move the cursor, recolour or retitle
// the screen, nor split one line of ours into two. Text the grader composed keeps its own colours
// (escapeGraderText). A line is cut at a length rather than printed whole. A verdict's message is one
// line in every report (oneLine).

/** Control characters but newline and tab: C0, DEL, C1 (NEL among them), the Unicode line and
 *  paragraph separators, and the bidi controls (marks, embeddings, overrides, isolates), which
 *  reorder what a line shows. */
const CONTROLS = '\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
/** A program's words: tab kept. */
const IN_PROGRAM_TEXT = new RegExp(`[\\n${CONTROLS}]`, 'g');
/** The grader's own lines (escapeGraderText): newline and tab kept. */
const IN_GRADER_TEXT = new RegExp(`[${CONTROLS}]`, 'g');
/** One line (oneLine): nothing kept. */
const IN_ONE_LINE = new RegExp(`[\\n\\t${CONTROLS}]`, 'g');
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  return NAMED[char] ?? (code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
}

export function escapeControls(text: string): string {
  return text.replace(IN_PROGRAM_TEXT, escaped);
}

/**
 * One line, whatever a program put in it: a verdict's message (a crash quotes the program's error
 * line, a property the error its function threw), as results.json documents it. Every control
 * character is escaped as escapeControls does, the tab too; the whole is cut at `max` characters.
 */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  return clip(text.replace(IN_ONE_LINE, escaped), max);
}

/** A colour or style (SGR) sequence, as the grader's own painters write them. */
const SGR = /\x1b\[[\d;]*m/y;

/**
 * Text the grader composed, which may quote a program's words (a crash's error line, a property's
 * counterexample). Control characters (as escapeControls has them, newline and tab aside) and escape
 * sequences are shown escaped, except, when `keepColour`, the grader's own colour sequences. C1
 * controls too: U+009B is CSI to a terminal that takes C1 controls in UTF-8.
 */
export function escapeGraderText(text: string, keepColour: boolean): string {
  if (!keepColour || !text.includes('\x1b')) return text.replace(IN_GRADER_TEXT, escaped);
  let out = '';
  let start = 0;
  for (let at = text.indexOf('\x1b'); at !== -1; at = text.indexOf('\x1b', at + 1)) {
    SGR.lastIndex = at;
    if (!SGR.test(text)) continue;
    out += text.slice(start, at).replace(IN_GRADER_TEXT, escaped) + text.slice(at, SGR.lastIndex);
    start = SGR.lastIndex;
    at = start - 1;
  }
  return out + text.slice(start).replace(IN_GRADER_TEXT, escaped);
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
