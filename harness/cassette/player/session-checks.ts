// The rules of an MCP session a client keeps whatever the recording holds: the lifecycle's order
// around the initialize result, and request ids never used before. Said through the player.
import type { DiagnosisKind } from '../../exchange/diagnosis.ts';
import { idKey, isObject, kindOf, type Json, type JsonObject } from '../format/model.ts';
import type { Fields } from '../../exchange/kept.ts';
import type { Arrival } from './player-output.ts';
import { describeMessage } from './player-words.ts';
import { isStatelessMessage } from './stateless.ts';

export class SessionChecks {
  /** Every id the client gave a request in this session -> that request's method; a stateless request's
   *  (2026-07-28) only until its response is written, after which its id may be used again. */
  private readonly methodOfLiveId = new Map<string, string>();
  /** The ids of stateless requests not answered yet. */
  private readonly statelessLiveIds = new Set<string>();

  constructor(private readonly diagnose: (kind: DiagnosisKind, message: () => string, fields: Fields) => void) {}

  /** A client message, as it arrived. */
  arrived(message: JsonObject, arrival: Arrival): void {
    // The lifecycle's rules: initialized follows a successful initialize (a MUST); until the result comes a
    // client should send no request but ping (a SHOULD NOT).
    if (arrival.beforeInitializeResult && message.method === 'notifications/initialized') {
      this.diagnose(
        'initialized-too-early',
        () =>
          `your client sent ${describeMessage(message)} before the initialize result had arrived: initialized says the handshake succeeded, so it follows the result`,
        { received: message },
      );
    } else if (arrival.beforeInitializeResult && kindOf(message) === 'request' && message.method !== 'ping') {
      this.diagnose(
        'before-initialize-result',
        () => `your client sent ${describeMessage(message)} before the initialize result had arrived: wait for it (only ping should come earlier)`,
        { received: message },
      );
    }
  }

  /** MCP: a request's id must not have been used before by the same side in the session, answered or not
   *  (2025-11-25); in the stateless revision, not while a request with it is still unanswered (2026-07-28). */
  checkIdIsNew(request: JsonObject): void {
    const key = idKey(request.id);
    const before = this.methodOfLiveId.get(key);
    if (before === undefined) {
      this.methodOfLiveId.set(key, String(request.method));
      if (isStatelessMessage(request)) this.statelessLiveIds.add(key);
      return;
    }
    const stateless = this.statelessLiveIds.has(key);
    this.diagnose(
      'id-reused',
      () =>
        stateless
          ? `your client sent ${describeMessage(request)} with the id of ${before}, still unanswered: a request's id differs from every other request in flight`
          : `your client sent ${describeMessage(request)} with an id it already gave ${before} in this session: every request needs an id never used before in the session`,
      { received: request },
    );
  }

  /** A response to the client is written: a stateless request's id is free again. */
  answered(id: Json | undefined): void {
    const key = idKey(id);
    if (!this.statelessLiveIds.delete(key)) return;
    this.methodOfLiveId.delete(key);
  }

  /** A request the server refused below MCP (HTTP 401 before authorization) never reached the session: its id is free. */
  refused(id: Json | undefined): void {
    this.methodOfLiveId.delete(idKey(id));
  }

  /** The transport's session was lost and another begins (HTTP): the ids of the lost one may be used again. */
  sessionRestarted(): void {
    this.methodOfLiveId.clear();
  }

  /** A client without roots that answers roots/list with an error other than -32601: advice (a SHOULD).
   *  `declaresRoots`: what its initialize said; `answers`: the method of the server request it answers. */
  rootsErrorCode(message: JsonObject, declaresRoots: boolean | undefined, answers: () => string | undefined): void {
    if (kindOf(message) !== 'response' || declaresRoots !== false || answers() !== 'roots/list') return;
    const code = isObject(message.error) ? message.error.code : undefined;
    if (code === undefined || code === -32601) return;
    this.diagnose(
      'roots-error-code',
      () => `your client answered the server's roots/list with error ${JSON.stringify(code)}: a client without roots answers -32601 (Method not found)`,
      { received: message },
    );
  }
}
