// The player: one matching state machine that every face drives (in-memory wire, a byte stream
// such as a socket or a child's extra pipe, the stdio server). It takes the client's lines and
// puts the server's recorded bytes out at their recorded place. Strict: the client's next message
// must match the next recorded one; each is consumed once; ids are remapped both ways. One freedom:
// the client's answer to a request of the server's has no place among the client's own messages (a
// client answers when its handler is done, which may be after its next request), only after that
// request. It logs the exchange as it goes (exchange.ts). Bounded whatever the client writes: the
// first KEPT_DIAGNOSES diagnoses are kept, the rest only counted, and a line longer than
// MAX_LINE_CHARS ends the reading.
import { clip, cutPoint } from '../terminal-text.ts';
import type { Diagnosis, DiagnosisKind, PlayReport, RecordedRef } from './diagnosis.ts';
import { ExchangeLog, exchangeStep, httpStep, KEPT_MESSAGE_CHARS, keptMessage, type ExchangeStep } from './exchange.ts';
import { LineSplitter } from './lines.ts';
import { applyEdits, IdMap } from './id-map.ts';
import { Matching, type Miss } from './matching.ts';
import { KeptDiagnoses, RECEIVED_CHARS, type Fields } from './player-diagnoses.ts';
import { StatelessRevision } from './player-stateless.ts';
import { contextBefore, describeExpected, describeMessage, differingPart, lineNote, preview, recordedRef, show } from './player-words.ts';
import {
  compactLine,
  idKey,
  isObject,
  kindOf,
  type Cassette,
  type ClientFrame,
  type Frame,
  type Json,
  type JsonObject,
  type ServerFrame,
  type SseFrame,
} from './model.ts';
import { editAndCut, editChunks } from './raw-edit.ts';
import { checkClientMessage, loadSchemas, PENDING } from './schema.ts';
import { declaredVersion, isStatelessMessage, speaksStateless, type Refusal } from './stateless.ts';
import { MISMATCH_ERROR_CODE } from '../protocol.ts';

/** How bytes leave the player: `then` says what separates them from the next piece. */
export interface Piece {
  /** Text, or raw bytes when a read ends inside a multi-byte character. */
  bytes: string | Uint8Array;
  /** write: a write of its own; glue: the next piece joins this write; pause: the reader must see a separate read. */
  after: 'write' | 'glue' | 'pause';
  /** The answer to initialize: a face may hold it back a moment, so that a client that does not wait for it shows. */
  initializeResult?: boolean;
  /** On the first piece of a server message: the message as sent (ids mapped to the live client's)
   *  and the recorded frame it plays (none for the player's own error replies), for a face that
   *  frames messages its own way (HTTP). `status`: the HTTP status the player's own answer goes
   *  with, where a real server answers it with an error status (a stateless server's 400). */
  from?: { message: JsonObject; frame?: ServerFrame; status?: number };
}

/** When a client message arrived, as the face that carried it saw it. */
export interface Arrival {
  /** The initialize result had not been written yet. */
  beforeInitializeResult?: boolean;
}

export interface PlayerOutput {
  write(piece: Piece): void;
  /** A line the recorded server wrote on stderr. */
  stderr?(line: string): void;
  /** Called as each kept diagnosis happens (the report has them at the end too, and counts the rest). */
  diagnose?(diagnosis: Diagnosis): void;
  /** The player reads nothing more from this client (it wrote a line too long to hold): stop the input. */
  cut?(): void;
  /** An HTTP stream event that carries no message (a priming event, a keep-alive), at its place; a
   *  byte-stream face has nowhere to put it. */
  sse?(frame: SseFrame): void;
  /** The face holds as much as it should (a stream the client reads slower than it is written): the
   *  player puts out nothing more until `resume()`, and the face hands over no client message until then. */
  full?(): boolean;
}

export interface PlayerOptions {
  /** Check the client's messages against the MCP schema (default true). */
  validate?: boolean;
}

/** The longest line the player holds (receiveChunk): a longer one is one diagnosis, and the end of reading. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Lines that are not messages the player reads off a stream before it stops reading: a client that
 *  floods the wire with them has long since had its verdict, and each would cost a parse, a log step
 *  and a reply. */
export const MAX_NOT_MESSAGES = 1000;

