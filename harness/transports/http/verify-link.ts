// verify over Streamable HTTP: the cassette's client side played to the server at a URL, as a
// Streamable HTTP client talks to it (cassette/recording/verify.ts compares what it says with the recording).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  describeMessage,
  isObject,
  isStatelessMessage,
  kindOf,
  parseOrUndefined,
  playClientSide,
  type Cassette,
  type ClientFrame,
  type Drift,
  type Heard,
  type Json,
  type JsonObject,
  type Link,
  type VerifyOptions,
} from '../../cassette/index.ts';
import type { AuthClient } from '../../authorization/index.ts';
import type { SseEvent } from './sse.ts';

/** Plays the client side of an HTTP cassette against the server at `url` and says what drifted. */
export function verifyHttpCassette(cassette: Cassette, url: string, options: VerifyOptions = {}): Promise<Drift[]> {
  return playClientSide(cassette, options, undefined, 'in a reply', (heard, drift) => httpLink(cassette, url, heard, drift));
}

/** How long verify waits for the server to answer the DELETE that ends an HTTP session. */
const DELETE_WAIT_MS = 5000;

/** How long a resumed stream waits when the server gave no retry (as the reference client). */
const DEFAULT_RETRY_MS = 1000;

/** The server at a URL, as a Streamable HTTP client talks to it. */
async function httpLink(cassette: Cassette, url: string, heard: Heard, drift: Drift[]): Promise<Link> {
  const { SseParser } = await import('./sse.ts');
  const { AuthClient } = await import('../../authorization/index.ts');
  return new HttpLink(cassette, url, heard, drift, () => new SseParser(), new AuthClient(cassette, new URL(url).origin));
}

/** An event stream's parser (sse.ts, loaded when a link is made). */
interface EventParser {
  push(chunk: Buffer): SseEvent[];
  end(): SseEvent[];
}

/** A Streamable HTTP client's session with the server: each message POSTed, its reply read (a JSON
 *  body or an event stream, resumed where the server closes it before its response), the session id
 *  and protocol version sent back, the GET stream opened where the recording had one, DELETE at the end. */
class HttpLink implements Link {
  private session: string | undefined;
  private version: string | undefined;
  // A recorded authorization is run again live in its place: before the request that follows it,
  // once the requests before it were answered (a token expires with the requests made).
  private authorized: Promise<void> = Promise.resolve();
  // A notification's (or an answer's) POST is acknowledged (202) before the client sends on, as a
  // client's send() awaits it: sent at once, the next could overtake it (a gateway that checks each
  // token before it forwards: a tools/list before the initialized that registers tools).
  private acknowledged: Promise<unknown> = Promise.resolve();
  private bearer: string | undefined;
  private readonly ending = new AbortController();
  /** Work in flight (a POST's reply, the GET stream), and the POSTs among it. */
  private readonly pending = new Set<Promise<void>>();
  private readonly posts = new Set<Promise<void>>();
  /** The recorded POST of each client message: its reply's status, and the headers that mirror its body. */
  private readonly carriers = new Map<JsonObject, ClientFrame>();
  readonly gone = new Promise<void>(() => {}); // a URL does not go away on its own: a silent server is a timeout

  constructor(
    private readonly cassette: Cassette,
    private readonly url: string,
    private readonly heard: Heard,
    private readonly drift: Drift[],
    private readonly parser: () => EventParser,
    private readonly auth: AuthClient,
  ) {
    for (const frame of cassette.frames) if (frame.from === 'client') this.carriers.set(frame.message, frame);
  }

  send(text: string, message: JsonObject): void {
    const { auth, cassette, drift } = this;
    const what = describeMessage(message);
    const carrier = this.carriers.get(message);
    const credential = carrier?.http?.headers?.authorization;
    const at = carrier === undefined ? cassette.frames.length : cassette.frames.indexOf(carrier);
    if (auth.before(at)) {
      const answered = Promise.all([this.authorized, ...this.posts]);
      this.authorized = answered.then(() => auth.run(drift, at));
    }
    const posted = Promise.all([this.authorized, this.acknowledged])
      .then(() => {
        this.bearer = auth.credential(credential) ?? this.bearer;
        const sent = { 'content-type': 'application/json', ...this.headers('application/json, text/event-stream'), ...mirrored(carrier, message) };
        // a request recorded without credentials goes without them (the 401 that starts the authorization)
        if (auth.recorded && credential === undefined) delete (sent as Record<string, string>).authorization;
        return fetch(this.url, { method: 'POST', headers: sent, body: text, signal: this.ending.signal });
      })
      .then((response) =>
        this.read(response, what, carrier?.http?.reply?.status, kindOf(message) === 'request' ? message.id : undefined, carrier?.http?.reply?.body === 'text'),
      );
    inFlight(this.posts, this.track(posted, `POST ${what}`));
    if (kindOf(message) !== 'request') this.acknowledged = posted.catch(() => {});
    // as a client does: the server's own stream once the session is established
    const established = message.method === 'notifications/initialized' && cassette.http?.get?.status === 200;
    if (established)
      void posted.then(
        () => this.openGetStream(),
        () => {},
      );
  }

