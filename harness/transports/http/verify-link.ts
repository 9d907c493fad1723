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
import type { SseEvent } from './sse.ts';

/** Plays the client side of an HTTP cassette against the server at `url` and says what drifted. */
export function verifyHttpCassette(cassette: Cassette, url: string, options: VerifyOptions = {}): Promise<Drift[]> {
  return playClientSide(cassette, options, undefined, 'in a reply', (heard, drift) => httpLink(cassette, url, heard, drift));
}

/** How long verify waits for the server to answer the DELETE that ends an HTTP session. */
const DELETE_WAIT_MS = 5000;

/** How long a resumed stream waits when the server gave no retry (as the reference client). */
const DEFAULT_RETRY_MS = 1000;

/** The server at a URL, as a Streamable HTTP client talks to it: each message POSTed, its reply read
 *  (a JSON body or an event stream, resumed where the server closes it before its response), the
 *  session id and protocol version sent back, the GET stream opened where the recording had one,
 *  DELETE at the end. */
async function httpLink(cassette: Cassette, url: string, heard: Heard, drift: Drift[]): Promise<Link> {
  const { SseParser } = await import('./sse.ts');
  let session: string | undefined;
  let version: string | undefined;
  // a recorded authorization is run again live in its place: before the request that follows it,
  // once the requests before it were answered (a token expires with the requests made)
  const { AuthClient } = await import('../../authorization/index.ts');
  const auth = new AuthClient(cassette, new URL(url).origin);
  let authorized: Promise<void> = Promise.resolve();
  // A notification's (or an answer's) POST is acknowledged (202) before the client sends on, as a
  // client's send() awaits it: sent at once, the next could overtake it (a gateway that checks each
  // token before it forwards: a tools/list before the initialized that registers tools).
  let acknowledged: Promise<unknown> = Promise.resolve();
  let bearer: string | undefined;
  const ending = new AbortController();
  /** Work in flight (a POST's reply, the GET stream), and the POSTs among it. */
  const pending = new Set<Promise<void>>();
  const posts = new Set<Promise<void>>();
  const inFlight = (set: Set<Promise<void>>, work: Promise<void>) => {
    set.add(work);
    void work.finally(() => set.delete(work));
    return work;
  };
  const headers = (accept: string) => ({
    accept,
    ...(session && { 'mcp-session-id': session }),
    ...(version && { 'mcp-protocol-version': version }),
    ...(bearer && { authorization: bearer }),
  });
  // The recorded POST of each client message: its reply's status, and the headers that mirror its body.
  const carriers = new Map<JsonObject, ClientFrame>();
  for (const frame of cassette.frames) if (frame.from === 'client') carriers.set(frame.message, frame);
  /** `request`: the id of the request it answers, whose stream is resumed if the server closes it first. */
  const read = async (response: Response, what: string, recordedStatus?: number, request?: Json, recordedText?: boolean): Promise<void> => {
    session = response.headers.get('mcp-session-id') ?? session;
    const type = response.headers.get('content-type') ?? '';
    if (recordedStatus !== undefined ? response.status !== recordedStatus : response.status >= 400) {
      drift.push({
        frame: -1,
        message: `the server answered ${what} with HTTP ${response.status}${recordedStatus !== undefined ? ` (recorded: ${recordedStatus})` : ''}`,
      });
    }
    if (!response.body) return;
    if (!type.startsWith('text/event-stream')) {
      const text = await response.text();
      // a refusal's body as recorded (a 401's OAuth error) is the HTTP layer's, not a message
      if (text !== '' && !(recordedText && response.status === recordedStatus)) hear(text);
      return;
    }
    const parser = new SseParser();
    let lastId: string | undefined;
    let retryMs = DEFAULT_RETRY_MS;
    let answered = request === undefined;
    const take = (event: SseEvent) => {
      if (event.id !== undefined) lastId = event.id;
      if (event.retry !== undefined) retryMs = event.retry;
      if (!event.data) return;
      const message = hear(event.data);
      if (isObject(message) && kindOf(message) === 'response' && message.id === request) answered = true;
    };
    for await (const chunk of response.body) for (const event of parser.push(Buffer.from(chunk))) take(event);
    for (const event of parser.end()) take(event);
    // Closed before its response (the server's polling): resumed as a client resumes it, after its retry.
    if (answered || lastId === undefined || ending.signal.aborted) return;
    await sleep(retryMs, undefined, { signal: ending.signal });
    const resumed = await fetch(url, { headers: { ...headers('text/event-stream'), 'last-event-id': lastId }, signal: ending.signal });
    return read(resumed, `the GET that resumes ${what}`, undefined, request);
  };
  const hear = (text: string): unknown => {
    const message = parseOrUndefined(text);
    const result = isObject(message) && isObject(message.result) ? message.result : undefined;
    if (typeof result?.protocolVersion === 'string') version = result.protocolVersion;
    heard(message, text);
    return message;
  };
  const track = (work: Promise<void>, what: string) => {
    const tracked = work.catch((error: Error) => {
      if (!ending.signal.aborted) drift.push({ frame: -1, message: `${what} failed: ${error.message}` });
    });
    return inFlight(pending, tracked);
  };
  const openGetStream = () =>
    track(
      fetch(url, { headers: headers('text/event-stream'), signal: ending.signal }).then((response) => read(response, 'GET')),
      'the GET stream',
    );
  return {
    send: (text, message) => {
      const what = describeMessage(message);
      const carrier = carriers.get(message);
      const credential = carrier?.http?.headers?.authorization;
      const at = carrier === undefined ? cassette.frames.length : cassette.frames.indexOf(carrier);
      if (auth.before(at)) {
        const answered = Promise.all([authorized, ...posts]);
        authorized = answered.then(() => auth.run(drift, at));
      }
      const posted = Promise.all([authorized, acknowledged])
        .then(() => {
          bearer = auth.credential(credential) ?? bearer;
          const sent = { 'content-type': 'application/json', ...headers('application/json, text/event-stream'), ...mirrored(carrier, message) };
          // a request recorded without credentials goes without them (the 401 that starts the authorization)
          if (auth.recorded && credential === undefined) delete (sent as Record<string, string>).authorization;
          return fetch(url, { method: 'POST', headers: sent, body: text, signal: ending.signal });
        })
        .then((response) =>
          read(response, what, carrier?.http?.reply?.status, kindOf(message) === 'request' ? message.id : undefined, carrier?.http?.reply?.body === 'text'),
        );
      inFlight(posts, track(posted, `POST ${what}`));
      if (kindOf(message) !== 'request') acknowledged = posted.catch(() => {});
      // as a client does: the server's own stream once the session is established
      if (message.method === 'notifications/initialized' && cassette.http?.get?.status === 200) void posted.then(openGetStream, () => {});
    },
    gone: new Promise(() => {}), // a URL does not go away on its own: a silent server is a timeout
    close: async () => {
      // what the recording's authorization did after its last message (a flow the client gave up) runs too
      if (auth.before(cassette.frames.length)) {
        await Promise.all([authorized, ...posts]);
        await auth.run(drift, cassette.frames.length);
      }
      // a server that never answers DELETE must not hold verify: what it said is already heard
      const ended = AbortSignal.timeout(DELETE_WAIT_MS);
      if (session) await fetch(url, { method: 'DELETE', headers: headers('application/json, text/event-stream'), signal: ended }).catch(() => {});
      ending.abort();
      await Promise.all(pending);
    },
  };
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