export class Player {
  private position = 0;
  /** The live client's ids for the recorded ones, and back (id-map.ts). */
  private readonly ids = new IdMap();
  /** Every id the client gave a request in this session -> that request's method; a stateless request's
   *  (2026-07-28) only until its response is written, after which its id may be used again. */
  private readonly methodOfLiveId = new Map<string, string>();
  /** The ids of stateless requests not answered yet. */
  private readonly statelessLiveIds = new Set<string>();
  /** The rules the client broke, and the advice it was given (player-diagnoses.ts). */
  private readonly kept: KeptDiagnoses;
  /** How a client message is held to a recorded one (matching.ts). */
  private readonly matching: Matching;
  /** The client's bytes cut into lines, none longer than MAX_LINE_CHARS (receiveChunk). */
  private readonly lines = new LineSplitter(MAX_LINE_CHARS);
  private cutOff = false;
  /** Lines read off the stream so far that are not one message object (receiveChunk). */
  private notMessages = 0;
  /** While a long line is being judged: the clipped text that stands for it in a diagnosis. */
  private longLine: string | undefined;
  private readonly clientFrameCount: number;
  private consumed = 0;
  /** Recorded client messages taken before their place (placeOf): passed over when reached. */
  private readonly early = new Set<number>();
  /** Recorded answers to server requests that the session went past before the client sent them. */
  private readonly owed = new Set<number>();
  /** The ids of the server requests played so far: the client may answer only these. */
  private readonly playedRequests = new Set<string>();
  private version: string | undefined;
  private finished: PlayReport | undefined;
  /** The last stdout frame asked for the next one to share its read. */
  private glued = false;
  /** Stopped putting out because the face was full (resume goes on). */
  private waitingForRoom = false;
  private readonly log = new ExchangeLog();
  /** The step of the client message being judged: the diagnosis it causes is noted on it. */
  private step: ExchangeStep | undefined;
  /** The initialize result's step: a client message that arrives while a face holds the result
   *  back went over the wire before it. */
  private initializeResultStep: ExchangeStep | undefined;
  /** The recorded server speaks the stateless revision (2026-07-28): its rules are checked. */
  private readonly stateless: boolean;
  /** The stateless revision's rules (player-stateless.ts). */
  private readonly revision: StatelessRevision;

  constructor(
    private readonly cassette: Cassette,
    private readonly output: PlayerOutput,
    private readonly options: PlayerOptions = {},
  ) {
    this.kept = new KeptDiagnoses(cassette.file, (diagnosis) => this.output.diagnose?.(diagnosis));
    this.matching = new Matching(cassette, (liveId) => this.ids.recordedIdOf(liveId));
    this.clientFrameCount = cassette.frames.filter((frame) => frame.from === 'client').length;
    this.stateless = speaksStateless(cassette);
    this.revision = new StatelessRevision(cassette, {
      position: () => this.position,
      diagnose: (kind, message, fields) => this.diagnose(kind, message, fields),
      ref: (index) => this.ref(index),
      refuse: (id, refusal) => this.refuse(id, refusal),
      answerAs: (message) => this.answerAs(message),
      reply: (id) => this.reply(id, this.kept.lastMessage),
    });
  }

  /** Plays what the server said before the client's first message. */
  start(): void {
    this.play();
  }

  /** The diagnoses so far, in the order they happened. */
  get diagnoses(): readonly Diagnosis[] {
    return this.kept.misses;
  }

  get done(): boolean {
    return this.finished !== undefined;
  }

  /** Stopped until resume(): the face was full. */
  get paused(): boolean {
    return this.waitingForRoom;
  }

  /** Goes on putting out the server's frames, once a full face has room again. */
  resume(): void {
    if (!this.waitingForRoom) return;
    this.waitingForRoom = false;
    this.play();
  }

  /** The recorded client message the player waits for next, if the recording has one there. */
  get expecting(): ClientFrame | undefined {
    const frame = this.cassette.frames[this.position];
    return frame?.from === 'client' ? frame : undefined;
  }

  /** The recorded client message that `message` will be judged against: where it is not the next one,
   *  the answer to a server request out of its place, or the client's own message past answers it owes. */
  expectingFor(message: unknown): ClientFrame | undefined {
    const index = isObject(message) ? this.placeOf(message) : undefined;
    return index === undefined ? this.expecting : (this.cassette.frames[index] as ClientFrame);
  }

