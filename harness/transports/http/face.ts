// The player served over Streamable HTTP on 127.0.0.1, as the same state machine as every face
// (player.ts) with HTTP around its messages. Each POST hands the client's message to the player; what
// it puts out goes where the recording had it: a response to its request's POST (a JSON body, or an
// event on that POST's stream), a notification or server request on the stream open then, or on the
// GET stream. What a request must say before it is played (admission.ts, in one pass), sessions
// (sessions.ts), refusals (refusal.ts), resumed streams (resumption.ts) and a recorded authorization
// (harness/authorization/) each have a module; a recording without sessions (the stateless revision)
// plays without them, its mirrored headers checked. serve.ts listens.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Player,
  describeMessage,
  kindOf,
  type Cassette,
  type ClientFrame,
  type DiagnosisKind,
  type FaceOptions,
  type HttpPlacement,
  type HttpReply,
  type JsonObject,
  type Piece,
  type PlayReport,
  readClientLine,
} from '../../cassette/index.ts';
import { AuthorizationServer } from '../../authorization/index.ts';
import { formatSseEvent } from './sse.ts';
import { Admission } from './admission.ts';
import { inTurn, turns, type Channel } from './channel.ts';
import { Resumption } from './resumption.ts';
import { HttpSessions } from './sessions.ts';
import { JSON_TYPE, refuseRequest, requestText, SSE_TYPE, type Refusal } from './refusal.ts';

export interface HttpFaceOptions extends FaceOptions {
  /** 0 (default): a free port. Always on 127.0.0.1. */
  port?: number;
  /** recorded: each stream keeps the recorded gaps between its events; none (default): at once, in order. */
  pace?: 'recorded' | 'none';
  /** Where this replay gave no session (a cassette without sessions; a stdio one), the session is
   *  over once every recorded client message has been played and answered: finish then, as DELETE
   *  finishes a session. `theinference replay` sets it; the grader ends a case when its program does. */
  endWhenPlayed?: boolean;
}

/** Between the reads an event is cut into: long enough that a client waiting for a core on a
 *  loaded machine still reads them apart (as between the reads of a stdio case). */
const READ_GAP_MS = 50;

export class HttpFace {
  readonly player: Player;
  readonly done: Promise<PlayReport>;
  private resolveDone!: (report: PlayReport) => void;
  private report: PlayReport | undefined;
  private readonly path: string;
  /** Open POST channels by the live id of their request, in the order they were opened. */
  private readonly channels = new Map<string, Channel>();
  /** The session ids, the agreed version, and what a request must say of them (sessions.ts). */
  private readonly sessions: HttpSessions;
  /** The client's GET stream, when the recording answered GET with one. */
  private getStream: ServerResponse | undefined;
  private readonly getTurns = turns();
  /** What goes on the GET stream before the client opened it. */
  private readonly forGet: string[] = [];
  /** Streams the server closed before their response, and the GETs that resume them (resumption.ts). */
  private readonly resumption: Resumption;
  private deleted = false;
  /** The POST being handed to the player: what it puts out at once and cannot place goes there. */
  private current: Channel | undefined;
  /** A stream the client reads slower than the player writes: the player waits for it to drain. */
  private fullStream: ServerResponse | undefined;
  /** POSTs that came while the player waited: handed over in order once it goes on. */
  private readonly postponed: (() => void)[] = [];
  /** The responses to POSTs not yet written to the end: a session that is over ends after them. */
  private readonly unfinished = new Set<ServerResponse>();
  private endingWhenPlayed = false;
  /** The authorization's endpoints, for a cassette that recorded them. */
  readonly authorization: AuthorizationServer | undefined;
  /** What a request must say before the player is given its message (admission.ts). */
  private readonly admission: Admission;

