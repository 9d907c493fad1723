// The SSE parser and writer: every way a stream can cut its lines and bytes gives the same events,
// and an event written by formatSseEvent parses back to itself.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSseEvent, parseSse, SseParser, type SseEvent } from '../../harness/transports/http/sse.ts';

/** Feeds `bytes` cut at every given offset, as separate chunks. */
function parseInChunks(bytes: Buffer, cuts: number[]): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  let from = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    events.push(...parser.push(bytes.subarray(from, cut)));
    from = cut;
  }
  events.push(...parser.push(bytes.subarray(from)), ...parser.end());
  return events;
}

/** What server-everything writes on a POST stream: a priming event, then a message. */
const EVERYTHING_STREAM =
  'id: 5e56201a-5c94-4892-b0b3-21d123f79918\ndata: \n\n' +
  'event: message\nid: 5a4d5ed0-d2b9-4d86-ac7a-f42e5c12fd32\ndata: {"result":{},"jsonrpc":"2.0","id":0}\n\n';

describe('SseParser', () => {
  it("reads server-everything's priming event (empty data, an id) and its message event", () => {
    expect(parseSse(EVERYTHING_STREAM)).toEqual([
      { id: '5e56201a-5c94-4892-b0b3-21d123f79918', data: '' },
      { event: 'message', id: '5a4d5ed0-d2b9-4d86-ac7a-f42e5c12fd32', data: '{"result":{},"jsonrpc":"2.0","id":0}' },
    ]);
  });

  it('reads LF, CR and CRLF line ends alike, whatever chunk boundaries fall between CR and LF, and says which an event had', () => {
    const lf = 'event: message\ndata: one\ndata: two\n\n: ping\n\n';
    const expected = parseSse(lf);
    expect(expected).toEqual([{ event: 'message', data: 'one\ntwo' }, { comments: ['ping'] }]);
    for (const [ending, lines] of [
      ['\r', 'cr'],
      ['\r\n', 'crlf'],
    ] as const) {
      const bytes = Buffer.from(lf.replaceAll('\n', ending));
      for (let cut = 0; cut <= bytes.length; cut++) expect(parseInChunks(bytes, [cut])).toEqual(expected.map((event) => ({ ...event, lines })));
    }
  });

  it("takes an event's line end from its first line when they mix", () => {
    expect(parseSse('data: a\r\ndata: b\n\ndata: c\rdata: d\r\n\r\ndata: e\ndata: f\r\r')).toEqual([
      { data: 'a\nb', lines: 'crlf' },
      { data: 'c\nd', lines: 'cr' },
      { data: 'e\nf' },
    ]);
  });

  it('a CR at the end of one chunk and an LF at the start of the next are one line end, even with an empty chunk between', () => {
    const parser = new SseParser();
    expect(parser.push(Buffer.from('data: a\r'))).toEqual([]);
    expect(parser.push(Buffer.from(''))).toEqual([]);
    expect(parser.push(Buffer.from('\n'))).toEqual([]);
    expect(parser.push(Buffer.from('\r\n'))).toEqual([{ data: 'a', lines: 'crlf' }]);
  });

  it('keeps a UTF-8 character split across chunks whole, at every cut', () => {
    const bytes = Buffer.from('data: {"text":"café ✓ 😀"}\n\n');
    for (let cut = 0; cut <= bytes.length; cut++) {
      expect(parseInChunks(bytes, [cut])).toEqual([{ data: '{"text":"café ✓ 😀"}' }]);
      expect(parseInChunks(bytes, [cut, Math.min(cut + 1, bytes.length), Math.min(cut + 2, bytes.length)])).toEqual([{ data: '{"text":"café ✓ 😀"}' }]);
    }
  });

  it('keeps comments (without the colon and one space) with the event they come before; a block of comments alone is its own event', () => {
    expect(parseSse(': keepalive\n\n:no space\n:  two spaces\nevent: message\ndata: x\n\n')).toEqual([
      { comments: ['keepalive'] },
      { comments: ['no space', ' two spaces'], event: 'message', data: 'x' },
    ]);
  });

  it('joins multi-line data with LF, tells an empty data field from none, and reads fields without a space or a colon', () => {
    expect(parseSse('data:a\ndata\ndata: c\n\nid: 7\n\nretry: 1500\ndata\n\n')).toEqual([{ data: 'a\n\nc' }, { id: '7' }, { retry: 1500, data: '' }]);
  });

  it('ignores unknown fields, a retry that is not a number and an id with NUL, as EventSource does; blank lines in a row are no event', () => {
    expect(parseSse('\n\nfoo: bar\nretry: soon\nid: a\0b\ndata: x\n\n\n\n')).toEqual([{ data: 'x' }]);
  });

  it('drops a byte order mark at the start of the stream only', () => {
    expect(parseSse(Buffer.from('\uFEFFdata: \uFEFFx\n\n'))).toEqual([{ data: '\uFEFFx' }]);
  });

  it('does not give out a last event until the stream ends, and then gives it without its blank line', () => {
    const parser = new SseParser();
    expect(parser.push('event: message\ndata: {"a":1}\n')).toEqual([]);
    expect(parser.push('data: more')).toEqual([]);
    expect(parser.end()).toEqual([{ event: 'message', data: '{"a":1}\nmore' }]);
  });
});

