// The Streamable HTTP recorder: a reverse proxy on 127.0.0.1 between an MCP client and a server's
// URL. Each request is forwarded as it came (host rewritten, hop-by-hop headers dropped), each
// response streamed back as it arrives (an SSE event reaches the client when the server sends it),
// and both are tapped into one list of frames in the order they crossed the wire. The cassette is
// written (redacted, normalised, atomically) when the client ends the session with DELETE or the
// recorder gets SIGINT/SIGTERM. A session that is not clean (the server could not be reached, cut
// a response short, or left a request unanswered) leaves only `<out>.partial`.
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { headerSecrets, keptRequestHeaders, keptResponseHeaders, publicUrl, urlSecrets } from './headers.ts';
import {
  CASSETTE_VERSION,
  DEFAULT_FREE,
  Recording,
  Redactor,
  carryOverHttp,
  describeMessage,
  isObject,
  kindOf,
  secretsFromCommand,
  secretsFromEnv,
  type ClientFrame,
  type Frame,
  type HttpPlacement,
  type HttpReply,
  type HttpSession,
  type Json,
  type JsonObject,
  type Provenance,
  type Secret,
  type Written,
} from '../../cassette/index.ts';
import { SseParser, type SseEvent } from './sse.ts';
import { AuthRecording, type Roles } from '../../authorization/index.ts';

export interface HttpRecordOptions {
  out: string;
  /** The server's URL, e.g. http://127.0.0.1:3001/mcp. */
  upstream: string;
  /** The port to listen on, on 127.0.0.1; 0 (the default) takes a free one. */
  port?: number;
  force?: boolean;
  /** Paths free in every client message (default: params.clientInfo). */
  free?: string[];
  /** How record started the server, when it did: kept in the provenance as typed, with its package. */
  command?: string[];
  /** Written over what the recorder knows of the provenance: how the server was started, a URL
   *  without the random port it happened to listen on, the package. */
  provenance?: Partial<Provenance>;
  /** Where credential-looking variables are found (redacted wherever they appear). */
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  log?: (line: string) => void;
  /** Called once listening, with the URL a client should use. */
  onListening?: (url: string) => void;
  /** Ends the session when aborted, as SIGINT does (a scripted client that stopped before its DELETE). */
  stop?: AbortSignal;
  /** The authorization's random values, as learned (shared with whoever relays the server's output). */
  roles?: Roles;
  /** Why the session was cut short outside the recorder (a scripted client that stopped), asked at
   *  its end: such a session is not clean (`.partial`, exit 1). */
  cutShort?: () => string | undefined;
}

/** Connection-level headers (RFC 9110 7.6.1) are the proxy's own on each side, never forwarded.
 *  accept-encoding goes too: the server then answers uncompressed, so that the body can be recorded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
]);
const RESPONSE_HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** One request in flight: what the client asked and what has come back. */
interface Exchange {
  method: string;
  /** The frame of the message it carried (POST), whose reply is filled in when it comes. */
  frame?: ClientFrame;
  /** The recorded id of the request message it carried: the `request` of the events on its stream
   *  (for a GET that resumes a stream, the request of the stream it resumes). */
  request?: Json;
  /** The last frame tapped from its event stream: marked `closes` when the stream ends before its response. */
  lastEvent?: { http?: HttpPlacement };
  upstream?: ReturnType<typeof httpRequest>;
  /** The response's head has come. */
  answered: boolean;
  /** The client went away before the response ended: the server's side was cut on purpose. */
  clientGone: boolean;
}

/**
 * Resolves to the exit code: 0 written; 1 not a clean session (`.partial` written); 2 bad input,
 * the port in use, or a file that cannot be written (nothing written).
 */