  constructor(
    private readonly cassette: Cassette,
    private readonly options: HttpFaceOptions,
  ) {
    this.path = cassette.http?.path ?? '/mcp';
    const host = {
      mistake: (kind: DiagnosisKind, message: string) => this.player.transportMistake(kind, message),
      refuse: (...refused: [IncomingMessage, ServerResponse, Refusal, [DiagnosisKind, string]?]) => refuseRequest(this.player, ...refused),
    };
    this.resumption = new Resumption(this.path, {
      ...host,
      open: (channel, response) => {
        this.openStream(response, channel.reply);
        this.onClientLeaving(channel, response);
      },
    });
    this.sessions = new HttpSessions(cassette, this.path, host);
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
    this.player = new Player(
      cassette,
      {
        write: (piece) => this.place(piece),
        sse: (frame) => this.event(frame.http, frame.data),
        full: () => this.fullStream !== undefined,
        stderr: (line) => options.onStderr?.(line),
        diagnose: (diagnosis) => options.onDiagnosis?.(diagnosis),
      },
      options,
    );
    this.authorization = AuthorizationServer.of(cassette, this.player);
    this.admission = new Admission(cassette, this.path, this.player, this.sessions, this.authorization);
    this.player.start();
  }

  finish(): PlayReport {
    if (this.report) return this.report;
    if (this.sessions.live && this.cassette.http?.delete !== undefined && !this.deleted) {
      this.player.transportMistake(
        'http-session-left-open',
        `the session ended without DELETE: close() should end the session it started (DELETE ${this.path} with its Mcp-Session-Id), so that the server can let it go`,
      );
    }
    this.resumption.sayUnresumed();
    this.player.endOfInput();
    this.report = this.player.finish();
    this.resolveDone(this.report);
    return this.report;
  }

  endStreams(): void {
    for (const channel of this.channels.values()) this.end(channel);
    this.resumption.clear();
    this.getStream?.end();
  }

  /** All it can put out is out (nothing waits in turn on a stream), and the player waits for a client
   *  message, or for the GET that resumes a stream it closed once the client has waited its retry. */
  waitsForClient(): boolean {
    if (this.report !== undefined || this.player.paused) return false;
    if (this.player.expecting === undefined && this.resumption.waiting.size === 0) return false;
    if (this.resumption.withinRetry()) return false;
    return this.getTurns.queued === 0 && [...this.channels.values()].every((channel) => channel.queued === 0);
  }

  handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (this.authorization?.took(request, response, url)) {
      // a replay that ends when played may end at an exchange of the authorization (a refusal case's last)
      if (this.options.endWhenPlayed) response.once('close', () => this.endIfPlayed());
      return;
    }
    // a DELETE refused for its token was sent all the same: the session was not left open
    const admitted = this.admission.request(request, response, url, (method) => (this.deleted ||= method === 'DELETE'));
    if (!admitted) return;
    if (request.method === 'GET') return this.get(request, response);
    if (request.method === 'DELETE') return this.delete(response);
    if (this.options.endWhenPlayed) {
      this.unfinished.add(response);
      response.once('close', () => {
        this.unfinished.delete(response);
        this.endIfPlayed();
      });
    }
    this.admission.body(request, response, (text) => this.message(text, request, response));
  }

  /** One POSTed body: handed to the player, answered as the recording answered it. */
  private message(text: string, request: IncomingMessage, response: ServerResponse): void {
    if (this.player.paused) return void this.postponed.push(() => this.message(text, request, response));
    // read as the player reads it: a body that is not one message it reads (one nested too deep among them) is the player's to say
    const read = readClientLine(text);
    const message = 'message' in read ? read.message : undefined;
    const expected = this.player.expectingFor(message);
    if (!this.admission.message(request, response, message, text, expected?.http?.headers?.authorization)) return;
    const isRequest = typeof message === 'object' && message !== null && kindOf(message as JsonObject) === 'request';
    const id = isRequest ? JSON.stringify((message as JsonObject).id) : 'null';
    const what = isRequest ? describeMessage(message as JsonObject, 'your id') : 'a POST';
    const channel: Channel = { ...turns(), response, id, what, reply: expected?.http?.reply, streaming: false, answered: false, evented: false, ended: false };
    if (isRequest) this.channels.set(id, channel);
    this.current = channel;
    try {
      this.player.receiveLine(text);
    } finally {
      this.current = undefined;
    }
    const consumed = expected !== undefined && this.player.expecting !== expected;
    const refusal = consumed && expected.http?.reply && expected.http.reply.status >= 400 ? expected.http.reply : undefined;
    if (refusal && !channel.answered) return this.replayRefusal(channel, refusal);
    if (!isRequest && !channel.answered) this.accepted(channel, expected);
    this.onClientLeaving(channel, response);
  }

  /** The client left the stream (or the body) before it ended: nothing more goes there. Not when the
   *  server closed it to be resumed: that stream goes on, on the GET that resumes it. */
  private onClientLeaving(channel: Channel, response: ServerResponse): void {
    response.on('close', () => {
      if (channel.response !== response || channel.suspension) return;
      channel.ended = true;
      this.channels.delete(channel.id);
    });
  }

  /** A request the recorded server refused at the HTTP level (a session it had lost: 404), answered so.
   *  The session is gone: the client starts another with initialize, without the old id. */
  private replayRefusal(channel: Channel, reply: HttpReply): void {
    channel.answered = true;
    channel.ended = true;
    this.channels.delete(channel.id);
    if (reply.status === 404 || reply.status === 400) {
      this.sessions.lost();
      this.player.checks.sessionRestarted();
    } else this.player.checks.refused(JSON.parse(channel.id));
    const type = reply.headers?.['content-type'] ?? (reply.body === 'text' ? 'text/plain' : undefined);
    this.player.transportReplied(reply.status, reply.text);
    const headers = Object.entries(this.sessions.headers(reply)).map(([name, value]) => [name, this.authorization?.fill(value) ?? value]);
    channel.response.writeHead(reply.status, { ...Object.fromEntries(headers), ...(type && { 'content-type': type }) }).end(reply.text ?? '');
  }

  /** A notification or a response from the client: 202 with no body, or what the recording answered. */
  private accepted(channel: Channel, expected: ClientFrame | undefined): void {
    const reply = expected?.http?.reply;
    channel.answered = true;
    channel.ended = true;
    if (reply === undefined || reply.body === 'none' || reply.body === 'json' || reply.body === 'sse') return void channel.response.writeHead(202).end();
    channel.response.writeHead(reply.status, this.sessions.headers(reply)).end(reply.text ?? '');
  }

  private get(request: IncomingMessage, response: ServerResponse): void {
    const resumeAfter = request.headers['last-event-id'];
    if (typeof resumeAfter === 'string' && String(request.headers.accept ?? '').includes(SSE_TYPE))
      return this.resumption.resume(resumeAfter, request, response);
    const waiting = [...this.resumption.waiting.entries()][0];
    if (waiting && resumeAfter === undefined) {
      const [lastId, channel] = waiting;
      this.player.transportMistake(
        'http-resume',
        `your client's GET ${this.path} has no Last-Event-ID, while the server waits to resume the stream of ${channel.what} after its event ${JSON.stringify(lastId)}: a client resumes a stream the server closed with a GET whose Last-Event-ID is the last event id it received on it; the rest of that stream comes only there`,
      );
    }
    const reply = this.cassette.http?.get;
    if (reply === undefined || reply.body !== 'sse' || reply.status !== 200) {
      const status = reply?.status ?? 405;
      if (status >= 400) this.player.transportRefusal(requestText(request), status, reply?.text);
      return void response.writeHead(status, reply ? this.sessions.headers(reply) : { allow: 'POST, DELETE' }).end(reply?.text ?? '');
    }
    if (!String(request.headers.accept ?? '').includes(SSE_TYPE)) {
      return refuseRequest(this.player, request, response, { status: 406, error: `Not Acceptable: Client must accept ${SSE_TYPE}` }, [
        'http-accept',
        `your client's GET says Accept: ${JSON.stringify(request.headers.accept ?? '')}; a GET stream needs ${SSE_TYPE}`,
      ]);
    }
    this.getStream?.end();
    this.getStream = response;
    this.openStream(response, reply);
    for (const bytes of this.forGet.splice(0)) response.write(bytes);
    response.on('close', () => {
      if (this.getStream === response) this.getStream = undefined;
    });
  }

  /** With endWhenPlayed, a replay that gave no session finishes once the recording has no client
   *  message left to play and every POST has had its whole answer (there is no DELETE to wait for). */
  private endIfPlayed(): void {
    if (this.endingWhenPlayed || this.report !== undefined) return;
    if (this.sessions.live || this.player.paused || this.player.expecting !== undefined || this.resumption.waiting.size > 0) return;
    if (this.unfinished.size > 0 || this.authorization?.played() === false) return;
    this.endingWhenPlayed = true;
    // after the close of the last answer's connection handlers have run: a client reads it whole first
    setImmediate(() => {
      this.finish();
      this.endStreams();
    });
  }

  private delete(response: ServerResponse): void {
    const reply = this.cassette.http?.delete ?? { status: 200, body: 'none' as const };
    response.writeHead(reply.status, this.sessions.headers(reply)).end(reply.text ?? '');
    if (reply.status < 300) {
      this.finish();
      this.endStreams();
    }
  }

  /** A piece of a server message from the player: its whole message goes where it belongs. */
  private place(piece: Piece): void {
    if (!piece.from) return; // the rest of a message already placed (stdio reads mean nothing here)
    const { message, frame } = piece.from;
    const placement = frame?.http;
    if (kindOf(message) === 'response') {
      const channel = this.channels.get(JSON.stringify(message.id)) ?? (message.id === null ? this.current : undefined);
      // none: the client gave up on the request (closed its POST); the answer has nowhere to go
      if (channel) this.answer(channel, message, placement, piece.initializeResult === true, piece.from.status);
      return;
    }
    // A notification or server request: on the stream of the request it came with, else the GET stream.
    this.event(placement ?? {}, JSON.stringify(message), message);
  }

  /** An event for a stream: the latest open POST stream when recorded on one, else the GET stream. */
  private event(placement: HttpPlacement, data: string | undefined, message?: JsonObject): void {
    const onRequest = placement.request !== undefined || (message !== undefined && this.cassette.transport === 'stdio');
    const channel = onRequest ? [...this.channels.values()].reverse().find((open) => !open.answered) : undefined;
    // a recorded event goes out with its own fields; a message from a stdio recording as SDK servers send one
    const fields = message !== undefined && this.cassette.transport === 'stdio' ? { event: 'message' } : placement;
    const bytes = formatSseEvent(fields, data);
    if (channel) {
      channel.evented = true;
      this.onStream(channel, bytes, placement);
    } else if (this.getStream || message !== undefined) {
      inTurn(this.options.pace === 'recorded', this.getTurns, placement.at, () =>
        this.getStream ? this.write(this.getStream, bytes) : this.forGet.push(bytes),
      );
    }
  }

  private answer(channel: Channel, message: JsonObject, placement: HttpPlacement | undefined, initializeResult: boolean, status?: number): void {
    channel.answered = true;
    this.channels.delete(channel.id);
    if (status !== undefined && !channel.streaming) {
      // the player's own answer where a real server answers with an error status: a JSON body
      return inTurn(this.options.pace === 'recorded', channel, undefined, () => {
        if (channel.ended) return;
        channel.ended = true;
        channel.response.writeHead(status, { 'content-type': JSON_TYPE }).end(JSON.stringify(message));
      });
    }
    // Unlike stdio, the result is not held back to catch a client that does not wait for it: over
    // HTTP such a client lacks the session id the reply gives, and a hold would make what a client
    // that lost its stream early is told depend on timing.
    if (initializeResult) this.sessions.agreed(message);
    if (channel.evented || channel.reply?.body === 'sse') {
      this.onStream(channel, formatSseEvent(placement ?? { event: 'message' }, JSON.stringify(message)), placement);
      return inTurn(
        this.options.pace === 'recorded',
        channel,
        undefined,
        this.resumption.onChannel(channel, () => this.end(channel)),
      );
    }
    inTurn(this.options.pace === 'recorded', channel, placement?.at, () => {
      if (channel.ended) return; // the client left before its answer
      channel.ended = true;
      channel.response
        .writeHead(channel.reply?.status ?? 200, { ...this.sessions.headers(channel.reply), 'content-type': JSON_TYPE })
        .end(JSON.stringify(message));
    });
  }

  /** An event on a POST stream, in the reads the recording cut it into (`cuts`: byte offsets), each
   *  after a gap so that the client gets them apart: a reader must join a split event, or character. */
  private onStream(channel: Channel, text: string, placement: HttpPlacement | undefined): void {
    const bytes = Buffer.from(text);
    const bounds = [0, ...(placement?.cuts ?? []).filter((cut) => cut < bytes.length), bytes.length];
    for (let i = 0; i + 1 < bounds.length; i++) {
      const part = bytes.subarray(bounds[i], bounds[i + 1]);
      const last = i + 2 === bounds.length;
      const write = this.resumption.onChannel(channel, () => {
        this.stream(channel);
        if (!channel.ended) this.write(channel.response, part);
        if (last) this.written(channel, placement);
      });
      inTurn(this.options.pace === 'recorded', channel, i === 0 ? placement?.at : undefined, write, i === 0 ? 0 : READ_GAP_MS);
    }
    if (placement?.closes)
      inTurn(
        this.options.pace === 'recorded',
        channel,
        undefined,
        this.resumption.onChannel(channel, () => this.resumption.suspend(channel)),
      );
  }

  /** An event is out whole: the client holds its id (its Last-Event-ID) and its retry. */
  private written(channel: Channel, placement: HttpPlacement | undefined): void {
    if (placement?.id !== undefined) {
      channel.lastEventId = placement.id;
      this.resumption.sentOn(placement.id, channel);
    }
    if (placement?.retry !== undefined) channel.retryMs = placement.retry;
  }

  /** Writes on a stream; one whose buffer is full stops the player until it drains (or closes): a
   *  long stream is played as fast as the client reads it, never all held in memory. */
  private write(response: ServerResponse, bytes: string | Buffer): void {
    if (response.write(bytes) || this.fullStream) return;
    this.fullStream = response;
    const room = () => {
      response.off('drain', room);
      response.off('close', room);
      this.fullStream = undefined;
      this.player.resume();
      while (!this.player.paused && this.postponed.length > 0) this.postponed.shift()!();
    };
    response.on('drain', room);
    response.on('close', room);
  }

  /** Opens the channel as an event stream, once. */
  private stream(channel: Channel): void {
    if (channel.streaming || channel.ended) return;
    channel.streaming = true;
    this.openStream(channel.response, channel.reply);
  }

  private end(channel: Channel): void {
    channel.answered = true;
    if (channel.ended) return;
    channel.ended = true;
    this.channels.delete(channel.id);
    channel.response.end();
  }

  /** Starts an event stream on `response`, with the headers of the recorded reply it plays. */
  private openStream(response: ServerResponse, reply: HttpReply | undefined): void {
    response.writeHead(200, { ...this.sessions.headers(reply), 'content-type': SSE_TYPE, 'cache-control': 'no-cache' });
    response.flushHeaders();
  }
}
