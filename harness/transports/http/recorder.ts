// The Streamable HTTP recorder: a reverse proxy on 127.0.0.1 between an MCP client and a server's
// URL. Each request is forwarded as it came (host rewritten, hop-by-hop headers dropped), each
// response streamed back as it arrives (an SSE event reaches the client when the server sends it),
// and both are tapped into one list of frames in the order they crossed the wire. The cassette is
// written (redacted, normalised, atomically) when the client ends the session with DELETE or the
// recorder gets SIGINT/SIGTERM. A session that is not clean (the server could not be reached, cut
// a response short, or left a request unanswered) leaves only `<out>.partial`.
import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
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
interface ProxiedRequest {
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
  const upstream = upstreamOf(options, recording);
  if (upstream === undefined) return Promise.resolve(2);
  return new Promise((resolve) => new HttpProxy(options, recording, upstream, resolve).listen());
}

/** The server's URL, when it is one the recorder can proxy to and the recording may start (else said). */
function upstreamOf(options: HttpRecordOptions, recording: Recording): URL | undefined {
  const { log } = recording;
  let upstream: URL;
  try {
    upstream = new URL(options.upstream);
  } catch {
    log(`--http ${options.upstream}: not a URL (e.g. http://127.0.0.1:3001/mcp)`);
    return undefined;
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    log(`--http ${publicUrl(upstream)}: only http: and https: URLs can be recorded`);
    return undefined;
  }
  const refused = recording.refusal();
  if (refused !== undefined) {
    log(refused);
    return undefined;
  }
  return upstream;
}

/** One recorded session: the proxy listening, each request forwarded and its response relayed, both
 *  tapped into frames, and the cassette written when the session ends. */
class HttpProxy {
  private readonly log: (line: string) => void;
  // A fresh connection for each request: a kept-alive socket the server has just timed out would fail
  // the next request as if the server were gone. Our own agent, destroyed at the end.
  private readonly agent: HttpAgent | HttpsAgent;
  private readonly send: typeof httpRequest;
  private readonly secrets = new Map<string, Secret>();
  private readonly session: HttpSession;
  private readonly inFlight = new Set<ProxiedRequest>();
  /** The request each event id went with, for a GET that resumes a stream (Last-Event-ID). */
  private readonly streamOfEvent = new Map<string, Json>();
  private readonly flaws: string[] = [];
  private started: number | undefined;
  private sawPath = false;
  private finished = false;
  private proxyOrigin = '';
  private readonly auth: AuthRecording;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly onSignal = () => this.finish();
  private offSignals = () => {};

