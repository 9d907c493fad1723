// Resumability (Streamable HTTP): a server may close a request's stream before its response; what
// it sends after waits for the GET that resumes the stream, with the Last-Event-ID of the last event
// the client got on it, after the retry the stream gave (2025-11-25 transports, resumability and
// redelivery). The face asks here what to do with a stream's work while it is closed, and with such a GET.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { DiagnosisKind } from '../../cassette/index.ts';
import type { Channel } from './channel.ts';
import type { Refusal } from './refusal.ts';

/** How much sooner than its retry a resuming GET may come: clocks round to the millisecond. */
const RETRY_ROUNDING_MS = 5;

/** What resumption needs of the face. */
export interface ResumptionHost {
  mistake(kind: DiagnosisKind, message: string): void;
  refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal, mistake?: [DiagnosisKind, string]): void;
  /** Opens the GET's response as the channel's event stream, from where the server closed it. */
  open(channel: Channel, response: ServerResponse): void;
}

export class Resumption {
  /** Streams the server closed before their response, by the id of the last event the client got on each. */
  readonly waiting = new Map<string, Channel>();
  /** The stream each event id was written on, to tell a client that resumes from another event than the last. */
  private readonly streamOfEvent = new Map<string, Channel>();

  constructor(
    private readonly path: string,
    private readonly host: ResumptionHost,
  ) {}

  /** An event with this id went on the channel's stream. */
  sentOn(eventId: string, channel: Channel): void {
    this.streamOfEvent.set(eventId, channel);
  }

  /** At the end: each stream the client never resumed is said (what came on it after never reached it). */
  sayUnresumed(): void {
    for (const [lastId, channel] of this.waiting) {
      this.host.mistake(
        'http-resume',
        `the server closed the stream of ${channel.what} after its event ${JSON.stringify(lastId)}, and your client never resumed it (a GET with that Last-Event-ID): what the server sent after it${channel.answered ? ', the response among it,' : ''} never reached your client`,
      );
    }
  }

  /** A closed stream's client is still within the retry it was given: it is to wait, not to send, so nothing is late yet. */
  withinRetry(): boolean {
    const now = performance.now();
    return [...this.waiting.values()].some((channel) => now - channel.suspension!.closedAt < (channel.retryMs ?? 0));
  }

  /** The replay is over: no stream waits any more. */
  clear(): void {
    this.waiting.clear();
  }

  /** A GET with Last-Event-ID: the stream the server closed after that event goes on there, with
   *  what waited for it, as the recorded server (with an event store) replays it. */
  resume(lastId: string, request: IncomingMessage, response: ServerResponse): void {
    const channel = this.waiting.get(lastId);
    if (channel === undefined) {
      return this.host.refuse(request, response, { status: 400, error: `Bad Request: no stream to resume after event ${JSON.stringify(lastId)}` }, [
        'http-resume',
        this.noSuchResumption(lastId),
      ]);
    }
    const { closedAt, held } = channel.suspension!;
    const waited = performance.now() - closedAt;
    // Its timer can only fire later than asked, never sooner (what a loaded machine changes): a little
    // room for rounding in either clock is all it needs.
    if (channel.retryMs !== undefined && waited < channel.retryMs - RETRY_ROUNDING_MS) {
      this.host.mistake(
        'http-retry',
        `your client resumed the stream of ${channel.what} sooner than the ${channel.retryMs} ms the stream's retry field asked it to wait after the server closed it: a client waits the retry it was given before it reconnects`,
      );
    }
    this.waiting.delete(lastId);
    channel.suspension = undefined;
    channel.response = response;
    this.host.open(channel, response);
    for (const run of held) run();
  }

  /** Why a GET's Last-Event-ID resumes nothing: not the last event of a stream the server closed. */
  private noSuchResumption(lastId: string): string {
    const said = `your client's GET ${this.path} says Last-Event-ID ${JSON.stringify(lastId)}`;
    const of = this.streamOfEvent.get(lastId);
    const closed = [...this.waiting.entries()].map(([id, waiting]) => `the stream of ${waiting.what} after ${JSON.stringify(id)}`);
    if (closed.length === 0) {
      // it thought a stream was cut: it lost what came on it
      return of
        ? `${said}, an event of the stream of ${of.what}, which the server never closed before its end${of.answered ? ', the response among it' : ''}: your client lost what came on that stream after that event`
        : `${said}, which the server never sent, and the server closed no stream before its response`;
    }
    return `${said}, ${of ? `an event of the stream of ${of.what} but not the last it sent there` : 'which the server never sent'}; the server waits to resume ${closed.join(' and ')}: Last-Event-ID is the last event id the client received on the stream it resumes`;
  }

  /** The recorded server closed the connection here: the stream's later events wait for the GET that resumes it. */
  suspend(channel: Channel): void {
    if (channel.ended || channel.lastEventId === undefined) return;
    channel.suspension = { closedAt: performance.now(), held: [] };
    this.waiting.set(channel.lastEventId, channel);
    channel.response.end();
  }

  /** Work on a channel's stream, in its turn; while the server has it closed, kept for the GET that resumes it. */
  onChannel(channel: Channel, work: () => void): () => void {
    const run = () => (channel.suspension ? void channel.suspension.held.push(run) : work());
    return run;
  }
}
