// The account a student reads of a failing case: where the output first differs from
// expected.json (byte offset, line, column), both lines with a caret under that spot, a little
// context, what the JSON says about it, and the hints that name the mistake. Only the lines
// around the difference are decoded, so a 1 MiB output costs a few linear scans. Kept as data:
// styled spans and hint kinds; each reporter turns them into its own text.
import { type Cell, MARK, MARK_MEANINGS, characterStart, isContinuationByte, markTrailingSpaces, snippet, toCells, visible } from './escape.ts';
import { type Comparison, compareOutputs, firstJsonDifference } from './comparison.ts';
import { hintsFor, type HintFinder } from './hints.ts';
import type { Difference, Hint, Span, SpanStyle, StyledLine } from '../run/verdict.ts';

/** Columns of output text a line may take, and how many of them go before the difference. */
const LINE_WIDTH = 96;
const WIDTH_BEFORE_DIFFERENCE = 40;
/** A cell takes at most 4 bytes (one UTF-8 character) and at least one column, except marks
 *  of zero width (combining characters), which are rare enough to just make the window short. */
const MAX_BYTES_PER_COLUMN = 4;
const CONTEXT_LINES = 2;

type Side = 'expected' | 'actual';

export interface ExplainOptions {
  /** The stages' rules that explain the output (CourseContent.hintRules of its stage). */
  hintRules?: readonly HintFinder[];
}

export interface Explanation {
  difference: Difference;
  hints: Hint[];
}

/** How `actual` differs from `expected`, or undefined when they are the same bytes. */
export function explainDifference(expected: Buffer, actual: Buffer, options: ExplainOptions = {}): Explanation | undefined {
  const offset = firstDifferingByte(expected, actual);
  if (offset < 0) return undefined;
  const comparison = compareOutputs(expected, actual);
  const lineStart = offset === 0 ? 0 : expected.lastIndexOf(0x0a, offset - 1) + 1;
  const lineNumber = countNewlines(expected, lineStart) + 1;
  const column = countCharacters(expected, lineStart, characterStart(expected, offset, lineStart)) + 1;
  const hints = hintsFor(comparison, options.hintRules);
  const lines: StyledLine[] = [plain(`first difference at byte offset ${offset} (line ${lineNumber}, column ${column})`)];
  const difference = { offset, line: lineNumber, column, lines };
  const jsonNote = describeJsonDifference(comparison);
  if (jsonNote) lines.push(plain(visible(jsonNote)));
  if (actual.length === 0) {
    lines.push(plain(`your output is empty; expected.json begins with: ${snippet(expected, 0)}`));
  } else if (offset === actual.length) {
    lines.push(plain(`your output stops after ${actual.length} bytes; expected.json continues with: ${snippet(expected, offset)}`));
  } else if (offset === expected.length) {
    const extra = actual.length - offset;
    lines.push(plain(`your output has ${extra} extra byte${extra === 1 ? '' : 's'} after the expected ${offset}: ${snippet(actual, offset)}`));
  }

  const window = differenceWindow(expected, actual, offset, lineStart);
  lines.push(heading('expected.json:'), ...renderSide(expected, 'expected', window, lineStart, lineNumber));
  if (actual.length > 0) lines.push(heading('your stdout:'), ...renderSide(actual, 'actual', window, lineStart, lineNumber));

  const shown = lines.map(textOf).join('\n');
  const marks = MARK_MEANINGS.filter(([used]) => used(shown)).map(([, meaning]) => meaning);
  if (marks.length > 0) lines.push([{ text: `marks: ${marks.join(', ')}`, style: 'dim' }]);
  return { difference, hints };
}

/** The first byte offset where the two differ, or -1 when they are equal. */
function firstDifferingByte(expected: Buffer, actual: Buffer): number {
  const common = Math.min(expected.length, actual.length);
  // Compare big blocks natively and walk only the block that differs.
  const block = 4096;
  let at = 0;
  while (at < common) {
    const end = Math.min(common, at + block);
    if (expected.compare(actual, at, end, at, end) !== 0) {
      while (expected[at] === actual[at]) at++;
      return at;
    }
    at = end;
  }
  return expected.length === actual.length ? -1 : common;
}

function countNewlines(bytes: Buffer, end: number): number {
  let count = 0;
  for (let at = bytes.indexOf(0x0a); at >= 0 && at < end; at = bytes.indexOf(0x0a, at + 1)) count++;
  return count;
}