  constructor(
    private readonly options: HttpRecordOptions,
    private readonly recording: Recording,
    private readonly upstream: URL,
    private readonly resolve: (code: number) => void,
  ) {
    this.log = recording.log;
    const secure = upstream.protocol === 'https:';
    this.agent = secure ? new HttpsAgent({ keepAlive: false }) : new HttpAgent({ keepAlive: false });
    this.send = (secure ? httpsRequest : httpRequest) as typeof httpRequest;
    for (const secret of [...secretsFromEnv(options.env ?? process.env), ...urlSecrets(upstream), ...secretsFromCommand(options.command ?? [])])
      this.secrets.set(secret.value, secret);
    this.session = { path: upstream.pathname };
    this.auth = new AuthRecording({ upstream, proxy: () => this.proxyOrigin }, (frame) => recording.frames.push(frame), this.log, options.roles);
    this.server = createServer((req, res) => {
      this.started ??= performance.now();
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('error', () => {}); // a client that goes away mid-request sent nothing to forward
      req.on('end', () => this.forward(req, res, Buffer.concat(chunks)));
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  private at(): number {
    return Math.round(performance.now() - (this.started ?? performance.now()));
  }

  private redactor(): Redactor {
    return new Redactor([...this.secrets.values(), ...this.auth.roles.secrets().map((value) => ({ name: 'authorization', value }))]);
  }

  /** Listens on 127.0.0.1; a port that cannot be listened on ends the session with nothing recorded. */
  listen(): void {
    const { server, options, upstream } = this;
    server.on('error', (error: NodeJS.ErrnoException) => {
      if (server.listening) return;
      const port = options.port ?? 0;
      const why =
        error.code === 'EADDRINUSE' ? 'is in use' : error.code === 'EACCES' ? 'is not allowed' : `cannot be listened on (${error.code ?? error.message})`;
      this.log(`port ${port} on 127.0.0.1 ${why}; nothing recorded`);
      this.agent.destroy();
      this.resolve(2);
    });
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      this.proxyOrigin = `http://127.0.0.1:${port}`;
      const url = `${this.proxyOrigin}${upstream.pathname}`;
      this.offSignals = this.recording.onStop(this.onSignal);
      if (options.stop?.aborted) return this.finish();
      options.stop?.addEventListener('abort', this.onSignal, { once: true });
      this.log(`proxying ${url} -> ${publicUrl(upstream)}`);
      options.onListening?.(url);
    });
  }

  /** A client's request, read whole: to the server (or the authorization's), its message tapped. */
  private forward(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    if (this.finished) return void res.writeHead(503).end();
    res.on('error', () => {}); // a client that disconnected must not crash the recorder
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (!this.sawPath) {
      this.session.path = url.pathname;
      this.sawPath = true;
    }
    for (const secret of headerSecrets(req.headers)) this.secrets.set(secret.value, secret);
    if (this.auth.claims(url.pathname)) return void this.auth.forward('resource', req, res, body, this.upstream.origin);
    const proxied: ProxiedRequest = { method, answered: false, clientGone: false };
    if (method === 'POST') this.tapClient(proxied, req, url.pathname, body);
    const resumes = method === 'GET' ? req.headers['last-event-id'] : undefined;
    if (typeof resumes === 'string' && this.streamOfEvent.has(resumes)) proxied.request = this.streamOfEvent.get(resumes);
    const outgoing = this.sendUpstream(req, url, body);
    proxied.upstream = outgoing;
    this.inFlight.add(proxied);
    res.on('close', () => {
      if (res.writableFinished || this.finished) return;
      // The client left before the response ended: the server sees it leave too, as without us.
      proxied.clientGone = true;
      // Leaving a stream is a client's right; it is worth a line when a request's answer was still to come.
      if (this.recording.awaits(proxied.request)) this.log(`the client disconnected from the ${this.describeRequest(proxied)} before it ended`);
      outgoing.destroy();
    });
    outgoing.on('response', (answer) => this.relay(proxied, answer, res));
    outgoing.on('error', (error: NodeJS.ErrnoException) => this.unreachable(proxied, res, error));
    outgoing.end(body);
  }

  /** The request as the server is sent it: its own host, no hop-by-hop header, the URL's credentials. */
  private sendUpstream(req: IncomingMessage, url: URL, body: Buffer): ReturnType<typeof httpRequest> {
    const { upstream } = this;
    const method = req.method ?? 'GET';
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
    return this.send({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method,
      path: url.pathname + search,
      headers,
      agent: this.agent,
    });
  }

  /** The server could not be reached for a request: the client is told, and the session ends unclean. */
  private unreachable(proxied: ProxiedRequest, res: ServerResponse, error: NodeJS.ErrnoException): void {
    if (this.finished || proxied.clientGone || proxied.answered) return; // after a response, its own close says what happened
    this.inFlight.delete(proxied);
    const why = error.code === 'ECONNREFUSED' ? 'connection refused' : (error.code ?? error.message);
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end(`theinference record: cannot reach ${publicUrl(this.upstream)}: ${why}\n`);
    // The message never reached the server: it is not part of the session.
    if (proxied.frame) this.recording.untap(proxied.frame);
    this.flaws.push(`cannot reach the server at ${publicUrl(this.upstream)} (${why}) for the ${this.describeRequest(proxied)}`);
    this.finish();
  }

  /** A POST's body: a client frame now, its reply filled in when the response comes. */
  private tapClient(proxied: ProxiedRequest, req: IncomingMessage, path: string, body: Buffer): void {
    let message: unknown;
    try {
      message = JSON.parse(body.toString('utf8'));
    } catch {
      message = undefined;
    }
    if (!isObject(message) || kindOf(message) === undefined) {
      const what = Array.isArray(message) ? 'a JSON-RPC batch' : 'something that is not a JSON-RPC message';
      this.flaws.push(`the client POSTed ${what}, which a cassette cannot hold`);
      this.log(`the client POSTed ${what}; not recorded: ${this.redactor().text(body.toString('utf8')).slice(0, 80)}`);
      return;
    }
    // its reply is written once the server answers (a .partial may end before)
    const headers = keptRequestHeaders(req.headers);
    const credential = this.auth.credential(req.headers.authorization);
    if (credential !== undefined) headers.authorization = credential;
    const frame: ClientFrame = { from: 'client', message, http: { path, headers } };
    this.recording.tapClient(frame);
    proxied.frame = frame;
    if (kindOf(message) === 'request') proxied.request = message.id as Json;
  }

  /** The response, to the client as it comes and into frames. */
  private relay(proxied: ProxiedRequest, answer: IncomingMessage, res: ServerResponse): void {
    proxied.answered = true;
    const status = answer.statusCode ?? 502;
    const headers = this.headersTowardClient(answer);
    if (!res.destroyed) {
      res.writeHead(status, answer.statusMessage, headers);
      res.flushHeaders(); // a stream that stays quiet still reaches the client as open
    }
    const sse = /^text\/event-stream\b/i.test(answer.headers['content-type'] ?? '');
    const reply = this.tapReply(proxied, answer, status, sse);
    const parser = sse ? new SseParser() : undefined;
    const body: Buffer[] = [];
    answer.on('data', (chunk: Buffer) => {
      if (!res.destroyed) res.write(chunk);
      if (this.finished) return;
      if (parser) for (const event of parser.push(chunk)) this.tapEvent(proxied, event);
      else body.push(chunk);
    });
    answer.on('error', () => {}); // said by its close below
    answer.on('close', () => {
      this.inFlight.delete(proxied);
      if (this.finished) return;
      if (!answer.complete) {
        if (!proxied.clientGone) this.flaws.push(`the server cut the ${this.describeRequest(proxied)} short`);
        res.destroy(); // the client sees the cut too
        return;
      }
      if (parser) {
        for (const event of parser.end()) this.tapEvent(proxied, event);
        // Ended before its response: the client is to resume it (GET with Last-Event-ID).
        if (proxied.request !== undefined && this.recording.awaits(proxied.request) && proxied.lastEvent?.http) proxied.lastEvent.http.closes = true;
      } else {
        this.tapBody(proxied, reply, Buffer.concat(body));
        // Answered at the HTTP level (a JSON body, or a refusal such as 406): nothing more will come.
        if (proxied.request !== undefined) this.recording.answered(proxied.request);
      }
      if (proxied.method === 'DELETE') res.end(() => this.finish());
      else res.end();
    });
  }

  /** The response's headers as the client gets them: no hop-by-hop one, the authorization's challenge
   *  pointing at the proxy. */
  private headersTowardClient(answer: IncomingMessage): string[] {
    const headers: string[] = [];
    const named = connectionHeaders(answer.headers.connection);
    for (let i = 0; i < answer.rawHeaders.length; i += 2) {
      const name = answer.rawHeaders[i]!.toLowerCase();
      const value = name === 'www-authenticate' ? this.auth.towardClient(answer.rawHeaders[i + 1]!) : answer.rawHeaders[i + 1]!;
      if (!RESPONSE_HOP_BY_HOP.has(name) && !named.has(name)) headers.push(answer.rawHeaders[i]!, value);
    }
    return headers;
  }

  /** The response's head as the cassette keeps it: on the POST's frame, or as the session's GET or DELETE. */
  private tapReply(proxied: ProxiedRequest, answer: IncomingMessage, status: number, sse: boolean): HttpReply {
    const reply: HttpReply = { status, body: sse ? 'sse' : 'none' };
    const kept = keptResponseHeaders(answer.headers);
    if (kept['www-authenticate'] !== undefined) kept['www-authenticate'] = this.auth.portable(kept['www-authenticate']);
    if (Object.keys(kept).length > 0) reply.headers = kept;
    if (proxied.frame) proxied.frame.http!.reply = reply;
    else if (proxied.method === 'GET' && proxied.request === undefined)
      this.session.get ??= reply; // not a resumption
    else if (proxied.method === 'DELETE') this.session.delete = reply;
    return reply;
  }

  private tapBody(proxied: ProxiedRequest, reply: HttpReply, bytes: Buffer): void {
    if (bytes.length === 0) return;
    const text = bytes.toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      message = undefined;
    }
    // Only a request's answer is a server frame: one to a notification would read as the GET stream's.
    if (proxied.request !== undefined && isObject(message) && kindOf(message) !== undefined) {
      reply.body = 'json';
      this.tapServer(message, { ...(proxied.request !== undefined && { request: proxied.request }), at: this.at() });
    } else {
      reply.body = 'text';
      reply.text = text;
    }
  }

