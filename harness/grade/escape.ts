// How raw output bytes are shown to a student: every byte ends up in a visible cell, so two
// outputs that differ only in invisible ways (a \r, a tab, a trailing space, a non-breaking
// space, an invalid UTF-8 byte) look different on screen. Marks are chosen so that they cannot
// be confused with the JSON escapes (`\n`, `\"`, `\u00e9`) that the output legitimately contains.

/** One visible unit of a line: a character or a mark standing for one or more bytes. */
export interface Cell {
  /** Byte range [start, end) in the buffer this cell shows. */
  start: number;
  end: number;
  text: string;
  /** Terminal columns the text takes. */
  width: number;
  /** True when the text is a mark for something invisible, not the character itself. */
  mark: boolean;
}

export const MARK = {
  newline: '↵',
  tab: '→',
  space: '·',
  cut: '…',
} as const;

/** What each mark means, for the legend printed under a diff. */
export const MARK_MEANINGS: ReadonlyArray<readonly [test: (text: string) => boolean, meaning: string]> = [
  [(text) => text.includes(MARK.newline), `${MARK.newline} newline (\\n)`],
  [(text) => text.includes(MARK.tab), `${MARK.tab} tab`],
  [(text) => text.includes(MARK.space), `${MARK.space} space`],
  [(text) => text.includes('⟨'), '⟨\\r⟩ ⟨\\xNN⟩ ⟨U+NNNN⟩ a raw byte or an invisible character'],
  [(text) => text.includes(MARK.cut), `${MARK.cut} line cut here`],
];

const CONTINUATION_LOW = 0x80;
const CONTINUATION_HIGH = 0xbf;

/** Characters shown by code point: invisible, spacing or line-breaking ones, and our own marks. */
const CONFUSING = /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}↵→·…⟨⟩]/u;
/** The same, minus ordinary spaces and our marks, for our own prose (which has neither newlines nor tabs). */
const INVISIBLE_IN_PROSE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\u00a0\u2000-\u200a\u202f\u205f\u3000]/gu;
const ZERO_WIDTH = /[\p{Mn}\p{Me}]/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

/** True for a UTF-8 continuation byte (10xxxxxx): never the start of a character. */
export function isContinuationByte(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/** The start of the character that contains `offset` (backs over at most 3 continuation bytes). */
export function characterStart(bytes: Uint8Array, offset: number, floor = 0): number {
  let start = offset;
  while (start > floor && offset - start < 3 && start < bytes.length && isContinuationByte(bytes[start]!)) start--;
  return start;
}

/**
 * The cells for bytes [start, end). A multi-byte character that begins before `end` is kept
 * whole. Newlines become a ↵ cell; trailing spaces are left as spaces (see markTrailingSpaces).
 */
export function toCells(bytes: Uint8Array, start: number, end: number): Cell[] {
  const cells: Cell[] = [];
  let at = start;
  while (at < end) {
    const byte = bytes[at]!;
    if (byte < 0x80) {
      cells.push(asciiCell(byte, at));
      at += 1;
      continue;
    }
    const length = validSequenceLength(bytes, at);
    if (length === 0) {
      cells.push({ start: at, end: at + 1, text: `⟨\\x${hex(byte, 2)}⟩`, width: 6, mark: true });
      at += 1;
      continue;
    }
    const character = Buffer.from(bytes.subarray(at, at + length)).toString('utf8');
    const codePoint = character.codePointAt(0)!;
    if (CONFUSING.test(character)) {
      const text = `⟨U+${hex(codePoint, 4)}⟩`;
      cells.push({ start: at, end: at + length, text, width: text.length, mark: true });
    } else {
      cells.push({ start: at, end: at + length, text: character, width: displayWidth(codePoint, character), mark: false });
    }
    at += length;
  }
  return cells;
}

function asciiCell(byte: number, at: number): Cell {
  const cell = { start: at, end: at + 1 };
  if (byte === 0x0a) return { ...cell, text: MARK.newline, width: 1, mark: true };
  if (byte === 0x09) return { ...cell, text: MARK.tab, width: 1, mark: true };
  if (byte === 0x0d) return { ...cell, text: '⟨\\r⟩', width: 4, mark: true };
  if (byte < 0x20 || byte === 0x7f) return { ...cell, text: `⟨\\x${hex(byte, 2)}⟩`, width: 6, mark: true };
  return { ...cell, text: String.fromCharCode(byte), width: 1, mark: false };
}

/** Length of the well-formed UTF-8 sequence at `at`, or 0 when the byte there starts none. */
function validSequenceLength(bytes: Uint8Array, at: number): number {
  const lead = bytes[at]!;
  let length: number;
  let secondLow = CONTINUATION_LOW;
  let secondHigh = CONTINUATION_HIGH;
  if (lead >= 0xc2 && lead <= 0xdf) length = 2;
  else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead === 0xe0) secondLow = 0xa0; // overlong
    if (lead === 0xed) secondHigh = 0x9f; // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead === 0xf0) secondLow = 0x90; // overlong
    if (lead === 0xf4) secondHigh = 0x8f; // beyond U+10FFFF
  } else return 0;
  if (at + length > bytes.length) return 0;
  const second = bytes[at + 1]!;
  if (second < secondLow || second > secondHigh) return 0;
  for (let next = at + 2; next < at + length; next++) {
    if (!isContinuationByte(bytes[next]!)) return 0;
  }
  return length;
}