describe('formatSseEvent', () => {
  it('writes the bytes server-everything writes: priming event and message event', () => {
    const [priming, message] = parseSse(EVERYTHING_STREAM) as [SseEvent, SseEvent];
    const { data: primingData, ...primingFields } = priming;
    const { data: messageData, ...messageFields } = message;
    expect(formatSseEvent(primingFields, primingData) + formatSseEvent(messageFields, messageData)).toBe(EVERYTHING_STREAM);
  });

  it('writes comments, then event, id, retry, one data line per line, then the blank line; no data line without data', () => {
    expect(formatSseEvent({ comments: ['a', ''], event: 'message', id: '1', retry: 10 }, 'x\ny')).toBe(
      ': a\n: \nevent: message\nid: 1\nretry: 10\ndata: x\ndata: y\n\n',
    );
    expect(formatSseEvent({ comments: ['keepalive'] }, undefined)).toBe(': keepalive\n\n');
  });

  it('ends every line, the blank one too, as `lines` says', () => {
    expect(formatSseEvent({ event: 'message', lines: 'crlf' }, 'x\ny')).toBe('event: message\r\ndata: x\r\ndata: y\r\n\r\n');
    expect(formatSseEvent({ comments: ['keepalive'], lines: 'cr' }, '')).toBe(': keepalive\rdata: \r\r');
  });

  it('round-trips through the parser, cut anywhere', () => {
    // Field values and comments have no line ends (they cannot); data is any text, lines joined with LF.
    const line = fc.string({ unit: 'grapheme' }).map((text) => text.replace(/[\r\n]/g, ''));
    const value = line.filter((text) => !text.includes('\0'));
    const event = fc.record(
      {
        comments: fc.array(line, { minLength: 1, maxLength: 3 }),
        event: value,
        id: value,
        retry: fc.nat(),
        data: fc.array(line, { minLength: 1, maxLength: 3 }).map((lines) => lines.join('\n')),
        lines: fc.constantFrom('crlf' as const, 'cr' as const),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 4 }), (events, cuts) => {
        // A block with nothing in it writes only its blank line, which is no event.
        const written = events.filter((item) => Object.keys(item).some((key) => key !== 'lines'));
        const bytes = Buffer.from(events.map(({ data, ...fields }) => formatSseEvent(fields, data)).join(''));
        expect(
          parseInChunks(
            bytes,
            cuts.map((cut) => cut % (bytes.length + 1)),
          ),
        ).toEqual(written);
      }),
    );
  });
});