function countCharacters(bytes: Buffer, start: number, end: number): number {
  let count = 0;
  for (let at = start; at < end; at++) if (!isContinuationByte(bytes[at]!)) count++;
  return count;
}

function describeJsonDifference(comparison: Comparison): string | undefined {
  const { expectedJson, actualRawJson, actualJson, actualText } = comparison;
  if (!expectedJson.ok || actualText.length === 0) return undefined;
  const where = (actualValue: unknown) => {
    const difference = firstJsonDifference(expectedJson.value, actualValue);
    if (difference === undefined) return undefined;
    return `first difference at ${difference.path === '' ? 'the top level' : difference.path} (${difference.note})`;
  };
  if (actualRawJson.ok) {
    return `in the JSON: ${where(actualRawJson.value) ?? 'the values are equal; the bytes between the tokens differ'}`;
  }
  const notJson = actualRawJson.tooDeep ? `your stdout is JSON ${actualRawJson.error}` : `your stdout is not valid JSON (${actualRawJson.error})`;
  if (!actualJson.ok) return notJson;
  return `${notJson}; without the lines that are not JSON: ${where(actualJson.value) ?? 'the JSON is right'}`;
}

// ---------------------------------------------------------------------------- the diff blocks

/** What both sides show of the line with the difference: the same columns, the caret in the same place. */
interface DifferenceWindow {
  cells: Record<Side, Cell[]>;
  /** Index of the cell under the caret (may be cells.length: past the end). */
  caret: number;
  /** Index of the first cell shown. */
  firstShown: number;
  /** Whether the line starts before the first cell shown. */
  cutBefore: boolean;
  /** Whether the line goes on past the last decoded cell. */
  cutAfter: Record<Side, boolean>;
  lineEnd: Record<Side, number>;
}

function differenceWindow(expected: Buffer, actual: Buffer, offset: number, lineStart: number): DifferenceWindow {
  // The bytes before `offset` are the same on both sides, so so is where the window starts.
  const decodeFrom = characterStart(expected, Math.max(lineStart, offset - WIDTH_BEFORE_DIFFERENCE * MAX_BYTES_PER_COLUMN), lineStart);
  const sides = { expected, actual };
  const cells = {} as Record<Side, Cell[]>;
  const cutAfter = {} as Record<Side, boolean>;
  const lineEnd = {} as Record<Side, number>;
  for (const side of ['expected', 'actual'] as const) {
    const bytes = sides[side];
    const newline = bytes.indexOf(0x0a, offset);
    lineEnd[side] = newline < 0 ? bytes.length : newline + 1;
    const decodeTo = Math.min(lineEnd[side], offset + LINE_WIDTH * MAX_BYTES_PER_COLUMN);
    cells[side] = toCells(bytes, decodeFrom, decodeTo);
    cutAfter[side] = decodeTo < lineEnd[side];
    if (!cutAfter[side]) markTrailingSpaces(cells[side]);
  }
  // The caret goes under the first cell that differs or that holds the differing byte.
  let caret = 0;
  const same = (left: Cell | undefined, right: Cell | undefined) =>
    left !== undefined && right !== undefined && left.end === right.end && left.text === right.text;
  while (same(cells.expected[caret], cells.actual[caret]) && cells.expected[caret]!.end <= offset) caret++;
  let firstShown = caret;
  let widthBefore = 0;
  while (firstShown > 0 && widthBefore + cells.expected[firstShown - 1]!.width <= WIDTH_BEFORE_DIFFERENCE) {
    firstShown--;
    widthBefore += cells.expected[firstShown]!.width;
  }
  return { cells, caret, firstShown, cutBefore: firstShown > 0 || decodeFrom > lineStart, cutAfter, lineEnd };
}

