// The one freedom the player gives a client: its answer to a request of the server's has no place
// among the client's own messages (a client answers when its handler is done, which may be after its
// next request), only after that request. Which recorded messages were taken before their place,
// which answers the session went past, and where a message out of the order belongs.
import { idKey, kindOf, type Cassette, type ClientFrame, type JsonObject } from '../format/model.ts';

export class OutOfPlace {
  /** Recorded client messages taken before their place (placeOf): passed over when reached. */
  readonly early = new Set<number>();
  /** Recorded answers to server requests that the session went past before the client sent them. */
  readonly owed = new Set<number>();
  /** The ids of the server requests played so far: the client may answer only these. */
  readonly playedRequests = new Set<string>();

  constructor(private readonly cassette: Cassette) {}

  /** Where `message` belongs when not at the next recorded client message: an answer to a played
   *  server request at that request's recorded answer, wherever it is; any other message, when the
   *  client owes the answer recorded next, at the first recorded message of the client's own past it. */
  placeOf(message: JsonObject, position: number): number | undefined {
    const frames = this.cassette.frames;
    if (kindOf(message) === 'response') {
      const key = idKey(message.id);
      if (!this.playedRequests.has(key)) return undefined;
      const owed = [...this.owed].find((index) => idKey((frames[index] as ClientFrame).message.id) === key);
      if (owed !== undefined) return owed;
      for (let i = position + 1; i < frames.length; i++) {
        if (this.isAnswer(i) && !this.early.has(i) && idKey((frames[i] as ClientFrame).message.id) === key) return i;
      }
      return undefined;
    }
    if (!this.isAnswer(position)) return undefined;
    for (let i = position + 1; i < frames.length; i++) {
      if (frames[i]!.from === 'client' && !this.isAnswer(i) && !this.early.has(i)) return i;
    }
    return undefined;
  }

  /** A recorded client answer to a server request. */
  isAnswer(index: number): boolean {
    const frame = this.cassette.frames[index];
    return frame?.from === 'client' && kindOf(frame.message) === 'response';
  }

  /** The recorded client messages the session never had, from `position` on: those passed over
   *  (owed), and those not reached and not taken early; in recorded order. */
  unused(position: number): number[] {
    const unused = [...this.owed];
    for (let i = position; i < this.cassette.frames.length; i++) if (this.cassette.frames[i]!.from === 'client' && !this.early.has(i)) unused.push(i);
    return unused.sort((a, b) => a - b);
  }
}
