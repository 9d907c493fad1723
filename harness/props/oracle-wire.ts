// The oracle's wire, one JSON object per line on fd 3 (a socket of its own, apart from the
// student's stdout and stderr). The grader asks for calls of the student's exported functions;
// the oracle answers each one, in the order asked, and decides nothing. Values are written as
// values.ts encodes them. No harness imports: oracle.ts loads this beside the student's module.

/** The oracle's fd for the wire; the grader opens it as the first extra pipe. */
export const PROTOCOL_FD = 3;

/** Grader → oracle: call `fn(...args)`; `args` is the encoding of the argument array. */
export interface CallRequest {
  id: number;
  fn: string;
  args: unknown;
}

// Oracle → grader, in this order: `{type: 'ready'}`, then `{type: 'loaded'}` or `{type: 'unusable'}`
// (with `thrown` or `missing`), then one answer per call: `{id, value}`, the function returned `value`
// (encoded), or `{id, threw}`, it threw `threw` (encoded by encodeThrown). oracle-session.ts reads them.

/** A longer line is not something an oracle sends: an answer is at most values.ts's budget. */
export const MAX_LINE_BYTES = 8 * 1024 * 1024;
