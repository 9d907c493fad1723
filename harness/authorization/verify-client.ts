// verify's side of a recorded authorization: the flow run again against the live servers, as the
// recorded client ran it. Each authorization frame's request is sent with the client's own values
// made anew (state, a PKCE verifier and its S256 challenge) and the servers' taken from their live
// replies (client credentials, the code, the token); a reply whose status or JSON fields are not the
// recorded ones is drift. The access token it ends with goes on the MCP requests that had one.
import { randomBytes } from 'node:crypto';
import {
  AUTHORIZATION_SERVER,
  MCP_SERVER,
  PLACEHOLDERS,
  hasPlaceholder,
  isObject,
  roleOfField,
  type AuthFrame,
  type Cassette,
  type Drift,
  type Json,
} from '../cassette/index.ts';
import { mapStrings, s256 } from './oauth.ts';

/** The fields of a live reply that carry a value the servers made, each taken for the next requests. */
const SERVER_FIELDS = ['client_id', 'client_secret', 'access_token', 'refresh_token', 'id_token', 'code'];

export class AuthClient {
  /** The authorization frames, each with its place among the cassette's frames. */
  private readonly frames: { frame: AuthFrame; at: number }[];
  /** How many of them were asked for (run, or running). */
  private asked = 0;
  private readonly values = new Map<string, string>();
  private authorizationOrigin: string | undefined;
  /** The cookies the authorization server set (a sign-in's session), sent back as a browser would. */
  private readonly cookies = new Map<string, string>();

  constructor(
    cassette: Cassette,
    private readonly mcpOrigin: string,
  ) {
    this.frames = cassette.frames.flatMap((frame, at) => (frame.from === 'auth' ? [{ frame, at }] : []));
  }

  /** The client's own values, made anew for each authorization (`<state>`, then `<state-2>`, ...): a
   *  verifier, its challenge (S256), a state. */
  private clientValue(placeholder: string): string | undefined {
    const [, role, number] = /^<(code-verifier|code-challenge|state)(-\d+)?>$/.exec(placeholder) ?? [];
    if (role === undefined) return undefined;
    const suffix = number ?? '';
    if (!this.values.has(`<code-verifier${suffix}>`)) {
      const verifier = randomBytes(32).toString('base64url');
      this.values.set(`<code-verifier${suffix}>`, verifier);
      this.values.set(`<code-challenge${suffix}>`, s256(verifier));
      this.values.set(`<state${suffix}>`, randomBytes(16).toString('base64url'));
    }
    return this.values.get(placeholder);
  }

  get recorded(): boolean {
    return this.frames.length > 0;
  }

  /** A recorded Authorization header with the live token in its role, or undefined when it held none. */
  credential(recorded: string | undefined): string | undefined {
    return recorded === undefined || !hasPlaceholder(recorded) ? undefined : this.fill(recorded);
  }

  /** Whether exchanges recorded before the cassette's frame `at` are still to run. */
  before(at: number): boolean {
    return this.frames[this.asked] !== undefined && this.frames[this.asked]!.at < at;
  }