  private tapEvent(proxied: ProxiedRequest, event: SseEvent): void {
    const { frames } = this.recording;
    const { data, ...fields } = event;
    const placement: HttpPlacement = { ...(proxied.request !== undefined && { request: proxied.request }), ...fields, at: this.at() };
    let message: unknown;
    try {
      message = data === undefined || data === '' ? undefined : JSON.parse(data);
    } catch {
      message = undefined;
    }
    if (fields.id !== undefined && proxied.request !== undefined) this.streamOfEvent.set(fields.id, proxied.request);
    if (isObject(message) && kindOf(message) !== undefined) this.tapServer(message, placement);
    else frames.push({ from: 'sse', ...(data !== undefined && { data }), http: placement });
    proxied.lastEvent = frames.at(-1) as { http?: HttpPlacement };
  }

  private tapServer(message: JsonObject, placement: HttpPlacement): void {
    this.recording.tapServer({ from: 'server', message, http: placement });
  }

  private describeRequest(proxied: ProxiedRequest): string {
    return proxied.frame ? `response to ${describeMessage(proxied.frame.message)}` : `${proxied.method} ${this.session.path} stream`;
  }

  /** The session is over (DELETE, a signal, the server unreachable): everything closed, the cassette written. */
  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.offSignals();
    this.options.stop?.removeEventListener('abort', this.onSignal);
    for (const proxied of this.inFlight) proxied.upstream?.destroy();
    this.server.close();
    for (const socket of this.sockets) socket.destroy();
    this.agent.destroy();
    this.auth.close();
    const flaws = this.flawsAtEnd();
    const written = writeCassette(this.recording, this.session, this.upstream, this.options, this.redactor(), flaws.length > 0 ? flaws.join('; ') : undefined);
    this.resolve(written === 'cassette' ? 0 : written === 'partial' ? 1 : 2);
  }

  /** What makes the session not clean: what went wrong on the way, and what was left unanswered. */
  private flawsAtEnd(): string[] {
    const { flaws } = this;
    for (const proxied of this.inFlight) {
      // a request among them is said with the unanswered ones below
      if (proxied.frame && !proxied.answered && proxied.request === undefined)
        flaws.push(`the session ended before the server answered the POST of ${describeMessage(proxied.frame.message)}`);
    }
    const unanswered = this.recording.unanswered();
    if (unanswered.length > 0) flaws.push(`the session ended leaving ${unanswered.join(', ')} unanswered`);
    const cutShort = this.options.cutShort?.();
    if (cutShort !== undefined) flaws.push(cutShort);
    return flaws;
  }
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
