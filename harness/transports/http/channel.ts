// Where a client's request is answered over Streamable HTTP, and the order of the writes on a stream.
import type { ServerResponse } from 'node:http';
import type { HttpReply } from '../../cassette/index.ts';

/** One stream's writes in order: each waits for the ones before it (and, paced, for its recorded gap). */
export interface Turns {
  queued: number;
  last: Promise<void>;
  /** The recorded time of the last event put on it. */
  lastAt?: number;
}

/** Where a client's request is answered: its POST, as a JSON body or as an event stream (or, once
 *  the server closed that stream, the GET that resumed it). */
export interface Channel extends Turns {
  response: ServerResponse;
  /** The live id of the request it answers. */
  id: string;
  /** The request, as a student reads it: `tools/call "count" (your id 2)`. */
  what: string;
  /** The id of the last event written on it, and the retry (ms) its events last gave. */
  lastEventId?: string;
  retryMs?: number;
  /** The server closed its connection: what comes for it waits, in order, for the GET that resumes it. */
  suspension?: { closedAt: number; held: (() => void)[] };
  reply?: HttpReply;
  streaming: boolean;
  /** Its response was put out (maybe not written yet): nothing else goes on it. */
  answered: boolean;
  /** An event went on it before its response: the response goes as an event too. */
  evented: boolean;
  ended: boolean;
}

export function turns(): Turns {
  return { queued: 0, last: Promise.resolve() };
}

/** Writes in turn on one stream: at once when nothing waits before it, else after what does; `paced`
 *  (--pace recorded), also after the recorded gap since the stream's last event. */
export function inTurn(paced: boolean, target: Turns, at: number | undefined, write: () => void, gapMs = 0): void {
  const gap = paced && at !== undefined && target.lastAt !== undefined ? Math.max(0, at - target.lastAt) : 0;
  const waitMs = Math.max(gap, gapMs);
  if (at !== undefined) target.lastAt = at;
  if (waitMs === 0 && target.queued === 0) return write();
  target.queued += 1;
  target.last = target.last
    .then(() => (waitMs > 0 ? new Promise((resolve) => setTimeout(resolve, waitMs)) : undefined))
    .then(() => {
      target.queued -= 1;
      write();
    });
}