/** Columns a terminal gives the character: 0 for combining marks, 2 for wide East Asian and emoji. */
function displayWidth(codePoint: number, character: string): number {
  if (ZERO_WIDTH.test(character)) return 0;
  if (codePoint >= 0x1f000 && PICTOGRAPHIC.test(character)) return 2;
  const wide =
    (codePoint >= 0x1100 && codePoint <= 0x115f) ||
    (codePoint >= 0x2e80 && codePoint <= 0xa4cf && codePoint !== 0x303f) ||
    (codePoint >= 0xac00 && codePoint <= 0xd7a3) ||
    (codePoint >= 0xf900 && codePoint <= 0xfaff) ||
    (codePoint >= 0xfe30 && codePoint <= 0xfe4f) ||
    (codePoint >= 0xff00 && codePoint <= 0xff60) ||
    (codePoint >= 0xffe0 && codePoint <= 0xffe6) ||
    (codePoint >= 0x20000 && codePoint <= 0x3fffd);
  return wide ? 2 : 1;
}

/** Shows the spaces before a line's end as ·, where they would otherwise be invisible. */
export function markTrailingSpaces(cells: Cell[]): void {
  let end = cells.length;
  while (end > 0 && cells[end - 1]!.text === MARK.newline) end--;
  markSpacesBefore(cells, end);
}

/** Marks spaces at a quoted snippet's edges and before its newlines, where they would vanish. */
function markEdgeSpaces(cells: Cell[]): void {
  for (let index = 0; index < cells.length && cells[index]!.text === ' '; index++) markSpace(cells, index);
  markSpacesBefore(cells, cells.length);
  cells.forEach((cell, index) => {
    if (cell.text === MARK.newline) markSpacesBefore(cells, index);
  });
}

/** Marks the run of spaces that ends just before cells[end]. */
function markSpacesBefore(cells: Cell[], end: number): void {
  for (let index = end - 1; index >= 0 && cells[index]!.text === ' '; index--) markSpace(cells, index);
}

function markSpace(cells: Cell[], index: number): void {
  cells[index] = { ...cells[index]!, text: MARK.space, mark: true };
}

/**
 * Bytes from `start` on, as one line of at most `maxWidth` columns (newlines shown as ↵),
 * ending in … when there is more. For "expected continues with: …" and quoting a log line.
 */
export function snippet(bytes: Uint8Array, start: number, maxWidth = 60): string {
  // 4 bytes per column is the most a cell can take, so this bounds the work on huge outputs.
  const end = Math.min(bytes.length, start + maxWidth * 4 + 4);
  const cells = toCells(bytes, start, end);
  markEdgeSpaces(cells);
  let width = 0;
  let text = '';
  for (const cell of cells) {
    if (width + cell.width > maxWidth) return text + MARK.cut;
    text += cell.text;
    width += cell.width;
  }
  return end < bytes.length ? text + MARK.cut : text;
}

/** A string shown the same way as `snippet` shows bytes. */
export function quote(text: string, maxWidth = 60): string {
  return snippet(Buffer.from(text, 'utf8'), 0, maxWidth);
}

function hex(value: number, digits: number): string {
  return value.toString(16).toUpperCase().padStart(digits, '0');
}

/** Text of ours that may carry pieces of the output (error messages, keys): its invisible characters made visible. */
export function visible(text: string): string {
  return text.replace(INVISIBLE_IN_PROSE, (character) => {
    const codePoint = character.codePointAt(0)!;
    if (character === '\r') return '⟨\\r⟩';
    return codePoint < 0x80 ? `⟨\\x${hex(codePoint, 2)}⟩` : `⟨U+${hex(codePoint, 4)}⟩`;
  });
}
