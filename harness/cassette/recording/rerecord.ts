// A re-recording over a cassette (`record --force`) keeps what a person added to it by hand, where
// the interaction it belongs to is still there: free paths (the cassette's and each frame's), the
// cuts of a message into reads (`chunks`, `cuts`), `flush: false`, comments (at the top of the file
// and above a frame) and the provenance note. Frames are paired in order by side, kind, method and
// id. What cannot be kept is said, one line each.
import { createRequire } from 'node:module';
import { getAt, parsePath } from '../../exchange/json-path.ts';
import { compactLine, kindOf, type Cassette, type Frame, type JsonObject } from '../format/model.ts';
import { looksNondeterministic } from './normalise.ts';

type Messaged = Extract<Frame, { from: 'client' | 'server' }>;

export function keepHandEdits(previous: Cassette, previousText: string, next: Cassette): string[] {
  const lost: string[] = [];
  const globalFree = (previous.free ?? []).filter((path) => !(next.free ?? []).includes(path));
  if (globalFree.length > 0) next.free = [...(next.free ?? []), ...globalFree];
  if (previous.provenance.note !== undefined && next.provenance.note === undefined) next.provenance.note = previous.provenance.note;
  if (previous.comment !== undefined) next.comment = previous.comment;

  let from = 0;
  for (const before of previous.frames) {
    if (before.from !== 'client' && before.from !== 'server') continue;
    if (!handEdited(before)) {
      from = Math.max(from, pair(before, next.frames, from) + 1);
      continue;
    }
    const index = pair(before, next.frames, from);
    const at = `the frame at line ${before.line ?? '?'} (${describe(before.message)})`;
    if (index < 0) {
      lost.push(`${at}: it is no longer in the session, and its hand edits went with it`);
      continue;
    }
    from = index + 1;
    const now = next.frames[index] as Messaged;
    if (before.comment !== undefined) now.comment = before.comment;
    if (before.free) now.free = [...new Set([...(now.free ?? []), ...before.free])];
    if (before.from !== 'server' || now.from !== 'server') continue;
    if (before.flush === false) now.flush = false;
    if (before.chunks === undefined && before.cuts === undefined) continue;
    // Cuts are byte positions in the message: they mean the same only in the same bytes.
    if (bytesOf(before) !== bytesOf(now)) {
      lost.push(`${at}: its cut into reads (${before.chunks ? 'chunks' : 'cuts'}), since the server now sends other bytes`);
      continue;
    }
    if (before.chunks) now.chunks = before.chunks;
    if (before.cuts) now.cuts = before.cuts;
  }
  // Comments as YAML reads them (not a `#` inside a string or a block of text), less those kept or
  // gone with their message's frame: what is left sat elsewhere.
  const { Lexer } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const comments = [...new Lexer().lex(previousText)].filter((token) => token.startsWith('#')).length;
  const lines = (comment: string | undefined) => (comment === undefined ? 0 : comment.split('\n').length);
  const placed =
    lines(previous.comment) + previous.frames.reduce((sum, frame) => sum + (frame.from === 'client' || frame.from === 'server' ? lines(frame.comment) : 0), 0);
  const elsewhere = comments - placed;
  if (elsewhere > 0) {
    lost.push(
      `${elsewhere} comment line${elsewhere === 1 ? '' : 's'} inside a frame, at the end of a line or above a stdout or stderr line (record keeps those at the top and above a message): copy them back from the old file`,
    );
  }
  return lost;
}

/** What record itself never writes on a frame: a person put it there. (Record marks free the paths
 *  of values that look nondeterministic; any other free path is a person's.) */
function handEdited(frame: Messaged): boolean {
  const handFree = (frame.free ?? []).some((path) => {
    const value = path.includes('*') ? undefined : getAt(frame.message, parsePath(path));
    return !(typeof value === 'string' && looksNondeterministic(value));
  });
  if (frame.comment !== undefined) return true;
  if (frame.from === 'client') return handFree;
  return handFree || frame.chunks !== undefined || frame.cuts !== undefined || frame.flush === false;
}

/** The first frame of `frames` from `from` on that is the same message; -1 when none is. */
function pair(before: Messaged, frames: readonly Frame[], from: number): number {
  for (let i = from; i < frames.length; i++) {
    const frame = frames[i]!;
    if (frame.from === before.from && same(frame.message, before.message)) return i;
  }
  return -1;
}

function same(a: JsonObject, b: JsonObject): boolean {
  return kindOf(a) === kindOf(b) && a.method === b.method && JSON.stringify(a.id) === JSON.stringify(b.id);
}

function bytesOf(frame: Extract<Frame, { from: 'server' }>): string {
  return frame.raw ?? compactLine(frame.message);
}

function describe(message: JsonObject): string {
  const kind = kindOf(message);
  return kind === 'response'
    ? `response ${JSON.stringify(message.id)}`
    : `${message.method}${message.id === undefined ? '' : ` ${JSON.stringify(message.id)}`}`;
}