  /** The transport's session was lost and another begins (HTTP): the ids of the lost one may be used again. */
  sessionRestarted(): void {
    this.methodOfLiveId.clear();
  }

  /** A mistake the transport saw (an HTTP header), said and reported as the player's own. */
  transportMistake(kind: DiagnosisKind, message: string): void {
    this.diagnose(kind, () => message, {}, undefined);
  }

  /** A request the transport refused before a message of it was played, drawn as it went: what was
   *  sent (the message, when its body was read; else the request's own text), the mistake said on
   *  it, and the refusal. */
  transportRefusal(sent: JsonObject | string, refusal: string, mistake?: { kind: DiagnosisKind; message: string }): void {
    const step = this.log.add(() => (typeof sent === 'string' ? httpStep('client', sent) : exchangeStep('client', sent)));
    if (mistake) this.diagnose(mistake.kind, () => mistake.message, {}, step);
    this.log.add(() => httpStep('server', refusal));
  }

  /** A refusal the recording holds (a session the server had lost), answered to a message the player played. */
  transportReplied(refusal: string): void {
    this.log.add(() => httpStep('server', refusal));
  }

  /** Client bytes as they come, cut into lines here; `arrival` is asked as each line completes. Lines
   *  that are not messages are counted here, off a stream that nothing but a cut stops (an HTTP
   *  client's come one request at a time, each answered). */
  receiveChunk(chunk: string, arrival: () => Arrival = () => ({})): void {
    for (const line of this.lines.push(chunk)) {
      if (this.receiveLine(line, arrival()) || ++this.notMessages < MAX_NOT_MESSAGES) continue;
      const count = MAX_NOT_MESSAGES.toLocaleString('en-US');
      this.stopReading('not-json', () => `your client wrote ${count} lines that are not messages; the player stopped reading`, {});
    }
    if (this.lines.overflow !== undefined && !this.cutOff) this.tooLong(this.lines.overflow);
  }

  /** The client closed its side: a last line without its terminator is still a line. */
  endOfInput(): void {
    const rest = this.lines.flush();
    if (rest !== '') this.receiveLine(rest);
  }