  async close(): Promise<void> {
    const { auth, cassette } = this;
    // what the recording's authorization did after its last message (a flow the client gave up) runs too
    if (auth.before(cassette.frames.length)) {
      await Promise.all([this.authorized, ...this.posts]);
      await auth.run(this.drift, cassette.frames.length);
    }
    // a server that never answers DELETE must not hold verify: what it said is already heard
    const ended = AbortSignal.timeout(DELETE_WAIT_MS);
    if (this.session) await fetch(this.url, { method: 'DELETE', headers: this.headers('application/json, text/event-stream'), signal: ended }).catch(() => {});
    this.ending.abort();
    await Promise.all(this.pending);
  }

  private headers(accept: string): Record<string, string> {
    const { session, version, bearer } = this;
    return {
      accept,
      ...(session && { 'mcp-session-id': session }),
      ...(version && { 'mcp-protocol-version': version }),
      ...(bearer && { authorization: bearer }),
    };
  }

  /** A response read: its status against the recording's, its body heard. `request`: the id of the
   *  request it answers, whose stream is resumed if the server closes it first. */
  private async read(response: Response, what: string, recordedStatus?: number, request?: Json, recordedText?: boolean): Promise<void> {
    this.session = response.headers.get('mcp-session-id') ?? this.session;
    const type = response.headers.get('content-type') ?? '';
    if (recordedStatus !== undefined ? response.status !== recordedStatus : response.status >= 400) {
      this.drift.push({
        frame: -1,
        message: `the server answered ${what} with HTTP ${response.status}${recordedStatus !== undefined ? ` (recorded: ${recordedStatus})` : ''}`,
      });
    }
    if (!response.body) return;
    if (!type.startsWith('text/event-stream')) {
      const text = await response.text();
      // a refusal's body as recorded (a 401's OAuth error) is the HTTP layer's, not a message
      if (text !== '' && !(recordedText && response.status === recordedStatus)) this.hear(text);
      return;
    }
    return this.readStream(response.body, what, request);
  }

  /** An event stream heard to its end; closed before its response (the server's polling), it is resumed
   *  as a client resumes it, after its retry. */
  private async readStream(body: ReadableStream<Uint8Array>, what: string, request: Json | undefined): Promise<void> {
    const parser = this.parser();
    let lastId: string | undefined;
    let retryMs = DEFAULT_RETRY_MS;
    let answered = request === undefined;
    const take = (event: SseEvent) => {
      if (event.id !== undefined) lastId = event.id;
      if (event.retry !== undefined) retryMs = event.retry;
      if (!event.data) return;
      const message = this.hear(event.data);
      if (isObject(message) && kindOf(message) === 'response' && message.id === request) answered = true;
    };
    for await (const chunk of body) for (const event of parser.push(Buffer.from(chunk))) take(event);
    for (const event of parser.end()) take(event);
    const { signal } = this.ending;
    if (answered || lastId === undefined || signal.aborted) return;
    await sleep(retryMs, undefined, { signal });
    const resumed = await fetch(this.url, { headers: { ...this.headers('text/event-stream'), 'last-event-id': lastId }, signal });
    return this.read(resumed, `the GET that resumes ${what}`, undefined, request);
  }

  private hear(text: string): unknown {
    const message = parseOrUndefined(text);
    const result = isObject(message) && isObject(message.result) ? message.result : undefined;
    if (typeof result?.protocolVersion === 'string') this.version = result.protocolVersion;
    this.heard(message, text);
    return message;
  }

  private track(work: Promise<void>, what: string): Promise<void> {
    const tracked = work.catch((error: Error) => {
      if (!this.ending.signal.aborted) this.drift.push({ frame: -1, message: `${what} failed: ${error.message}` });
    });
    return inFlight(this.pending, tracked);
  }

  private openGetStream(): Promise<void> {
    return this.track(
      fetch(this.url, { headers: this.headers('text/event-stream'), signal: this.ending.signal }).then((response) => this.read(response, 'GET')),
      'the GET stream',
    );
  }
}

/** `work`, kept in `set` while it runs. */
function inFlight(set: Set<Promise<void>>, work: Promise<void>): Promise<void> {
  set.add(work);
  void work.finally(() => set.delete(work));
  return work;
}

/** The headers that mirror a stateless request's body (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
 *  Mcp-Param-*), sent as recorded: even one that disagreed with the body, which the server refused. */
function mirrored(carrier: ClientFrame | undefined, message: JsonObject): Record<string, string> {
  const recorded = carrier?.http?.headers ?? {};
  if (!isStatelessMessage(message) && recorded['mcp-method'] === undefined) return {};
  const kept = Object.entries(recorded).filter(
    ([name]) => name === 'mcp-protocol-version' || name === 'mcp-method' || name === 'mcp-name' || name.startsWith('mcp-param-'),
  );
  return Object.fromEntries(kept);
}
