// Server-sent events (text/event-stream), as the Streamable HTTP transport carries messages: an
// incremental parser for what a server writes, and the writer that puts an event back on the wire.
// The parser keeps more than a browser's EventSource would (comments, an event with no data, the
// presence of an empty `data:`), because a recording must be able to write the same bytes again.
import { StringDecoder } from 'node:string_decoder';

/** The fields of one event besides its data: how a cassette places it on a stream. */
export interface SseFields {
  id?: string;
  event?: string;
  retry?: number;
  /** Comment lines just before the event, without the ':' and one optional space. */
  comments?: string[];
  /** How the event's lines end when not in LF (its first line's, should they mix): Python servers
   *  (sse-starlette) end theirs in CRLF, and the SSE format allows a bare CR too. */
  lines?: LineEnd;
}

export type LineEnd = 'crlf' | 'cr';

const TERMINATOR: Record<LineEnd | 'lf', string> = { lf: '\n', crlf: '\r\n', cr: '\r' };

export interface SseEvent extends SseFields {
  /** The data lines joined with '\n'; undefined when the block had no data field at all. */
  data?: string;
}

/**
 * Feed it the body's chunks as they arrive; each call returns the events whose blank line has
 * arrived. Lines may end in CR, LF or CRLF (even a CRLF split across chunks), and a UTF-8
 * character may be split across chunks. `end()` returns what is left: a last event the stream
 * ended without its blank line.
 */
export class SseParser {
  private readonly decoder = new StringDecoder('utf8');
  /** The text of a line not yet ended. */
  private partial = '';
  /** The last chunk ended in CR: an LF starting the next one belongs to it. */
  private afterCR = false;
  /** The block's first line is the one whose CR ended the last chunk. */
  private firstLineEnded = false;
  private started = false;
  /** How the block's first line ended; a CR that ended a chunk is taken for a bare CR until the next chunk says. */
  private ending: LineEnd | 'lf' | undefined;
  private block: SseEvent = {};
  private dataLines: string[] | undefined;

  push(chunk: Buffer | string): SseEvent[] {
    let text = typeof chunk === 'string' ? chunk : this.decoder.write(chunk);
    if (!this.started && text !== '') {
      this.started = true;
      if (text.startsWith('\uFEFF')) text = text.slice(1); // a byte order mark is not part of the stream
    }
    if (text === '') return [];
    if (this.afterCR && text.startsWith('\n')) {
      text = text.slice(1);
      if (this.ending === 'cr' && this.firstLineEnded) this.ending = 'crlf';
    }
    this.afterCR = false;
    this.firstLineEnded = false;
    const events: SseEvent[] = [];
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const char = text[i];
      if (char !== '\n' && char !== '\r') continue;
      const line = this.partial + text.slice(start, i);
      this.partial = '';
      let ending: LineEnd | 'lf' = char === '\n' ? 'lf' : 'cr';
      if (char === '\r') {
        if (i + 1 === text.length) this.afterCR = true;
        else if (text[i + 1] === '\n') {
          ending = 'crlf';
          i++;
        }
      }
      start = i + 1;
      if (line !== '' && this.ending === undefined) {
        this.ending = ending;
        this.firstLineEnded = this.afterCR;
      }
      const event = this.line(line);
      if (event) events.push(event);
    }
    this.partial += text.slice(start);
    return events;
  }

  /** The stream ended: its last line and event, even without their terminators. */
  end(): SseEvent[] {
    const events = this.push(this.decoder.end());
    if (this.partial !== '') {
      const line = this.partial;
      this.partial = '';
      this.line(line);
    }
    const last = this.dispatch();
    return last ? [...events, last] : events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') return this.dispatch();
    if (line.startsWith(':')) {
      (this.block.comments ??= []).push(withoutSpace(line.slice(1)));
      return undefined;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : withoutSpace(line.slice(colon + 1));
    if (field === 'data') (this.dataLines ??= []).push(value);
    else if (field === 'event') this.block.event = value;
    else if (field === 'id' && !value.includes('\0')) this.block.id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.block.retry = Number(value);
    // any other field is ignored, as EventSource ignores it
    return undefined;
  }

  /** A blank line ends the block; a block with nothing in it (blank lines in a row) is no event. */
  private dispatch(): SseEvent | undefined {
    const block = this.block;
    if (this.dataLines !== undefined) block.data = this.dataLines.join('\n');
    if (this.ending === 'crlf' || this.ending === 'cr') block.lines = this.ending;
    this.ending = undefined;
    this.block = {};
    this.dataLines = undefined;
    return Object.keys(block).some((key) => key !== 'lines') ? block : undefined;
  }
}

function withoutSpace(value: string): string {
  return value.startsWith(' ') ? value.slice(1) : value;
}

/** Every event of a whole body. */
export function parseSse(body: Buffer | string): SseEvent[] {
  const parser = new SseParser();
  return [...parser.push(body), ...parser.end()];
}

/**
 * The bytes of one event as the MCP SDK's server writes them: comments, then `event:`, `id:`,
 * `retry:`, one `data:` line per line of data (`data: ` for empty data, as a priming event has),
 * then the blank line; each line ended as `lines` says (LF when absent). Without data, the event has
 * no data line (a block of comments only).
 */
export function formatSseEvent(placement: SseFields, data: string | undefined): string {
  const end = TERMINATOR[placement.lines ?? 'lf'];
  let text = '';
  for (const comment of placement.comments ?? []) text += `: ${comment}${end}`;
  if (placement.event !== undefined) text += `event: ${placement.event}${end}`;
  if (placement.id !== undefined) text += `id: ${placement.id}${end}`;
  if (placement.retry !== undefined) text += `retry: ${placement.retry}${end}`;
  if (data !== undefined) for (const line of data.split('\n')) text += `data: ${line}${end}`;
  return text + end;
}