  /** One line from the client, with or without its terminator; false when it was not one message
   *  object (it is answered with an error, and said). */
  receiveLine(line: string, arrival: Arrival = {}): boolean {
    if (this.finished || this.cutOff) return true;
    const text = line.trim();
    if (text === '') return true;
    this.longLine = text.length > RECEIVED_CHARS ? clip(text, RECEIVED_CHARS) : undefined;
    try {
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        this.step = this.logClient(text, arrival);
        this.diagnose('not-json', () => `your client wrote a line that is not JSON: ${preview(text)}`, { received: text });
        this.reply(null, 'Parse error: the line is not JSON', -32700);
        return false;
      }
      if (!isObject(message)) {
        this.step = this.logClient(message as Json, arrival);
        this.diagnose('not-json', () => `your client wrote JSON that is not one message object: ${preview(text)}`, { received: message as Json });
        this.reply(null, 'Invalid Request: expected one JSON-RPC message object', -32600);
        return false;
      }
      this.receive(message, arrival);
      return true;
    } finally {
      this.longLine = undefined;
      this.step = undefined;
    }
  }

  /** One parsed message from the client. */
  receive(message: JsonObject, arrival: Arrival = {}): void {
    if (this.finished) return;
    this.step = this.logClient(message, arrival, this.longLine);
    try {
      this.judge(message, arrival);
    } finally {
      this.step = undefined;
    }
  }

  private judge(message: JsonObject, arrival: Arrival): void {
    // Past the kept diagnoses a schema check could only add to a count.
    if (this.options.validate !== false && !this.kept.full) this.validate(message, this.version);
    const kind = kindOf(message);
    // The lifecycle's rules: initialized follows a successful initialize (a MUST); until the result comes a
    // client should send no request but ping (a SHOULD NOT).
    if (arrival.beforeInitializeResult && message.method === 'notifications/initialized') {
      this.diagnose(
        'initialized-too-early',
        () =>
          `your client sent ${describeMessage(message)} before the initialize result had arrived: initialized says the handshake succeeded, so it follows the result`,
        { received: message },
      );
    } else if (arrival.beforeInitializeResult && kind === 'request' && message.method !== 'ping') {
      this.diagnose(
        'before-initialize-result',
        () => `your client sent ${describeMessage(message)} before the initialize result had arrived: wait for it (only ping should come earlier)`,
        { received: message },
      );
    }
    const statelessFrame = this.stateless && this.expecting !== undefined && isStatelessMessage(this.expecting.message) ? this.expecting : undefined;
    if (kind === 'request') this.checkIdIsNew(message);
    if ((statelessFrame !== undefined || (this.stateless && this.expecting === undefined)) && this.revision.refusedInitialize(message)) return;
    if (statelessFrame !== undefined && this.revision.refusedAsStateless(statelessFrame, message)) return;
    if (this.tookOutOfPlace(message)) return;
    if (this.position >= this.cassette.frames.length) {
      this.diagnose('exhausted', () => `the recording has no more client messages; your client sent ${describeMessage(message)}`, {
        received: message,
        nearest: this.kept.full ? undefined : this.nearest(message, 0),
      });
      if (kind === 'request') this.reply(message.id ?? null, 'the recording has no more messages');
      return;
    }
    const expectedIndex = this.position;
    const expected = this.cassette.frames[expectedIndex] as ClientFrame;
    const miss = this.matching.compare(expectedIndex, expected, message);
    if (miss === undefined) {
      this.rootsErrorCode(expectedIndex, message);
      this.consume(expected, message);
      this.play();
      return;
    }
    if (this.kept.full) {
      // Only counted: what the diagnosis would say (a scan of the whole cassette) is not worked out.
      this.kept.more++;
      if (kind === 'request') this.reply(message.id ?? null, "your client's message differs from the recording");
      return;
    }
    const waitingFor = this.ref(expectedIndex);
    const context = `${this.context(expectedIndex)}, the server expected ${this.describeExpected(expected.message)}; your client sent ${describeMessage(message)}`;
    const later = this.matching.findLater(message, expectedIndex);
    if (later !== undefined) {
      this.diagnose('out-of-order', () => `${context}, which the recording has later${lineNote(this.cassette.frames[later]!)}`, {
        received: message,
        waitingFor,
        nearest: this.ref(later),
      });
    } else if (miss.path !== undefined) {
      this.paramsDiffer(message, expectedIndex, miss);
      // An answer is given once: the session goes on past it (the diagnosis stands), and the case ends
      // when the program does, not at its wall backstop waiting for an answer that will not come again.
      if (kind === 'response') {
        this.consume(expected, message);
        this.play();
        return;
      }
    } else {
      this.diagnose('unexpected-method', () => context, { received: message, waitingFor, nearest: this.nearest(message, expectedIndex) ?? waitingFor });
    }
    if (kind === 'request') this.reply(message.id ?? null, this.kept.lastMessage);
  }

  /** Where `message` belongs when not at the next recorded client message: an answer to a played
   *  server request at that request's recorded answer, wherever it is; any other message, when the
   *  client owes the answer recorded next, at the first recorded message of the client's own past it. */
  private placeOf(message: JsonObject): number | undefined {
    const frames = this.cassette.frames;
    if (kindOf(message) === 'response') {
      const key = idKey(message.id);
      if (!this.playedRequests.has(key)) return undefined;
      const owed = [...this.owed].find((index) => idKey((frames[index] as ClientFrame).message.id) === key);
      if (owed !== undefined) return owed;
      for (let i = this.position + 1; i < frames.length; i++) {
        if (this.isAnswer(i) && !this.early.has(i) && idKey((frames[i] as ClientFrame).message.id) === key) return i;
      }
      return undefined;
    }
    if (!this.isAnswer(this.position)) return undefined;
    for (let i = this.position + 1; i < frames.length; i++) {
      if (frames[i]!.from === 'client' && !this.isAnswer(i) && !this.early.has(i)) return i;
    }
    return undefined;
  }

  /** A recorded client answer to a server request. */
  private isAnswer(index: number): boolean {
    const frame = this.cassette.frames[index];
    return frame?.from === 'client' && kindOf(frame.message) === 'response';
  }

  /** Takes a message that matches its recorded place out of the order (placeOf), or says how an answer
   *  differs from the one recorded at its place; false when it has no such place, or a message of the
   *  client's own does not match there (then it is judged against the next recorded message). A message
   *  taken past answers the client owes plays what the server said up to it, as if they had come. */
  private tookOutOfPlace(message: JsonObject): boolean {
    const index = this.placeOf(message);
    if (index === undefined) return false;
    const frame = this.cassette.frames[index] as ClientFrame;
    const miss = this.matching.compare(index, frame, message);
    if (miss?.path !== undefined && kindOf(message) === 'response') {
      this.paramsDiffer(message, index, miss);
      return true;
    }
    if (miss !== undefined) return false;
    if (this.step) this.step.recorded = keptMessage(frame.message);
    this.consumed++;
    if (kindOf(message) === 'response') {
      if (!this.owed.delete(index)) this.early.add(index);
      return true;
    }
    for (let i = this.position; i < index; i++) if (this.isAnswer(i) && !this.early.has(i)) this.owed.add(i);
    this.early.add(index);
    this.mapIds(frame, message);
    this.play();
    return true;
  }

  private paramsDiffer(message: JsonObject, index: number, miss: Miss): void {
    // The path names the client's own keys: of any length.
    const path = clip(miss.path!, 200);
    const waitingFor = this.ref(index);
    this.diagnose(
      miss.kind ?? 'params-differ',
      () =>
        miss.kind === 'roots-answer'
          ? `your client's answer to the server's roots/list breaks the spec at ${path}: expected ${show(miss.expected)}, got ${show(miss.actual)}`
          : `your client sent ${describeMessage(message)} with ${differingPart(path)} from the recording at ${path}: expected ${show(miss.expected)}, got ${show(miss.actual)}`,
      {
        received: message,
        waitingFor,
        nearest: waitingFor,
        path: clip(miss.path!, RECEIVED_CHARS),
        expected: miss.expected ?? null,
        actual: miss.actual ?? null,
      },
    );
  }

  /** MCP: a request's id must not have been used before by the same side in the session, answered or not
   *  (2025-11-25); in the stateless revision, not while a request with it is still unanswered (2026-07-28). */
  private checkIdIsNew(request: JsonObject): void {
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

  // ------------------------------------------------------------ the stateless revision

  /** An error the recorded server would answer with, at its HTTP status. */
  private refuse(id: Json, refusal: Refusal): void {
    this.answerAs({ jsonrpc: '2.0', error: refusal.error as unknown as Json, id }, refusal.status);
  }

  /** A server message the player makes up from the recording (not a frame played at its place). */
  private answerAs(message: JsonObject, status?: number): void {
    if (kindOf(message) === 'response') this.answered(message.id);
    this.log.add(() => exchangeStep('server', message));
    this.output.write({ bytes: compactLine(message), after: 'write', from: { message, ...(status !== undefined && { status }) } });
  }

  /** Resolves once every message received so far has been checked against the schema. */
  async validated(): Promise<void> {
    while (this.checks.size > 0) await Promise.all([...this.checks]);
  }

  /** Ends the session: anything recorded and not consumed is reported. Safe to call twice. */
  finish(): PlayReport {
    if (this.finished) return this.finished;
    const unused = [...this.owed];
    for (let i = this.position; i < this.cassette.frames.length; i++) if (this.cassette.frames[i]!.from === 'client' && !this.early.has(i)) unused.push(i);
    unused.sort((a, b) => a - b);
    if (unused.length > 0) {
      const first = this.cassette.frames[unused[0]!] as ClientFrame;
      const more = unused.length > 1 ? ` and ${unused.length - 1} more recorded client message${unused.length > 2 ? 's' : ''}` : '';
      this.diagnose('unused', () => `the session ended before your client sent ${this.describeExpected(first.message)}${more}`, {
        waitingFor: this.ref(unused[0]!),
        nearest: this.ref(unused[0]!),
        unusedCount: unused.length,
      });
    }
    this.finished = {
      ok: this.kept.misses.length === 0,
      complete: unused.length === 0,
      consumed: this.consumed,
      expected: this.clientFrameCount,
      diagnoses: this.kept.misses,
      advice: this.kept.advice,
      moreDiagnoses: this.kept.more,
      exchange: this.log.exchange,
    };
    return this.finished;
  }

  // ------------------------------------------------------------ schema

  private readonly checks = new Set<Promise<void>>();

  private validate(message: JsonObject, version: string | undefined): void {
    const problem = checkClientMessage(message, version);
    if (problem !== PENDING) return this.reportInvalid(message, version, problem, message);
    // The schemas are still loading: the message is checked when they are there.
    const received = this.longLine ?? message;
    const step = this.step;
    const check = loadSchemas().then(() => {
      this.checks.delete(check);
      if (!this.finished) this.reportInvalid(message, version, checkClientMessage(message, version) as string | undefined, received, step);
    });
    this.checks.add(check);
  }

  private reportInvalid(message: JsonObject, version: string | undefined, problem: string | undefined, received: Json, step = this.step): void {
    if (problem) {
      this.diagnose(
        'invalid-message',
        () => `${describeMessage(message)} is not valid MCP${version ? ` ${version}` : ''}: ${clip(problem, 300)}`,
        { received },
        step,
      );
    }
  }

  // ------------------------------------------------------------ matching

  private consume(frame: ClientFrame, actual: JsonObject): void {
    this.position++;
    this.consumed++;
    this.mapIds(frame, actual);
  }

  /** A client without roots that answers roots/list with an error other than -32601: advice (a SHOULD). */
  private rootsErrorCode(index: number, message: JsonObject): void {
    const expected = this.cassette.frames[index] as ClientFrame;
    if (
      kindOf(message) !== 'response' ||
      this.matching.declaresRoots !== false ||
      this.matching.serverRequestMethod(expected.message.id, index) !== 'roots/list'
    )
      return;
    const code = isObject(message.error) ? message.error.code : undefined;
    if (code === undefined || code === -32601) return;
    this.diagnose(
      'roots-error-code',
      () => `your client answered the server's roots/list with error ${JSON.stringify(code)}: a client without roots answers -32601 (Method not found)`,
      { received: message },
    );
  }

  /** What a consumed request tells: its live id (and progress token) for the recorded one, the version it
   *  speaks, and (initialize) whether the client declared roots. */
  private mapIds(frame: ClientFrame, actual: JsonObject): void {
    const recorded = frame.message;
    if (kindOf(recorded) !== 'request') return;
    if (recorded.method === 'initialize')
      this.matching.declaresRoots = isObject(actual.params) && isObject(actual.params.capabilities) && isObject(actual.params.capabilities.roots);
    // a stateless request says its version itself: the schema the next messages are checked against
    if (this.stateless && isStatelessMessage(recorded)) this.version = declaredVersion(recorded);
    this.ids.link(recorded, actual);
  }

  /** The recorded client message most like `message` (Matching.nearest). */
  private nearest(message: JsonObject, from: number): RecordedRef | undefined {
    const index = this.matching.nearest(message, from);
    return index === undefined ? undefined : this.ref(index);
  }

  // ------------------------------------------------------------ playing

  private play(): void {
    const frames = this.cassette.frames;
    while (this.position < frames.length) {
      const frame = frames[this.position]!;
      if (frame.from === 'client' && !this.early.has(this.position) && !this.owed.has(this.position)) return;
      this.position++;
      if (frame.from === 'client') continue;
      this.emit(frame);
      if (this.output.full?.()) {
        this.waitingForRoom = true;
        return;
      }
    }
  }

  private emit(frame: Exclude<Frame, ClientFrame>): void {
    if (frame.from === 'stderr') {
      this.output.stderr?.(frame.text);
      return;
    }
    if (frame.from === 'sse') {
      this.output.sse?.(frame);
      return;
    }
    let from: Piece['from'];
    let chunks: (string | Uint8Array)[];
    let initializeResult = false;
    if (frame.from === 'stdout') {
      chunks = frame.cuts ? editAndCut(frame.text, [], frame.cuts) : (frame.chunks ?? [frame.text]);
      this.log.add(() => exchangeStep('server', parseLine(frame.text) ?? frame.text));
    } else {
      const message = frame.message;
      if (message.method === undefined && isObject(message.result) && typeof message.result.protocolVersion === 'string') {
        this.version = message.result.protocolVersion; // the server's answer to initialize: the negotiated version
      }
      initializeResult = message.method === undefined && this.ids.methodOf(message.id) === 'initialize';
      if (kindOf(message) === 'request') this.playedRequests.add(idKey(message.id));
      const edits = this.ids.editsFor(message);
      const sent = edits.length === 0 ? message : applyEdits(message, edits);
      if (kindOf(sent) === 'response') this.answered(sent.id);
      from = { frame, message: sent };
      const step = this.log.add(() => exchangeStep('server', sent));
      if (initializeResult) this.initializeResultStep = step;
      const textEdits = () => edits.map((edit) => ({ path: edit.path, replacement: JSON.stringify(edit.value) }));
      if (frame.cuts) chunks = editAndCut(frame.raw ?? compactLine(message), textEdits(), frame.cuts);
      else if (frame.raw === undefined && frame.chunks === undefined) {
        chunks = [compactLine(sent)];
      } else {
        const recorded = frame.chunks ?? [frame.raw!];
        chunks = edits.length === 0 ? recorded : editChunks(recorded, textEdits());
      }
    }
    const last = frame.flush === false ? 'glue' : chunks.length > 1 ? 'pause' : 'write';
    chunks = chunks.filter((chunk) => chunk.length > 0);
    // Recorded reads start a read of their own, unless the frame before asked to share it.
    if (chunks.length > 1 && !this.glued) this.output.write({ bytes: '', after: 'pause' });
    this.glued = frame.flush === false;
    for (let i = 0; i < chunks.length; i++) {
      this.output.write({
        bytes: chunks[i]!,
        after: i === chunks.length - 1 ? last : 'pause',
        ...(i === 0 && from && { from }),
        ...(initializeResult && i === 0 && { initializeResult }),
      });
    }
  }

  /** A response to the client is written: a stateless request's id is free again. */
  private answered(id: Json | undefined): void {
    const key = idKey(id);
    if (!this.statelessLiveIds.delete(key)) return;
    this.methodOfLiveId.delete(key);
  }

  private reply(id: Json, text: string, code = MISMATCH_ERROR_CODE): void {
    this.answered(id);
    const answer = { jsonrpc: '2.0', id, error: { code, message: `theinference: ${text}` } };
    this.log.add(() => exchangeStep('server', answer));
    this.output.write({ bytes: compactLine(answer), after: 'write', from: { message: answer } });
  }

  /** Logs a client message (or line) at its place on the wire; `text` stands for it when it is too long to keep. */
  private logClient(message: Json, arrival: Arrival, text?: string): ExchangeStep | undefined {
    const recorded = this.cassette.frames[this.position];
    const before = arrival.beforeInitializeResult ? this.initializeResultStep : undefined;
    return this.log.add(() => {
      const step = exchangeStep('client', message, text === undefined ? undefined : clip(text, KEPT_MESSAGE_CHARS));
      return recorded?.from === 'client' ? { ...step, recorded: keptMessage(recorded.message) } : step;
    }, before);
  }

  // ------------------------------------------------------------ words

  /** Kept while there is room, else counted (player-diagnoses.ts); noted on the client message being judged. */
  private diagnose(kind: DiagnosisKind, message: () => string, fields: Fields, step = this.step): void {
    this.kept.add(kind, message, fields, step, this.longLine);
  }

  /** A line past MAX_LINE_CHARS: said once, then nothing more is read from this client. */
  private tooLong(start: string): void {
    const head = start.slice(0, cutPoint(start, RECEIVED_CHARS));
    const step = this.logClient(`${head}…`, {});
    this.stopReading(
      'line-too-long',
      () => `your client wrote a line longer than ${MAX_LINE_CHARS / 1024 / 1024} MiB without a newline; the player stopped reading: ${preview(head)}`,
      { received: `${head}…` },
      step,
    );
  }

  /** Nothing more is read from this client. The diagnosis that says why is kept even when the kept ones
   *  are full (in the last one's place, which is counted): it is why the session ended. */
  private stopReading(kind: DiagnosisKind, message: () => string, fields: Fields, step?: ExchangeStep): void {
    this.cutOff = true;
    this.kept.makeRoom();
    this.diagnose(kind, message, fields, step);
    this.output.cut?.();
  }

  private ref(index: number): RecordedRef {
    return recordedRef(this.cassette, index);
  }

  private context(index: number): string {
    return contextBefore(this.cassette, index, (id) => this.ids.methodOf(id));
  }

  private describeExpected(message: JsonObject): string {
    return describeExpected(this.cassette, message);
  }
}

/** A stdout frame's text as the message it holds, when it is one JSON object (else it is a line). */
function parseLine(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