export function recordHttpSession(options: HttpRecordOptions): Promise<number> {
  const recording = new Recording(options);
  const { log } = recording;
  let upstream: URL;
  try {
    upstream = new URL(options.upstream);
  } catch {
    log(`--http ${options.upstream}: not a URL (e.g. http://127.0.0.1:3001/mcp)`);
    return Promise.resolve(2);
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    log(`--http ${publicUrl(upstream)}: only http: and https: URLs can be recorded`);
    return Promise.resolve(2);
  }
  const refused = recording.refusal();
  if (refused !== undefined) {
    log(refused);
    return Promise.resolve(2);
  }
  const secure = upstream.protocol === 'https:';
  // A fresh connection for each request: a kept-alive socket the server has just timed out would fail
  // the next request as if the server were gone. Our own agent, destroyed at the end.
  const agent = secure ? new HttpsAgent({ keepAlive: false }) : new HttpAgent({ keepAlive: false });
  const send = secure ? httpsRequest : httpRequest;
  const secrets = new Map<string, Secret>();
  for (const secret of [...secretsFromEnv(options.env ?? process.env), ...urlSecrets(upstream), ...secretsFromCommand(options.command ?? [])])
    secrets.set(secret.value, secret);

  return new Promise((resolvePromise) => {
    const { frames } = recording;
    const session: HttpSession = { path: upstream.pathname };
    const inFlight = new Set<Exchange>();
    /** The request each event id went with, for a GET that resumes a stream (Last-Event-ID). */
    const streamOfEvent = new Map<string, Json>();
    const flaws: string[] = [];
    let started: number | undefined;
    let sawPath = false;
    let finished = false;
    const at = () => Math.round(performance.now() - (started ?? performance.now()));
    let proxyOrigin = '';
    const auth = new AuthRecording({ upstream, proxy: () => proxyOrigin }, (frame) => frames.push(frame), log, options.roles);
    const redactor = () => new Redactor([...secrets.values(), ...auth.roles.secrets().map((value) => ({ name: 'authorization', value }))]);

    const server = createServer((req, res) => {
      started ??= performance.now();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('error', () => {}); // a client that goes away mid-request sent nothing to forward
      req.on('end', () => forward(req, res, Buffer.concat(chunks)));
    });
    const sockets = new Set<Socket>();
    server.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });

    const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
      if (finished) return void res.writeHead(503).end();
      res.on('error', () => {}); // a client that disconnected must not crash the recorder
      const method = req.method ?? 'GET';
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (!sawPath) {
        session.path = url.pathname;
        sawPath = true;
      }
      for (const secret of headerSecrets(req.headers)) secrets.set(secret.value, secret);
      if (auth.claims(url.pathname)) return void auth.forward('resource', req, res, body, upstream.origin);
      const exchange: Exchange = { method, answered: false, clientGone: false };
      if (method === 'POST') tapClient(exchange, req, url.pathname, body);
      const resumes = method === 'GET' ? req.headers['last-event-id'] : undefined;
      if (typeof resumes === 'string' && streamOfEvent.has(resumes)) exchange.request = streamOfEvent.get(resumes);

      // The upstream's query (an API key, say) goes with its own path, where the client sent none.
      const search = url.search === '' && url.pathname === upstream.pathname ? upstream.search : url.search;
      const headers: Record<string, string | string[]> = {};
      const named = connectionHeaders(req.headers.connection);
      for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name)) headers[name] = value;
      headers.host = upstream.host;
      if (body.length > 0 || method === 'POST') headers['content-length'] = String(body.length);
      if (upstream.username !== '' && headers.authorization === undefined) {
        headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(upstream.username)}:${decodeURIComponent(upstream.password)}`).toString('base64')}`;
      }
      const outgoing = send({
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method,
        path: url.pathname + search,
        headers,
        agent,
      });
      exchange.upstream = outgoing;
      inFlight.add(exchange);
      res.on('close', () => {
        if (res.writableFinished || finished) return;
        // The client left before the response ended: the server sees it leave too, as without us.
        exchange.clientGone = true;
        // Leaving a stream is a client's right; it is worth a line when a request's answer was still to come.
        if (recording.awaits(exchange.request)) log(`the client disconnected from the ${describeExchange(exchange)} before it ended`);
        outgoing.destroy();
      });
      outgoing.on('response', (answer) => relay(exchange, answer, res));
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        if (finished || exchange.clientGone || exchange.answered) return; // after a response, its own close says what happened
        inFlight.delete(exchange);
        const why = error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? error.message);
        if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`theinference record: cannot reach ${publicUrl(upstream)}: ${why}\n`);
        // The message never reached the server: it is not part of the session.
        if (exchange.frame) recording.untap(exchange.frame);
        flaws.push(`cannot reach the server at ${publicUrl(upstream)} (${why}) for the ${describeExchange(exchange)}`);
        finish();
      });
      outgoing.end(body);
    };

    /** A POST's body: a client frame now, its reply filled in when the response comes. */
    const tapClient = (exchange: Exchange, req: IncomingMessage, path: string, body: Buffer) => {
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch {
        message = undefined;
      }
      if (!isObject(message) || kindOf(message) === undefined) {
        const what = Array.isArray(message) ? 'a JSON-RPC batch' : 'something that is not a JSON-RPC message';
        flaws.push(`the client POSTed ${what}, which a cassette cannot hold`);
        log(`the client POSTed ${what}; not recorded: ${redactor().text(body.toString('utf8')).slice(0, 80)}`);
        return;
      }
      // its reply is written once the server answers (a .partial may end before)
      const headers = keptRequestHeaders(req.headers);
      const credential = auth.credential(req.headers.authorization);
      if (credential !== undefined) headers.authorization = credential;
      const frame: ClientFrame = { from: 'client', message, http: { path, headers } };
      recording.tapClient(frame);
      exchange.frame = frame;
      if (kindOf(message) === 'request') exchange.request = message.id as Json;
    };

    /** The response, to the client as it comes and into frames. */
    const relay = (exchange: Exchange, answer: IncomingMessage, res: ServerResponse) => {
      exchange.answered = true;
      const status = answer.statusCode ?? 502;
      const headers: string[] = [];
      const named = connectionHeaders(answer.headers.connection);
      for (let i = 0; i < answer.rawHeaders.length; i += 2) {
        const name = answer.rawHeaders[i]!.toLowerCase();
        const value = name === 'www-authenticate' ? auth.towardClient(answer.rawHeaders[i + 1]!) : answer.rawHeaders[i + 1]!;
        if (!RESPONSE_HOP_BY_HOP.has(name) && !named.has(name)) headers.push(answer.rawHeaders[i]!, value);
      }
      if (!res.destroyed) {
        res.writeHead(status, answer.statusMessage, headers);
        res.flushHeaders(); // a stream that stays quiet still reaches the client as open
      }
      const sse = /^text\/event-stream\b/i.test(answer.headers['content-type'] ?? '');
      const reply: HttpReply = { status, body: sse ? 'sse' : 'none' };
      const kept = keptResponseHeaders(answer.headers);
      if (kept['www-authenticate'] !== undefined) kept['www-authenticate'] = auth.portable(kept['www-authenticate']);
      if (Object.keys(kept).length > 0) reply.headers = kept;
      if (exchange.frame) exchange.frame.http!.reply = reply;
      else if (exchange.method === 'GET' && exchange.request === undefined)
        session.get ??= reply; // not a resumption
      else if (exchange.method === 'DELETE') session.delete = reply;
      const parser = sse ? new SseParser() : undefined;
      const body: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => {
        if (!res.destroyed) res.write(chunk);
        if (finished) return;
        if (parser) for (const event of parser.push(chunk)) tapEvent(exchange, event);
        else body.push(chunk);
      });
      answer.on('error', () => {}); // said by its close below
      answer.on('close', () => {
        inFlight.delete(exchange);
        if (finished) return;
        if (!answer.complete) {
          if (!exchange.clientGone) flaws.push(`the server cut the ${describeExchange(exchange)} short`);
          res.destroy(); // the client sees the cut too
          return;
        }
        if (parser) {
          for (const event of parser.end()) tapEvent(exchange, event);
          // Ended before its response: the client is to resume it (GET with Last-Event-ID).
          if (exchange.request !== undefined && recording.awaits(exchange.request) && exchange.lastEvent?.http) exchange.lastEvent.http.closes = true;
        } else {
          tapBody(exchange, reply, Buffer.concat(body));
          // Answered at the HTTP level (a JSON body, or a refusal such as 406): nothing more will come.
          if (exchange.request !== undefined) recording.answered(exchange.request);
        }
        if (exchange.method === 'DELETE') res.end(() => finish());
        else res.end();
      });
    };

    const tapBody = (exchange: Exchange, reply: HttpReply, bytes: Buffer) => {
      if (bytes.length === 0) return;
      const text = bytes.toString('utf8');
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        message = undefined;
      }
      // Only a request's answer is a server frame: one to a notification would read as the GET stream's.
      if (exchange.request !== undefined && isObject(message) && kindOf(message) !== undefined) {
        reply.body = 'json';
        tapServer(message, { ...(exchange.request !== undefined && { request: exchange.request }), at: at() });
      } else {
        reply.body = 'text';
        reply.text = text;
      }
    };

    const tapEvent = (exchange: Exchange, event: SseEvent) => {
      const { data, ...fields } = event;
      const placement: HttpPlacement = { ...(exchange.request !== undefined && { request: exchange.request }), ...fields, at: at() };
      let message: unknown;
      try {
        message = data === undefined || data === '' ? undefined : JSON.parse(data);
      } catch {
        message = undefined;
      }
      if (fields.id !== undefined && exchange.request !== undefined) streamOfEvent.set(fields.id, exchange.request);
      if (isObject(message) && kindOf(message) !== undefined) tapServer(message, placement);
      else frames.push({ from: 'sse', ...(data !== undefined && { data }), http: placement });
      exchange.lastEvent = frames.at(-1) as { http?: HttpPlacement };
    };

    const tapServer = (message: JsonObject, placement: HttpPlacement) => {
      recording.tapServer({ from: 'server', message, http: placement });
    };

    const describeExchange = (exchange: Exchange) =>
      exchange.frame ? `response to ${describeMessage(exchange.frame.message)}` : `${exchange.method} ${session.path} stream`;

    const onSignal = () => finish();
    let offSignals = () => {};

    const finish = () => {
      if (finished) return;
      finished = true;
      offSignals();
      options.stop?.removeEventListener('abort', onSignal);
      for (const exchange of inFlight) exchange.upstream?.destroy();
      server.close();
      for (const socket of sockets) socket.destroy();
      agent.destroy();
      auth.close();

      for (const exchange of inFlight) {
        // a request among them is said with the unanswered ones below
        if (exchange.frame && !exchange.answered && exchange.request === undefined)
          flaws.push(`the session ended before the server answered the POST of ${describeMessage(exchange.frame.message)}`);
      }
      const unanswered = recording.unanswered();
      if (unanswered.length > 0) flaws.push(`the session ended leaving ${unanswered.join(', ')} unanswered`);
      const cutShort = options.cutShort?.();
      if (cutShort !== undefined) flaws.push(cutShort);
      const written = writeCassette(recording, session, upstream, options, redactor(), flaws.length > 0 ? flaws.join('; ') : undefined);
      resolvePromise(written === 'cassette' ? 0 : written === 'partial' ? 1 : 2);
    };

    server.on('error', (error: NodeJS.ErrnoException) => {
      if (server.listening) return;
      const port = options.port ?? 0;
      const why =
        error.code === 'EADDRINUSE' ? 'is in use' : error.code === 'EACCES' ? 'is not allowed' : `cannot be listened on (${error.code ?? error.message})`;
      log(`port ${port} on 127.0.0.1 ${why}; nothing recorded`);
      agent.destroy();
      resolvePromise(2);
    });
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      proxyOrigin = `http://127.0.0.1:${port}`;
      const url = `${proxyOrigin}${upstream.pathname}`;
      offSignals = recording.onStop(onSignal);
      if (options.stop?.aborted) return finish();
      options.stop?.addEventListener('abort', onSignal, { once: true });
      log(`proxying ${url} -> ${publicUrl(upstream)}`);
      options.onListening?.(url);
    });
  });
}

