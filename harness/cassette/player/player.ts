// The player: one matching state machine that every face drives (in-memory wire, a byte stream
// such as a socket or a child's extra pipe, the stdio server, HTTP). It takes the client's lines and
// puts the server's recorded bytes out at their recorded place: the client's next message must match
// the next recorded one (matching.ts; answers may come out of their place, out-of-place.ts), each is
// consumed once, ids are remapped both ways (id-map.ts). Beside the recording it holds the session's
// own rules (session-checks.ts, schema-checks.ts, player-stateless.ts), logs the exchange (exchange.ts)
// and keeps what it found, bounded whatever the client writes (exchange/kept.ts, MAX_LINE_CHARS).
import { clip, cutPoint } from '../../terminal-text.ts';
import type { Diagnosis, DiagnosisKind, PlayReport, RecordedRef } from '../../exchange/diagnosis.ts';
import { ExchangeLog, exchangeStep, transportStep, KEPT_MESSAGE_CHARS, keptMessage, statusLine, type ExchangeStep } from './exchange.ts';
import { LineSplitter } from '../../exchange/lines.ts';
import { readClientLine } from './client-line.ts';
import { applyEdits, IdMap } from './id-map.ts';
import { Matching, type Miss } from '../matching/matching.ts';
import { KeptDiagnoses, RECEIVED_CHARS, type Fields } from '../../exchange/kept.ts';
import { isAdvice } from '../kinds/index.ts';
import type { Arrival, Piece, PlayerOptions, PlayerOutput } from './player-output.ts';
import { StatelessRevision } from './player-stateless.ts';
import { SessionChecks } from './session-checks.ts';
import { OutOfPlace } from '../matching/out-of-place.ts';
import { SchemaChecks } from './schema-checks.ts';
import { messageChunks, parseLine, stdoutChunks } from './server-bytes.ts';
import { contextBefore, describeExpected, describeMessage, lineNote, missWords, preview, recordedRef } from './player-words.ts';
import { compactLine, idKey, isObject, kindOf, type Cassette, type ClientFrame, type Frame, type Json, type JsonObject } from '../format/model.ts';
import { declaredVersion, isStatelessMessage, speaksStateless, type StatelessError } from './stateless.ts';
import { MISMATCH_ERROR_CODE } from '../../protocol.ts';

/** The longest line the player holds (receiveChunk): a longer one is one diagnosis, and the end of reading. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Lines that are not messages the player reads off a stream before it stops reading: a client that
 *  floods the wire with them has long since had its verdict, and each would cost a parse, a log step
 *  and a reply. */
export const MAX_NOT_MESSAGES = 1000;

export class Player {
  private readonly ids = new IdMap();
  private readonly kept: KeptDiagnoses;
  /** The session's own checks (the lifecycle's order, ids); a transport tells them of a session lost, or a request refused below MCP. */
  readonly checks: SessionChecks;
  private readonly matching: Matching;
  private readonly schema: SchemaChecks;
  private readonly places: OutOfPlace;
  private readonly revision: StatelessRevision;
  private readonly log = new ExchangeLog();
  /** The recorded server speaks the stateless revision (2026-07-28): its rules are checked. */
  private readonly stateless: boolean;
  // reading: the client's bytes cut into lines, none longer than MAX_LINE_CHARS; those that are not
  // one message counted; while a long line is judged, the clipped text that stands for it
  private readonly lines = new LineSplitter(MAX_LINE_CHARS);
  private cutOff = false;
  private notMessages = 0;
  private longLine: string | undefined;
  /** The step of the client message being judged: the diagnosis it causes is noted on it. */
  private step: ExchangeStep | undefined;
  // playing: where in the recording, what was consumed, the version spoken, whether the last stdout
  // frame asked the next to share its read, and whether the face was full
  private position = 0;
  private consumed = 0;
  private readonly clientFrameCount: number;
  private version: string | undefined;
  private glued = false;
  private waitingForRoom = false;
  /** The initialize result's step: a client message that arrives while a face holds the result
   *  back went over the wire before it. */
  private initializeResultStep: ExchangeStep | undefined;
  private finished: PlayReport | undefined;

  constructor(
    private readonly cassette: Cassette,
    private readonly output: PlayerOutput,
    private readonly options: PlayerOptions = {},
  ) {
    this.places = new OutOfPlace(cassette);
    this.schema = new SchemaChecks((kind, message, fields, step) => {
      if (!this.finished) this.diagnose(kind, message, fields, step);
    });
    this.kept = new KeptDiagnoses(cassette.file, isAdvice, (diagnosis) => this.output.diagnose?.(diagnosis));
    this.checks = new SessionChecks((kind, message, fields) => this.diagnose(kind, message, fields));
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
      recordedIdOf: (liveId) => this.ids.recordedIdOf(liveId),
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
    const index = isObject(message) ? this.places.placeOf(message, this.position) : undefined;
    return index === undefined ? this.expecting : (this.cassette.frames[index] as ClientFrame);
  }

  /** A mistake the transport saw (an HTTP header), said and reported as the player's own. */
  transportMistake(kind: DiagnosisKind, message: string): void {
    this.diagnose(kind, () => message, {}, undefined);
  }

  /** A request the transport refused before a message of it was played, drawn as it went: what was
   *  sent (the message, when its body was read; else the request's own text), the mistake said on
   *  it, and the refusal. */
  transportRefusal(sent: JsonObject | string, status: number, why?: Json, mistake?: { kind: DiagnosisKind; message: string }): void {
    const step = this.log.add(() => (typeof sent === 'string' ? transportStep('client', sent) : exchangeStep('client', sent)));
    if (mistake) this.diagnose(mistake.kind, () => mistake.message, {}, step);
    this.log.add(() => transportStep('server', statusLine(status, why)));
  }

