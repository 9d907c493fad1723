// The ids of a played session, both ways: a recorded client request's id (and its progress token)
// and the one the live client used, and the method of each; the server's recorded messages are
// rewritten with the live ids (a response's id, a progress notification's token, a cancellation's
// request id) before they go out.
import { idKey, isObject, kindOf, type Json, type JsonObject } from '../format/model.ts';
import type { Edit } from './raw-edit.ts';

/** A rewrite of a recorded server message: the path, and the live value there. */
export type IdEdit = Edit & { value: Json };

export class IdMap {
  /** Recorded id of a client request -> the id the live client used. */
  private readonly liveIdOf = new Map<string, Json>();
  private readonly recordedIdOfLive = new Map<string, Json>();
  private readonly liveTokenOf = new Map<string, Json>();
  private readonly methodOfRecordedId = new Map<string, string>();

  /** A recorded client request and the live one consumed at its place. */
  link(recorded: JsonObject, actual: JsonObject): void {
    this.liveIdOf.set(idKey(recorded.id), actual.id ?? null);
    this.recordedIdOfLive.set(idKey(actual.id), recorded.id ?? null);
    this.methodOfRecordedId.set(idKey(recorded.id), recorded.method as string);
    const recordedToken = progressToken(recorded);
    const liveToken = progressToken(actual);
    if (recordedToken !== undefined && liveToken !== undefined) this.liveTokenOf.set(idKey(recordedToken), liveToken);
  }

  /** The recorded id of the request the live client sent with `liveId`. */
  recordedIdOf(liveId: Json | undefined): Json | undefined {
    return this.recordedIdOfLive.get(idKey(liveId));
  }

  /** The method of the recorded client request with this id. */
  methodOf(recordedId: Json | undefined): string | undefined {
    return this.methodOfRecordedId.get(idKey(recordedId));
  }

  /** What to rewrite in a recorded server message so that it answers the live client's ids. */
  editsFor(message: JsonObject): IdEdit[] {
    const edits: IdEdit[] = [];
    const kind = kindOf(message);
    if (kind === 'response') {
      const live = this.liveIdOf.get(idKey(message.id));
      if (live !== undefined) edits.push({ path: ['id'], value: live, replacement: '' });
    } else if (kind === 'notification' && isObject(message.params)) {
      if (message.method === 'notifications/progress' && 'progressToken' in message.params) {
        const live = this.liveTokenOf.get(idKey(message.params.progressToken));
        if (live !== undefined) edits.push({ path: ['params', 'progressToken'], value: live, replacement: '' });
      } else if (message.method === 'notifications/cancelled' && 'requestId' in message.params) {
        const live = this.liveIdOf.get(idKey(message.params.requestId));
        if (live !== undefined) edits.push({ path: ['params', 'requestId'], value: live, replacement: '' });
      }
    }
    return edits;
  }
}

/** The message with the edits applied (what editsFor gave). */
export function applyEdits(message: JsonObject, edits: IdEdit[]): JsonObject {
  let result = message;
  for (const edit of edits) {
    if (edit.path.length === 1) result = { ...result, [edit.path[0]!]: edit.value };
    else result = { ...result, params: { ...(result.params as JsonObject), [edit.path[1]!]: edit.value } };
  }
  return result;
}

function progressToken(message: JsonObject): Json | undefined {
  const params = message.params;
  if (!isObject(params) || !isObject(params._meta)) return undefined;
  return params._meta.progressToken;
}
