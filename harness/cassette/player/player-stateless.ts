// What the player does for a server of the stateless revision (2026-07-28) beyond matching: an
// initialize it refuses as such a server does (-32022, the versions it supports), a request without
// the `_meta` every request carries, and a retry of an input_required result without the requestState
// it gave. Each is said and answered as that server answers it; the recorded frame then waits.
import type { Diagnosis, DiagnosisKind, RecordedRef } from '../../exchange/diagnosis.ts';
import { isObject, kindOf, type Cassette, type ClientFrame, type Json, type JsonObject } from '../format/model.ts';
import {
  declaredVersion,
  envelopeRefusal,
  inputRequiredResults,
  META_INFO,
  META_KEYS,
  missingMeta,
  speaksStateless,
  supportedVersions,
  unsupportedVersion,
  type StatelessError,
} from './stateless.ts';
import { describeMessage, show } from './player-words.ts';

/** What these rules need of the player. */
export interface RevisionHost {
  /** The index of the recorded frame the player is at. */
  position(): number;
  diagnose(kind: DiagnosisKind, message: () => string, fields: Omit<Diagnosis, 'kind' | 'message'>): void;
  ref(index: number): RecordedRef;
  /** Answers with the error the recorded server would, at its HTTP status. */
  refuse(id: Json, refusal: StatelessError): void;
  /** Answers with a message made from the recording. */
  answerAs(message: JsonObject): void;
  /** Answers with the player's own error, the last diagnosis its message. */
  reply(id: Json): void;
  /** The recorded id a live id was matched to, if it was. */
  recordedIdOf(liveId: Json | undefined): Json | undefined;
}

export class StatelessRevision {
  /** The recorded input_required results, by the requestState their retry echoes. */
  private readonly inputRequired: Map<string, JsonObject>;

  constructor(
    private readonly cassette: Cassette,
    private readonly player: RevisionHost,
  ) {
    this.inputRequired = speaksStateless(cassette) ? inputRequiredResults(cassette) : new Map();
  }

  /** An initialize to a server of the stateless revision, where the recording has none to come (the
   *  recording may have nothing left at all): said, and refused as the server refuses it (-32022). */
  refusedInitialize(message: JsonObject): boolean {
    if (kindOf(message) !== 'request' || message.method !== 'initialize') return false;
    if (this.cassette.frames.slice(this.player.position()).some((frame) => frame.from === 'client' && frame.message.method === 'initialize')) return false;
    const supported = supportedVersions(this.cassette);
    const recorded =
      this.player.position() < this.cassette.frames.length
        ? { waitingFor: this.player.ref(this.player.position()), nearest: this.player.ref(this.player.position()) }
        : {};
    this.player.diagnose(
      'stateless-initialize',
      () =>
        `your client sent ${describeMessage(message)}, but the server speaks the stateless revision (${supported.join(', ')}; the recording reached it with server/discover): there is no initialize, the server answers -32022 with the versions it supports; probe with server/discover and send _meta on every request`,
      { received: message, ...recorded },
    );
    const params = isObject(message.params) ? message.params : {};
    this.player.refuse(message.id ?? null, unsupportedVersion(typeof params.protocolVersion === 'string' ? params.protocolVersion : '', supported));
    return true;
  }

  /** A mistake of the stateless revision a real server refuses (or answers otherwise than the
   *  recording): said, and answered as that server answers it; the recorded frame waits. */
  refusedAsStateless(expected: ClientFrame, message: JsonObject): boolean {
    const kind = kindOf(message);
    if (kind !== 'request') return false;
    const params = isObject(message.params) ? message.params : {};
    const missing = missingMeta(expected.message, message);
    const required = missing.filter((key) => key !== META_INFO);
    if (missing.includes(META_INFO)) {
      this.player.diagnose(
        'meta-client-info-missing',
        () => `your client sent ${describeMessage(message)} without ${META_INFO} in params._meta: say who the client is on every request`,
        { received: message, path: 'params._meta' },
      );
    }
    if (required.length > 0) {
      this.player.diagnose(
        'meta-missing',
        () =>
          `your client sent ${describeMessage(message)} without ${required.join(' and ')} in params._meta: in the stateless revision every request says its protocol version and client capabilities there (${META_KEYS.join(', ')})`,
        { received: message, waitingFor: this.player.ref(this.player.position()), nearest: this.player.ref(this.player.position()), path: 'params._meta' },
      );
      const refusal = envelopeRefusal(message, missing, declaredVersion(expected.message) ?? '');
      if (refusal) {
        this.player.refuse(message.id ?? null, refusal);
        return true;
      }
    }
    const recordedParams = isObject(expected.message.params) ? expected.message.params : {};
    const state = recordedParams.requestState;
    this.checkRetryId(message, state);
    if (typeof state === 'string' && message.method === expected.message.method && params.requestState !== state) {
      const original = this.inputRequired.get(state);
      const sent = params.requestState;
      this.player.diagnose(
        'input-required-retry',
        () =>
          sent === undefined
            ? `your client retried ${describeMessage(message)} without the requestState the input_required result gave: echo it, unchanged, in params.requestState (the server has nothing else to go on, and asks again)`
            : `your client retried ${describeMessage(message)} with requestState ${show(sent)}, not the one the input_required result gave (${show(state)}): echo it unchanged`,
        {
          received: message,
          waitingFor: this.player.ref(this.player.position()),
          nearest: this.player.ref(this.player.position()),
          path: 'params.requestState',
          expected: state,
          actual: sent ?? null,
        },
      );
      // The server, given no state it made, has nothing to continue from: it asks again.
      if (original) this.player.answerAs({ ...original, id: message.id ?? null });
      else this.player.reply(message.id ?? null);
      return true;
    }
    return false;
  }

  /** A retry under the id of the request the input_required result answered: independent requests,
   *  their ids differ (2026-07-28 mrtr). Said; the server takes it as the new request it is. */
  private checkRetryId(message: JsonObject, state: Json | undefined): void {
    const original = typeof state === 'string' ? this.inputRequired.get(state) : undefined;
    if (original === undefined || original.id === undefined || this.player.recordedIdOf(message.id) !== original.id) return;
    this.player.diagnose(
      'input-required-retry',
      () =>
        `your client retried ${describeMessage(message)} under the id of the request the input_required result answered: the retry is a request of its own, with an id of its own`,
      { received: message, waitingFor: this.player.ref(this.player.position()), nearest: this.player.ref(this.player.position()), path: 'id' },
    );
  }
}
