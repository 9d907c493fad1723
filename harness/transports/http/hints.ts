// What the HTTP transport says of a case that failed on it: the line ends of the case's event streams
// (a reader that splits on LF alone misses the blank line of an event ended in CRLF or CR), and a
// stream the server closed before its response that the client did not resume.
import type { Cassette, PlayReport } from '../../cassette/index.ts';
import type { Hint } from '../../hint.ts';

/** Its hints for a failing case, the resumption's first; a stream left unresumed is what the
 *  program waited for, not a read it lost (`waited-for-nothing` is moot then). */
export function failingOverHttp(cassette: Cassette, report: PlayReport | undefined): { hints: Hint[]; moot: string[] } {
  const hints: Hint[] = [];
  const resumption = cassette.frames.some((frame) => (frame.from === 'server' || frame.from === 'sse') && frame.http?.closes) && notResumed(report);
  if (resumption) {
    hints.push({
      kind: 'stream-resumption',
      lines: [
        "the server closed a call's stream before its result: the stream's connection ended, the request did not",
        'wait the retry the stream gave (its retry: field, in ms), then GET the same URL with Accept: text/event-stream and Last-Event-ID: the last id: the stream gave; the rest of the stream, the result among it, comes on that GET',
      ],
    });
  }
  const ends = new Set(cassette.frames.flatMap((frame) => ((frame.from === 'server' || frame.from === 'sse') && frame.http?.lines ? [frame.http.lines] : [])));
  if (ends.size > 0) {
    const named = [...ends].map((end) => (end === 'crlf' ? 'CRLF' : 'a lone CR')).join(' and in ');
    hints.push({
      kind: 'sse-line-ends',
      aboutTheCase: true,
      lines: [
        `this case's event streams end their lines in ${named}: a reader that splits on "\\n" alone (or on "\\r\\n" and "\\n") misses the blank line that ends an event`,
        'a line ends at "\\r\\n", "\\n" or a lone "\\r" (the SSE format allows all three); a "\\r" that ends a read may be half of a "\\r\\n"',
      ],
      general: [
        'an event stream may end its lines in CRLF or a lone CR: a reader that splits on "\\n" alone (or on "\\r\\n" and "\\n") misses the blank line that ends an event',
        'a line ends at "\\r\\n", "\\n" or a lone "\\r" (the SSE format allows all three); a "\\r" that ends a read may be half of a "\\r\\n"',
      ],
    });
  }
  return { hints, moot: resumption ? ['waited-for-nothing'] : [] };
}

/** The player saw a stream the server closed go unresumed, or resumed from the wrong place. */
export function notResumed(report: PlayReport | undefined): boolean {
  return report?.advice.some((advice) => advice.kind === 'http-resume') === true;
}
