// Recording the authorization beside the MCP session: the MCP server's protected resource metadata
// (RFC 9728) and every endpoint of the authorization servers it names (metadata, registration,
// authorize, token) go through the recorder too, each exchange an authorization frame in the
// cassette's order. Each authorization server gets a proxy port of its own on 127.0.0.1, and the
// servers' URLs are rewritten both ways (the client sees only the proxies; the servers see what
// they expect, `resource` included), so the client's flow is the one it runs live. In the cassette,
// the servers are named by stand-ins and every value random by design (codes, tokens, client
// secrets, PKCE verifiers and challenges, state) by its role, before anything reaches disk.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AUTHORIZATION_SERVER, MCP_SERVER, isObject, roleOf, type AuthFrame, type AuthReply, type AuthRequest, type Json } from '../cassette/index.ts';
import { mapStrings } from './oauth.ts';
import { Roles } from './roles.ts';

/** The request headers an authorization frame keeps: the ones that decide the exchange. */
const KEPT_REQUEST = ['content-type', 'authorization', 'accept', 'mcp-protocol-version'];
/** The reply headers it keeps. */
const KEPT_REPLY = ['content-type', 'location', 'www-authenticate', 'cache-control'];
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'accept-encoding', 'te', 'upgrade', 'trailer']);

/** What the client sent, where (`origin` the proxy's, as the client saw it). */
interface Sent {
  server: AuthRequest['server'];
  method: string;
  url: URL;
  headers: IncomingHttpHeaders;
  body: string;
}

export class AuthRecording {
  /** Upstream origin -> the proxy's origin the client sees, and back. */
  private readonly proxyOf = new Map<string, string>();
  private readonly upstreamOf = new Map<string, string>();
  private readonly servers: Server[] = [];
  /** Which stand-in names each origin, upstream and proxy alike. */
  private readonly standIns = new Map<string, string>();
  readonly roles: Roles;
  /** Paths of the MCP server's origin that a 401's resource_metadata named: its metadata, wherever it is. */
  private readonly named = new Set<string>();

  constructor(
    private readonly mcp: { upstream: URL; proxy: () => string },
    private readonly tap: (frame: AuthFrame) => void,
    private readonly log: (line: string) => void,
    roles?: Roles,
  ) {
    this.roles = roles ?? new Roles();
  }

  /** A request to the MCP server's origin that is the authorization's, not MCP's: its well-known metadata,
   *  or the metadata at the URL a 401's resource_metadata named. */
  claims(path: string): boolean {
    return (
      this.named.has(path) ||
      path.startsWith('/.well-known/oauth-protected-resource') ||
      path.startsWith('/.well-known/oauth-authorization-server') ||
      path.startsWith('/.well-known/openid-configuration')
    );
  }