  /** A refusal the recording holds (a session the server had lost), answered to a message the player played. */
  transportReplied(status: number, why?: Json): void {
    this.log.add(() => transportStep('server', statusLine(status, why)));
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
      const read = readClientLine(text);
      if (!('message' in read)) {
        this.step = this.logClient(read.shown, arrival);
        this.diagnose(read.kind, () => read.said, { received: read.shown });
        this.reply(null, read.error.message, read.error.code);
        return false;
      }
      this.receive(read.message, arrival);
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
    if (this.options.validate !== false && !this.kept.full) this.schema.check(message, this.version, this.longLine ?? message, this.step);
    const kind = kindOf(message);
    this.checks.arrived(message, arrival);
    const statelessFrame = this.stateless && this.expecting !== undefined && isStatelessMessage(this.expecting.message) ? this.expecting : undefined;
    if (kind === 'request') this.checks.checkIdIsNew(message);
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
      this.checks.rootsErrorCode(message, this.matching.declaresRoots, () => this.matching.serverRequestMethod(expected.message.id, expectedIndex));
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
    const held = { received: message, waitingFor, rule: miss.rule };
    const context = `${this.context(expectedIndex)}, the server expected ${this.describeExpected(expected.message)}; your client sent ${describeMessage(message)}`;
    const later = this.matching.findLater(message, expectedIndex);
    if (later !== undefined) {
      this.diagnose('out-of-order', () => `${context}, which the recording has later${lineNote(this.cassette.frames[later]!)}`, {
        ...held,
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
      this.diagnose('unexpected-method', () => context, { ...held, nearest: this.nearest(message, expectedIndex) ?? waitingFor });
    }
    if (kind === 'request') this.reply(message.id ?? null, this.kept.lastMessage);
  }

  /** Takes a message that matches its recorded place out of the order (placeOf), or says how an answer
   *  differs from the one recorded at its place; false when it has no such place, or a message of the
   *  client's own does not match there (then it is judged against the next recorded message). A message
   *  taken past answers the client owes plays what the server said up to it, as if they had come. */
  private tookOutOfPlace(message: JsonObject): boolean {
    const index = this.places.placeOf(message, this.position);
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
      if (!this.places.owed.delete(index)) this.places.early.add(index);
      return true;
    }
    for (let i = this.position; i < index; i++) if (this.places.isAnswer(i) && !this.places.early.has(i)) this.places.owed.add(i);
    this.places.early.add(index);
    this.mapIds(frame, message);
    this.play();
    return true;
  }

  private paramsDiffer(message: JsonObject, index: number, miss: Miss): void {
    // The path names the client's own keys: of any length.
    const path = clip(miss.path!, 200);
    const waitingFor = this.ref(index);
    this.diagnose(miss.kind ?? 'params-differ', () => missWords(message, path, miss), {
      received: message,
      waitingFor,
      nearest: waitingFor,
      path: clip(miss.path!, RECEIVED_CHARS),
      expected: miss.expected ?? null,
      actual: miss.actual ?? null,
      rule: miss.rule,
    });
  }

  // ------------------------------------------------------------ the stateless revision

  /** An error the recorded server would answer with, at its HTTP status. */
  private refuse(id: Json, refusal: StatelessError): void {
    this.answerAs({ jsonrpc: '2.0', error: refusal.error as unknown as Json, id }, refusal.status);
  }

  /** A server message the player makes up from the recording (not a frame played at its place). */
  private answerAs(message: JsonObject, status?: number): void {
    if (kindOf(message) === 'response') this.checks.answered(message.id);
    this.log.add(() => exchangeStep('server', message));
    this.output.write({ bytes: compactLine(message), after: 'write', from: { message, ...(status !== undefined && { status }) } });
  }

  /** Resolves once every message received so far has been checked against the schema. */
  async validated(): Promise<void> {
    await this.schema.done();
  }

  /** Ends the session: anything recorded and not consumed is reported. Safe to call twice. */
  finish(): PlayReport {
    if (this.finished) return this.finished;
    const unused = this.places.unused(this.position);
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

  // ------------------------------------------------------------ matching

  private consume(frame: ClientFrame, actual: JsonObject): void {
    this.position++;
    this.consumed++;
    this.mapIds(frame, actual);
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
      if (frame.from === 'client' && !this.places.early.has(this.position) && !this.places.owed.has(this.position)) return;
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
    if (frame.from === 'auth') return; // served by the HTTP face's authorization, at its own endpoints
    let from: Piece['from'];
    let chunks: (string | Uint8Array)[];
    let initializeResult = false;
    if (frame.from === 'stdout') {
      chunks = stdoutChunks(frame);
      this.log.add(() => exchangeStep('server', parseLine(frame.text) ?? frame.text));
    } else {
      const message = frame.message;
      if (message.method === undefined && isObject(message.result) && typeof message.result.protocolVersion === 'string') {
        this.version = message.result.protocolVersion; // the server's answer to initialize: the negotiated version
      }
      initializeResult = message.method === undefined && this.ids.methodOf(message.id) === 'initialize';
      if (kindOf(message) === 'request') this.places.playedRequests.add(idKey(message.id));
      const edits = this.ids.editsFor(message);
      const sent = edits.length === 0 ? message : applyEdits(message, edits);
      if (kindOf(sent) === 'response') this.checks.answered(sent.id);
      from = { frame, message: sent };
      const step = this.log.add(() => exchangeStep('server', sent));
      if (initializeResult) this.initializeResultStep = step;
      chunks = messageChunks(frame, sent, edits);
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

  private reply(id: Json, text: string, code = MISMATCH_ERROR_CODE): void {
    this.checks.answered(id);
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

  /** Kept while there is room, else counted (exchange/kept.ts); noted on the client message being judged. */
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