function renderSide(bytes: Buffer, side: Side, window: DifferenceWindow, lineStart: number, lineNumber: number): StyledLine[] {
  const before = linesBefore(bytes, lineStart, CONTEXT_LINES);
  const after = linesAfter(bytes, window.lineEnd[side], CONTEXT_LINES);
  const lastNumber = lineNumber + after.length;
  const gutterWidth = String(lastNumber).length;
  const gutter = (number: number | undefined): Span => ({ text: `${String(number ?? '').padStart(gutterWidth)} │ `, style: 'dim' });

  const rendered: StyledLine[] = [];
  before.forEach((start, index) => {
    rendered.push([gutter(lineNumber - before.length + index), ...renderWholeLine(bytes, start)]);
  });

  const cells = window.cells[side];
  let caretColumn = window.cutBefore ? 1 : 0;
  let width = caretColumn;
  let lastShown = window.firstShown;
  for (; lastShown < cells.length && width + cells[lastShown]!.width <= LINE_WIDTH; lastShown++) {
    if (lastShown < window.caret) caretColumn += cells[lastShown]!.width;
    width += cells[lastShown]!.width;
  }
  const cut = window.cutAfter[side] || lastShown < cells.length;
  rendered.push([
    gutter(lineNumber),
    ...(window.cutBefore ? [cutMark()] : []),
    ...cellSpans(cells.slice(window.firstShown, Math.min(window.caret, lastShown)), undefined),
    ...cellSpans(cells.slice(Math.min(window.caret, lastShown), lastShown), side),
    ...(cut ? [cutMark()] : []),
  ]);
  const atEnd = window.caret >= cells.length && !window.cutAfter[side] && window.lineEnd[side] === bytes.length;
  const label = atEnd ? ` ${side === 'expected' ? 'expected.json ends here' : 'your output ends here'}` : '';
  rendered.push([gutter(undefined), { text: ' '.repeat(caretColumn) }, { text: `^${label}`, style: `caret-${side}` }]);

  after.forEach((start, index) => {
    rendered.push([gutter(lineNumber + 1 + index), ...renderWholeLine(bytes, start)]);
  });
  return rendered;
}

/** Starts of up to `count` lines before the line starting at `lineStart`, in order. */
function linesBefore(bytes: Buffer, lineStart: number, count: number): number[] {
  const starts: number[] = [];
  let start = lineStart;
  while (starts.length < count && start > 0) {
    start = start - 1 === 0 ? 0 : bytes.lastIndexOf(0x0a, start - 2) + 1;
    starts.unshift(start);
  }
  return starts;
}

/** Starts of up to `count` lines from `start` on (a line needs at least one byte). */
function linesAfter(bytes: Buffer, start: number, count: number): number[] {
  const starts: number[] = [];
  let next = start;
  while (starts.length < count && next < bytes.length) {
    starts.push(next);
    const newline = bytes.indexOf(0x0a, next);
    next = newline < 0 ? bytes.length : newline + 1;
  }
  return starts;
}

/** A context line from its start, cut with … when it is wider than the window. */
function renderWholeLine(bytes: Buffer, start: number): Span[] {
  const newline = bytes.indexOf(0x0a, start);
  const lineEnd = newline < 0 ? bytes.length : newline + 1;
  const decodeTo = Math.min(lineEnd, start + LINE_WIDTH * MAX_BYTES_PER_COLUMN);
  const cells = toCells(bytes, start, decodeTo);
  if (decodeTo === lineEnd) markTrailingSpaces(cells);
  let width = 0;
  let shown = 0;
  for (; shown < cells.length && width + cells[shown]!.width <= LINE_WIDTH; shown++) width += cells[shown]!.width;
  const line = cellSpans(cells.slice(0, shown), undefined);
  return decodeTo < lineEnd || shown < cells.length ? [...line, cutMark()] : line;
}

// -------------------------------------------------------------------------------------- spans

function plain(text: string): StyledLine {
  return [{ text }];
}

function heading(text: string): StyledLine {
  return [{ text, style: 'heading' }];
}

function cutMark(): Span {
  return { text: MARK.cut, style: 'dim' };
}

function textOf(line: StyledLine): string {
  return line.map((span) => span.text).join('');
}

/** Cells as spans, one per run of marks or of plain characters; from the difference on (`side`
 *  given) in that side's style, so a reporter can colour expected and yours apart. */
function cellSpans(cells: Cell[], side: Side | undefined): Span[] {
  const spans: Span[] = [];
  for (let start = 0; start < cells.length; ) {
    let end = start + 1;
    while (end < cells.length && cells[end]!.mark === cells[start]!.mark) end++;
    const text = cells
      .slice(start, end)
      .map((cell) => cell.text)
      .join('');
    const mark = cells[start]!.mark;
    const style: SpanStyle | undefined = side ? (mark ? `${side}-mark` : side) : mark ? 'mark' : undefined;
    spans.push(style === undefined ? { text } : { text, style });
    start = end;
  }
  return spans;
}