/** The cassette, redacted, its session's replies and its provenance with it, written (or its `.partial`). */
function writeCassette(
  recording: Recording,
  session: HttpSession,
  upstream: URL,
  options: HttpRecordOptions,
  redactor: Redactor,
  flaws: string | undefined,
): Written {
  const redacted = recording.frames.map((frame): Frame => {
    if (frame.from === 'client')
      return {
        ...frame,
        message: redactor.json(frame.message),
        http: { ...frame.http!, ...(frame.http!.reply && { reply: redactReply(frame.http!.reply, redactor) }) },
      };
    if (frame.from === 'server') return { ...frame, message: redactor.json(frame.message), http: redactPlacement(frame.http!, redactor) };
    if (frame.from === 'sse')
      return { ...frame, ...(frame.data !== undefined && { data: redactor.text(frame.data) }), http: redactPlacement(frame.http, redactor) };
    return frame;
  });
  const http: HttpSession = { path: session.path };
  if (session.get) http.get = redactReply(session.get, redactor);
  if (session.delete) http.delete = redactReply(session.delete, redactor);
  const provenance: Provenance = {
    ...recording.startedBy(options.command, redactor),
    url: publicUrl(upstream),
    recorded: new Date().toISOString().slice(0, 10),
    recorder: 'theinference record',
    ...options.provenance,
  };
  return recording.write(
    redacted,
    (normalised, previous) => {
      if (previous) carryOverHttp(previous, normalised, http);
      return { version: CASSETTE_VERSION, transport: 'http', provenance, http, free: options.free ?? DEFAULT_FREE, frames: normalised };
    },
    flaws,
  ).written;
}

/** The headers a Connection header names are hop-by-hop too. */
function connectionHeaders(connection: string | undefined): Set<string> {
  return new Set((connection ?? '').split(',').map((name) => name.trim().toLowerCase()));
}

function redactReply(reply: HttpReply, redactor: Redactor): HttpReply {
  return reply.text === undefined ? reply : { ...reply, text: redactor.text(reply.text) };
}

function redactPlacement(placement: HttpPlacement, redactor: Redactor): HttpPlacement {
  return placement.comments === undefined ? placement : { ...placement, comments: placement.comments.map((line) => redactor.text(line)) };
}