  /** Runs, in order, the recorded exchanges before the cassette's frame `at` not asked for yet (after
   *  the MCP requests before them were answered: a token that expired with one, a grant that ended);
   *  says what the live servers answered otherwise. A step that cannot go on ends the run. */
  async run(drift: Drift[], at: number): Promise<void> {
    const from = this.asked;
    while (this.before(at)) this.asked++;
    for (const { frame } of this.frames.slice(from, this.asked)) {
      const { request } = frame;
      const origin = request.server === 'resource' ? this.mcpOrigin : this.authorizationOrigin;
      const what = `${request.method} ${request.path} (line ${frame.line ?? '?'})`;
      if (origin === undefined) {
        drift.push({ frame: -1, message: `${what}: the live resource metadata named no authorization server` });
        this.asked = this.frames.length;
        return;
      }
      const url = new URL(this.fill(request.path), origin);
      for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, this.fill(value));
      const headers: Record<string, string> = Object.fromEntries(Object.entries(request.headers ?? {}).map(([name, value]) => [name, this.fill(value)]));
      // each authorization request in a browser of its own, as the recording's client had it (a step-up signs in again)
      if (request.query?.response_type !== undefined) this.cookies.clear();
      if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
      const body = request.form
        ? new URLSearchParams(Object.fromEntries(Object.entries(request.form).map(([name, value]) => [name, this.fill(value)]))).toString()
        : request.json !== undefined
          ? JSON.stringify(mapStrings(request.json, (text) => this.fill(text)))
          : undefined;
      let reply: Response;
      try {
        reply = await fetch(url, { method: request.method, headers, ...(body !== undefined && { body }), redirect: 'manual' });
      } catch (error) {
        drift.push({ frame: -1, message: `${what}: ${(error as Error).message}` });
        this.asked = this.frames.length;
        return;
      }
      const text = await reply.text();
      for (const set of reply.headers.getSetCookie()) {
        const pair = set.split(';')[0]!;
        this.cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
      }
      if (reply.status !== frame.reply.status)
        drift.push({ frame: -1, message: `the server answered ${what} with HTTP ${reply.status} (recorded: ${frame.reply.status})` });
      this.learn(frame, reply, text, drift, what);
    }
  }

  private learn(frame: AuthFrame, reply: Response, text: string, drift: Drift[], what: string): void {
    let json: Json | undefined;
    try {
      json = JSON.parse(text) as Json;
    } catch {
      json = undefined;
    }
    if (isObject(frame.reply.json)) {
      const missing = Object.keys(frame.reply.json).filter((key) => !isObject(json) || !(key in json));
      if (missing.length > 0) drift.push({ frame: -1, message: `the server's reply to ${what} lacks ${missing.join(', ')}, which the recording has` });
    }
    if (isObject(json)) {
      const servers = json.authorization_servers;
      if (Array.isArray(servers) && typeof servers[0] === 'string') this.authorizationOrigin ??= new URL(servers[0]).origin;
      for (const field of SERVER_FIELDS) if (typeof json[field] === 'string') this.take(frame.reply.json, field, roleOfField(field)!, json[field] as string);
    }
    const location = reply.headers.get('location');
    const recordedLocation = frame.reply.headers?.location;
    if (location && recordedLocation) {
      const live = new URL(location, 'http://127.0.0.1');
      const recorded = new URL(recordedLocation, 'http://127.0.0.1');
      for (const [name, value] of recorded.searchParams)
        if (value.startsWith('<') && live.searchParams.has(name)) this.values.set(value, live.searchParams.get(name)!);
      // a random path segment (a sign-in's interaction id), where the recording has its role
      const [recordedPath, livePath] = [recorded.pathname.split('/').map(decodeURIComponent), live.pathname.split('/')];
      if (recordedPath.length === livePath.length) recordedPath.forEach((segment, i) => segment.startsWith('<') && this.values.set(segment, livePath[i]!));
    }
  }

  /** A role's live value, under the placeholder its recorded field holds. */
  private take(recorded: Json | undefined, field: string, role: string, value: string): void {
    const placeholder =
      isObject(recorded) && typeof recorded[field] === 'string' && (recorded[field] as string).startsWith('<') ? (recorded[field] as string) : `<${role}>`;
    this.values.set(placeholder, value);
  }

  private fill(text: string): string {
    const origins = text.replaceAll(MCP_SERVER, this.mcpOrigin).replaceAll(AUTHORIZATION_SERVER, this.authorizationOrigin ?? AUTHORIZATION_SERVER);
    return origins.replace(PLACEHOLDERS, (placeholder) => this.values.get(placeholder) ?? this.clientValue(placeholder) ?? placeholder);
  }
}
