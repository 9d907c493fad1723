// The one ANSI painter: every colour the grader prints goes through it, and with colour off it
// returns the text unchanged. Each painted run resets what it set, so a line cut anywhere after
// it leaves the terminal as it was.
import type { Span, SpanStyle } from '../run/verdict.ts';

const SGR = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33 } as const;
type Attribute = keyof typeof SGR;

/** How each span style of a verdict looks on a terminal. */
const SPAN_LOOK: Record<SpanStyle, Attribute[]> = {
  heading: ['bold'],
  dim: ['dim'],
  mark: ['dim'],
  expected: ['green'],
  actual: ['red'],
  'expected-mark': ['green', 'dim'],
  'actual-mark': ['red', 'dim'],
  'caret-expected': ['bold', 'green'],
  'caret-actual': ['bold', 'red'],
};

export interface Painter {
  readonly color: boolean;
  paint(attributes: Attribute | Attribute[], text: string): string;
  /** Styled spans as one line of terminal text. */
  spans(spans: readonly Span[]): string;
}

export function painter(color: boolean): Painter {
  const paint = (attributes: Attribute | Attribute[], text: string) => {
    const codes = (Array.isArray(attributes) ? attributes : [attributes]).map((name) => SGR[name]);
    return color && codes.length > 0 && text !== '' ? `\x1b[${codes.join(';')}m${text}\x1b[0m` : text;
  };
  return {
    color,
    paint,
    spans: (spans) => spans.map((span) => (span.style ? paint(SPAN_LOOK[span.style], span.text) : span.text)).join(''),
  };
}