  /** The WWW-Authenticate of an MCP reply, as the client is to see it: its resource_metadata on the proxy. */
  towardClient(text: string): string {
    const named = /resource_metadata="([^"]*)"/.exec(text)?.[1];
    if (named !== undefined && URL.canParse(named) && new URL(named).origin === this.mcp.upstream.origin) this.named.add(new URL(named).pathname);
    return this.rewrite(text, 'in');
  }

  /** A kept Authorization header of an MCP request: its token by role when it is one the recording saw
   *  issued (any other credential stays redacted). */
  credential(value: string | string[] | undefined): string | undefined {
    if (typeof value !== 'string') return undefined;
    const kept = this.portable(value);
    return kept !== value && roleOf(/^\S+ (\S+)$/.exec(kept)?.[1] ?? '') !== undefined ? kept : undefined;
  }

  /** Forwards an authorization exchange: the request with the upstream's URLs, the reply with the proxy's. */
  async forward(server: AuthRequest['server'], req: IncomingMessage, res: ServerResponse, body: Buffer, upstreamOrigin: string): Promise<void> {
    const url = new URL(req.url ?? '/', this.proxyFor(upstreamOrigin) ?? this.mcp.proxy());
    const sent: Sent = { server, method: req.method ?? 'GET', url, headers: req.headers, body: body.toString('utf8') };
    this.learnFromRequest(sent);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = Array.isArray(value) ? value.join(', ') : value;
    let answer: Response;
    try {
      answer = await fetch(new URL(this.rewrite(url.pathname + url.search, 'out'), upstreamOrigin), {
        method: sent.method,
        headers,
        ...(sent.method !== 'GET' && sent.method !== 'HEAD' && { body: this.rewrite(sent.body, 'out') }),
        redirect: 'manual',
      });
    } catch (error) {
      this.log(`cannot reach ${upstreamOrigin} for ${sent.method} ${url.pathname}: ${(error as Error).message}`);
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`theinference record: cannot reach ${upstreamOrigin}\n`);
      return;
    }
    const text = await answer.text();
    const reply = { status: answer.status, headers: Object.fromEntries(answer.headers), text };
    await this.proxyServersOf(reply.text);
    const shown = this.rewrite(text, 'in');
    const out: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(reply.headers))
      if (!NOT_FORWARDED.has(name) && name !== 'content-encoding' && name !== 'set-cookie') out[name] = this.rewrite(value, 'in');
    // each cookie a header of its own (a sign-in's session); none is kept in the cassette
    const cookies = answer.headers.getSetCookie();
    if (cookies.length > 0) out['set-cookie'] = cookies;
    res.writeHead(answer.status, out).end(shown);
    this.learnFromReply(reply);
    this.tap(this.frame(sent, reply));
  }

  close(): void {
    for (const server of this.servers) server.close();
  }

  /** An authorization server the metadata names gets a proxy of its own, before the client reads its URL. */
  private async proxyServersOf(text: string): Promise<void> {
    let document: unknown;
    try {
      document = JSON.parse(text);
    } catch {
      return;
    }
    if (!isObject(document) || !Array.isArray(document.authorization_servers)) return;
    for (const named of document.authorization_servers) {
      if (typeof named !== 'string') continue;
      let origin: string;
      try {
        origin = new URL(named).origin;
      } catch {
        continue;
      }
      if (this.proxyOf.has(origin) || origin === this.mcp.upstream.origin) continue;
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => void this.forward('authorization', req, res, Buffer.concat(chunks), origin));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      const proxy = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      this.proxyOf.set(origin, proxy);
      this.upstreamOf.set(proxy, origin);
      const standIn = this.standIns.size === 0 ? AUTHORIZATION_SERVER : `<authorization-server-${this.proxyOf.size}>`;
      this.standIns.set(origin, standIn);
      this.standIns.set(proxy, standIn);
      this.log(`proxying the authorization server ${proxy} -> ${origin}`);
    }
  }

  private proxyFor(upstreamOrigin: string): string | undefined {
    return this.proxyOf.get(upstreamOrigin);
  }

  /** URLs toward the servers (`out`: the proxies' become the upstreams') or toward the client (`in`). */
  private rewrite(text: string, way: 'in' | 'out'): string {
    const pairs: [string, string][] = [
      [this.mcp.proxy(), this.mcp.upstream.origin],
      ...[...this.upstreamOf].map(([proxy, upstream]): [string, string] => [proxy, upstream]),
    ];
    let result = text;
    for (const [proxy, upstream] of pairs) {
      const [from, to] = way === 'out' ? [proxy, upstream] : [upstream, proxy];
      result = result.replaceAll(from, to).replaceAll(encodeURIComponent(from), encodeURIComponent(to));
    }
    return result;
  }

  /** Text as a cassette keeps it: servers by stand-ins, random values by role. */
  portable(text: string): string {
    let result = this.roles.portable(text);
    const origins: [string, string][] = [[this.mcp.proxy(), MCP_SERVER], [this.mcp.upstream.origin, MCP_SERVER], ...[...this.standIns]];
    for (const [origin, standIn] of origins) result = result.replaceAll(origin, standIn).replaceAll(encodeURIComponent(origin), encodeURIComponent(standIn));
    return result;
  }

  private learnFromRequest(sent: Sent): void {
    const fields = { ...Object.fromEntries(sent.url.searchParams), ...(formOf(sent) ?? {}) };
    for (const [name, value] of Object.entries(fields)) this.roles.learnField(name, value, true);
    this.roles.learnCredential(sent.headers.authorization);
  }

  private learnFromReply(reply: { headers: Record<string, string>; text: string }): void {
    const body = jsonOf(reply.text);
    if (isObject(body)) for (const [name, value] of Object.entries(body)) if (typeof value === 'string') this.roles.learnField(name, value);
    if (reply.headers.location !== undefined) this.roles.learnLocation(reply.headers.location);
  }

  private frame(sent: Sent, reply: { status: number; headers: Record<string, string>; text: string }): AuthFrame {
    const keep = (value: string) => this.portable(value);
    const query = Object.fromEntries([...sent.url.searchParams].map(([name, value]) => [name, keep(value)]));
    const requestHeaders = Object.fromEntries(
      KEPT_REQUEST.flatMap((name) => {
        const value = sent.headers[name];
        return typeof value === 'string' ? [[name, keep(value)]] : [];
      }),
    );
    const form = formOf(sent);
    const json = form === undefined && sent.body !== '' ? jsonOf(sent.body) : undefined;
    const request: AuthRequest = {
      server: sent.server,
      method: sent.method,
      path: keep(sent.url.pathname),
      ...(Object.keys(query).length > 0 && { query }),
      ...(Object.keys(requestHeaders).length > 0 && { headers: requestHeaders }),
      ...(form && { form: Object.fromEntries(Object.entries(form).map(([name, value]) => [name, keep(value)])) }),
      ...(json !== undefined && { json: mapStrings(json, keep) }),
    };
    const replyHeaders = Object.fromEntries(KEPT_REPLY.flatMap((name) => (reply.headers[name] !== undefined ? [[name, keep(reply.headers[name]!)]] : [])));
    const body = jsonOf(reply.text);
    const kept: AuthReply = {
      status: reply.status,
      ...(Object.keys(replyHeaders).length > 0 && { headers: replyHeaders }),
      ...(body !== undefined ? { json: mapStrings(body, keep) } : reply.text !== '' ? { text: keep(reply.text) } : {}),
    };
    return { from: 'auth', request, reply: kept };
  }
}

function formOf(sent: Sent): Record<string, string> | undefined {
  if (!/^application\/x-www-form-urlencoded\b/i.test(String(sent.headers['content-type'] ?? ''))) return undefined;
  return Object.fromEntries(new URLSearchParams(sent.body));
}

function jsonOf(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}
