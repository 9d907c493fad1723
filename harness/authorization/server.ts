// The authorization, served beside the MCP session: the MCP server's protected resource metadata, and
// the authorization server at AUTHORIZATION_PATH of the same origin (an issuer with a path, its
// metadata where RFC 8414 puts it: a program graded without network reaches one port, relayed), each
// answered from the cassette's authorization frames. Values random by design are minted anew (codes,
// tokens, client credentials) or taken from the live client (state, the PKCE challenge and verifier);
// what the client's requests are held to is requests.ts's. The bearer token goes on every
// request of the MCP endpoint. A miss is refused as an authorization server refuses it (an OAuth
// error), with the rule named.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AUTHORIZATION_SERVER,
  MCP_SERVER,
  PLACEHOLDERS,
  UNPRINTABLE_ROLES,
  isObject,
  roleOf,
  type AuthFrame,
  type Cassette,
  type Diagnosis,
  type DiagnosisKind,
  type Json,
  type Player,
  type RoleSecret,
} from '../cassette/index.ts';
import { BODY_TOO_LARGE, readBody } from '../request-body.ts';
import { isMetadataDocumentUrl, isRegistration, mapStrings } from './oauth.ts';
import { type RecordedAuthorization, recordedAuthorization } from './recorded.ts';
import { type Asked, AuthRequests, type Mistake, type OAuthRefusal, type ScopesDue, words } from './requests.ts';

/** The roles whose values the client makes; every other role's the server mints. */
const CLIENT_ROLES = new Set(['state', 'code-challenge', 'code-verifier', 'nonce']);
/** A recorded Authorization that carried an access token the authorization server issued. */
const ACCESS_TOKEN = /<access-token(?:-\d+)?>/;

/** A request to the MCP server refused (401) for its credentials: the mistake, and the challenge
 *  (WWW-Authenticate) the refusal carries, where there is one. */
export interface CredentialsRefusal {
  kind: DiagnosisKind;
  message: string;
  challenge?: string;
}

/** The two servers a request of the authorization goes to, as a mistake names them. */
const SERVER_NAMES: Record<AuthFrame['request']['server'], string> = { resource: 'the MCP server', authorization: 'the authorization server' };
/** Where the recorded authorization server is served, on the MCP server's origin. */
export const AUTHORIZATION_PATH = '/authorization-server';
/** A Host header that names an origin, and nothing more. */
const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** One endpoint of the authorization server a recorded request went to: which recorded request it
 *  answers, what the client's request there is held to (requests.ts), and the client's own values
 *  (their fields) that a request it lets through brings. Metadata has no row: it is served as recorded. */
interface OAuthEndpoint {
  answers(frame: AuthFrame, recorded: Record<string, string>): boolean;
  check(server: AuthorizationServer, frame: AuthFrame, asked: Asked): OAuthRefusal | undefined;
  takes?: string[];
}

/** The endpoints, as RFC 7591 (registration) and OAuth 2.1 (authorize, token, refresh) name them. */
const ENDPOINTS: readonly OAuthEndpoint[] = [
  { answers: (frame) => isRegistration(frame.request.json), check: (server, frame, asked) => server.requests.registration(frame, asked) },
  {
    answers: (_, recorded) => recorded.response_type !== undefined,
    check: (server, frame, asked) => server.requests.authorization(frame, asked, server.scopesDue(frame)),
    takes: ['state', 'code_challenge'],
  },
  {
    answers: (_, recorded) => recorded.grant_type === 'authorization_code',
    // a refresh where a code was traded: the recording has no refresh token for it
    check: (server, frame, asked) => (asked.fields.grant_type === 'refresh_token' ? server.refreshUnrecorded() : server.requests.token(frame, asked)),
    takes: ['code_verifier'],
  },
  { answers: (_, recorded) => recorded.grant_type === 'refresh_token', check: (server, frame, asked) => server.requests.refresh(frame, asked) },
];

export class AuthorizationServer {
  private readonly frames: AuthFrame[];
  private readonly playedFrames = new Set<AuthFrame>();
  private readonly values = new Map<string, string>();
  /** What the client's requests to the authorization server are held to. */
  readonly requests: AuthRequests;
  /** Refresh tokens the recorded authorization server refused (invalid_grant): refused for good. */
  private readonly refusedRefreshes = new Set<string>();
  /** Codes the client must discard, and why: their redirect came back with a state not the client's,
   *  or an iss not the issuer's (a case that forges one). */
  private readonly discarded = new Map<string, Mistake>();
  /** What the recording says of its authorization, that the client is held to. */
  private readonly recorded: RecordedAuthorization;
  private redirectUri: { recorded: string; live: string } | undefined;
  /** The access tokens the player issued, in order: the last is the one in use. */
  private readonly accessTokens: string[] = [];
  /** The challenge (WWW-Authenticate) the client had last, before each recorded authorization request. */
  private readonly challenges: Map<AuthFrame, { status: number; header: string }>;
  /** The MCP server's origin as the client reaches it (a relay's port, say): its requests' Host. */
  private origin = '';

  constructor(
    cassette: Cassette,
    private readonly player: Player,
  ) {
    this.frames = cassette.frames.filter((frame): frame is AuthFrame => frame.from === 'auth');
    this.recorded = recordedAuthorization(cassette);
    this.requests = new AuthRequests(
      this.recorded,
      (text) => this.fill(text),
      (kind, message) => this.player.transportMistake(kind, message),
      (value) => roleOf([...this.values].find(([, one]) => one === value)?.[0] ?? ''),
    );
    this.challenges = challengesBefore(cassette);
  }

  /** Every exchange a client that follows the recording makes has been played: all but a discovery
   *  the recording tried and was refused (a well-known URL answered 404), which a client may skip.
   *  A recording that ends where the client must stop (a refusal case) is played once it got there. */
  played(): boolean {
    return this.frames.every((frame) => this.playedFrames.has(frame) || (frame.request.path.startsWith('/.well-known/') && frame.reply.status >= 400));
  }

  /** The 401's WWW-Authenticate, at the live origins. */
  challengeHeader(): string {
    return this.fill(this.recorded.challenge);
  }

  static of(cassette: Cassette, player: Player): AuthorizationServer | undefined {
    return cassette.frames.some((frame) => frame.from === 'auth') ? new AuthorizationServer(cassette, player) : undefined;
  }

  /** Takes a request that is the authorization's (a path its frames answered, a well-known path, one
   *  under AUTHORIZATION_PATH) and answers it; says whether it did. Every request says the origin the
   *  client reaches the server at. */
  took(request: IncomingMessage, response: ServerResponse, url: URL): boolean {
    const host = request.headers.host ?? '';
    if (HOST.test(host)) this.origin = `http://${host}`;
    const frame = this.frames.find((one) => this.livePath(one) === url.pathname);
    const path = url.pathname;
    const authorizationServer = path.startsWith(`${AUTHORIZATION_PATH}/`) || (path.startsWith('/.well-known/') && path.includes(AUTHORIZATION_PATH));
    if (!frame && !authorizationServer && !path.startsWith('/.well-known/')) return false;
    this.handle(frame?.request.server ?? (authorizationServer ? 'authorization' : 'resource'), request, response);
    return true;
  }

  /** The one check of the credentials of a request to the MCP server: an access token in its URL is
   *  refused wherever it goes; a POST's Authorization is held to the token the recorded one carried
   *  (`recorded`), a GET's or DELETE's to the token in use, for authorization goes on every HTTP
   *  request; `what` names the request in the mistake. None when the request may go on. */
  credentials(method: string, url: URL, live: string | undefined, what: string, recorded?: string): CredentialsRefusal | undefined {
    if (this.tokenInQuery(url))
      return {
        kind: 'oauth-token-in-query',
        message: `your client sent ${method} ${url.pathname} with the access token in its URL: it goes in the Authorization header, never the query`,
      };
    const current = this.accessTokens.at(-1);
    const problem =
      method === 'POST'
        ? recorded !== undefined && ACCESS_TOKEN.test(recorded)
          ? this.tokenProblem(/^\S+\s+(\S+)/.exec(this.fill(recorded))?.[1] ?? '', live)
          : undefined
        : current === undefined
          ? undefined
          : this.tokenProblem(current, live);
    return problem === undefined ? undefined : { kind: 'http-auth', message: `your client sent ${what} ${problem}`, challenge: this.challengeHeader() };
  }

  /** Recorded text with the servers at their live origins and each role's value: minted, or the client's. */
  fill(text: string): string {
    const origins = text.replaceAll(MCP_SERVER, this.origin).replaceAll(AUTHORIZATION_SERVER, `${this.origin}${AUTHORIZATION_PATH}`);
    return origins.replace(PLACEHOLDERS, (placeholder, role: string) => {
      if (CLIENT_ROLES.has(role)) return this.values.get(placeholder) ?? placeholder;
      let value = this.values.get(placeholder);
      if (value === undefined) {
        value = randomBytes(24).toString('base64url');
        this.values.set(placeholder, value);
      }
      return value;
    });
  }

  /** The path a frame's request comes to live: the authorization server's under AUTHORIZATION_PATH,
   *  a well-known one with the issuer's path after the well-known name (RFC 8414 3.1). */
  private livePath(frame: AuthFrame): string {
    const path = this.fill(frame.request.path);
    if (frame.request.server === 'resource') return path;
    const wellKnown = /^\/\.well-known\/[^/]+/.exec(path)?.[0];
    return wellKnown ? `${wellKnown}${AUTHORIZATION_PATH}${path.slice(wellKnown.length)}` : `${AUTHORIZATION_PATH}${path}`;
  }

  /** This session's tokens, codes and secrets (minted here, or the client's verifier), each with its role. */
  secrets(): RoleSecret[] {
    return [...this.values].flatMap(([placeholder, value]) => {
      const role = roleOf(placeholder);
      return role !== undefined && UNPRINTABLE_ROLES.has(role) && value.length >= 8 ? [{ value, role }] : [];
    });
  }

  /** What of this session's tokens, codes and secrets (minted here, or the client's verifier) `printed`
   *  holds: one diagnosis for each kind of value, naming it, never the value. */
  leaks(printed: string): Diagnosis[] {
    const roles = new Set(this.secrets().flatMap(({ value, role }) => (printed.includes(value) ? [role] : [])));
    return [...roles].map((role) => ({
      kind: 'oauth-secret-printed' as const,
      message: `your program printed the ${role.replaceAll('-', ' ')} of its authorization: a token, a code or a secret stays in the client's memory, never on stdout or stderr`,
    }));
  }

  private tokenProblem(expected: string, live: string | undefined): string | undefined {
    if (live === undefined) return 'without the Authorization header: the access token goes in "Authorization: Bearer <token>" on every request';
    const [, scheme = '', token = ''] = /^(\S+)[ \t]+(\S+)[ \t]*$/.exec(live) ?? [undefined, live.trim()];
    if (scheme.toLowerCase() !== 'bearer') return `with Authorization: ${JSON.stringify(scheme.slice(0, 20))} …, not the bearer token ("Bearer <token>")`;
    if (token === expected) return undefined;
    const role = roleOf([...this.values].find(([, value]) => value === token)?.[0] ?? '');
    if (role === 'access-token') return 'with an access token the authorization server has since replaced: send the access token of the last token response';
    if (role !== undefined) return `with the ${role.replaceAll('-', ' ')} as its bearer token: send the access token of the last token response`;
    return `with a bearer token of ${token.length} characters that the authorization server never issued: send the access_token of the token response as it came`;
  }

  /** Whether the URL carries an access token the player issued, as a query parameter. */
  private tokenInQuery(url: URL): boolean {
    const issued = [...this.values].filter(([placeholder]) => placeholder.startsWith('<access-token')).map(([, value]) => value);
    return url.searchParams.has('access_token') || [...url.searchParams.values()].some((value) => issued.includes(value));
  }

  handle(server: AuthFrame['request']['server'], request: IncomingMessage, response: ServerResponse): void {
    readBody(request, (body) => {
      if (body !== undefined) return this.answer(server, request, response, body);
      const said = `your client sent ${request.method} ${new URL(request.url ?? '/', 'http://127.0.0.1').pathname} to ${SERVER_NAMES[server]} ${BODY_TOO_LARGE}`;
      this.refuse({ text: `${request.method} ${request.url}` }, response, 413, 'invalid_request', 'body-too-large', said);
    });
  }

  private answer(server: AuthFrame['request']['server'], request: IncomingMessage, response: ServerResponse, body: string): void {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const form = /^application\/x-www-form-urlencoded\b/i.test(String(request.headers['content-type'] ?? ''))
      ? Object.fromEntries(new URLSearchParams(body))
      : {};
    let json: Json | undefined;
    try {
      json = body === '' ? undefined : (JSON.parse(body) as Json);
    } catch {
      json = undefined;
    }
    const asked: Asked = {
      method: request.method ?? 'GET',
      path: url.pathname,
      fields: { ...Object.fromEntries(url.searchParams), ...form },
      json,
      text: `${request.method} ${request.url}`,
      ...(request.headers.authorization !== undefined && { authorization: request.headers.authorization }),
    };
    const refusal = this.outOfBounds(server, asked);
    if (refusal) return this.refuse(asked, response, 400, refusal.error, refusal.kind, refusal.message);
    const same = this.frames.filter((frame) => frame.request.server === server && frame.request.method === asked.method && this.livePath(frame) === asked.path);
    // metadata may be read any number of times; every other exchange goes once, in order
    const frame = asked.path.startsWith('/.well-known/') ? same[0] : same.find((one) => !this.playedFrames.has(one));
    if (!frame) {
      if (same.length > 0 && asked.fields.grant_type === 'authorization_code')
        return this.refuse(
          asked,
          response,
          400,
          'invalid_grant',
          'oauth-code',
          this.requests.codeProblem(asked.fields.code) ?? 'your client sent a second token request for one authorization',
        );
      if (this.recorded.misnamed !== undefined && asked.path.includes('/.well-known/')) {
        // the recording stopped where a client must stop: more metadata is not there, and reading it uses nothing
        this.player.transportRefusal(asked.text, 404);
        return void response.writeHead(404).end();
      }
      return this.refuse(
        asked,
        response,
        404,
        'invalid_request',
        asked.path.includes('/.well-known/') ? 'oauth-discovery' : 'http-method',
        `your client sent ${asked.method} ${asked.path} to ${SERVER_NAMES[server]}, which the recording ${same.length > 0 ? 'answered fewer times' : 'never answered'}${this.metadataAt(asked.path)}`,
      );
    }
    const problem = this.check(frame, asked);
    if (problem) return this.refuse(asked, response, problem.status ?? 400, problem.error, problem.kind, problem.message);
    // metadata is read as often as the client likes, from the first frame at its URL: all of them are played
    for (const one of asked.path.startsWith('/.well-known/') ? same : [frame]) this.playedFrames.add(one);
    this.reply(frame, asked, response);
  }

  /** For a metadata request at a path the recording never answered: where its metadata is. */
  private metadataAt(path: string): string {
    if (!path.includes('/.well-known/')) return '';
    const answered = [...new Set(this.frames.filter((frame) => frame.request.path.startsWith('/.well-known/')).map((frame) => this.livePath(frame)))];
    return answered.length === 0
      ? ''
      : `; it has metadata at ${answered.join(' and ')} (RFC 8414 3.1 and RFC 9728 3.1: the well-known name goes between the host and the path)`;
  }

  /** A request the client should never have made, whatever was recorded: it went on past an
   *  authorization server without S256, registered where it brought a client_id (its metadata
   *  document's, or a kept registration's), sent a refresh token that was refused, or traded a code
   *  whose redirect it should have discarded. */
  private outOfBounds(server: AuthFrame['request']['server'], asked: Asked): OAuthRefusal | undefined {
    if (this.recorded.withoutS256 && server === 'authorization' && !asked.path.includes('/.well-known/'))
      return {
        kind: 'oauth-pkce-unsupported',
        error: 'invalid_request',
        message: `your client went on (${asked.method} ${asked.path}) with an authorization server whose metadata does not advertise S256 in code_challenge_methods_supported: it MUST refuse to proceed`,
      };
    if (this.recorded.brought !== undefined && server === 'authorization' && isRegistration(asked.json))
      return isMetadataDocumentUrl(this.recorded.brought)
        ? {
            kind: 'oauth-client-metadata',
            error: 'invalid_client_metadata',
            message:
              "your client registered (RFC 7591) with an authorization server that takes its Client ID Metadata Document (client_id_metadata_document_supported in its metadata): a client with a document uses the document's URL as its client_id, and registers nothing",
          }
        : {
            kind: 'oauth-registration-kept',
            error: 'invalid_client_metadata',
            message: `your client registered (RFC 7591) again with an authorization server it holds a registration for (client_id ${this.recorded.brought}, kept from an earlier run under this issuer): use the registration kept, and register only where none is held`,
          };
    const wellKnown = asked.path.includes('/.well-known/');
    // reading more metadata tells the client nothing it may not know: going on to register, authorize or trade is using it
    if (this.recorded.misnamed !== undefined && server === 'authorization' && !wellKnown)
      return {
        kind: 'oauth-metadata-mismatch',
        error: 'invalid_request',
        message: `your client went on (${asked.method} ${asked.path}) though ${this.recorded.misnamed}: such metadata MUST NOT be used`,
      };
    if (this.recorded.registrationRefused && server === 'authorization' && !wellKnown && !isRegistration(asked.json))
      return {
        kind: 'oauth-registration-refused',
        error: 'invalid_client',
        status: 401,
        message: `your client went on (${asked.method} ${asked.path}) after the authorization server refused its registration: it holds no client_id there; stop, and say why`,
      };
    if (asked.fields.grant_type === 'refresh_token' && asked.fields.refresh_token !== undefined && this.refusedRefreshes.has(asked.fields.refresh_token))
      return {
        kind: 'oauth-refresh-token',
        error: 'invalid_grant',
        message:
          'your client sent again the refresh token the authorization server refused (invalid_grant): a refused refresh token stays refused; refresh once, then ask for authorization again',
      };
    const leaked = server === 'authorization' ? this.requests.tokenLeaked(asked) : undefined;
    if (leaked) return leaked;
    const discarded = this.discarded.get(asked.fields.code ?? '');
    if (discarded) return { ...discarded, error: 'invalid_grant' };
    return undefined;
  }

  /** The first rule the request breaks, held to its recorded one at the endpoint that answered it
   *  (ENDPOINTS); the client's values it brings (state, the PKCE challenge and verifier) taken under
   *  their placeholders. */
  private check(frame: AuthFrame, asked: Asked): OAuthRefusal | undefined {
    const recorded = { ...frame.request.query, ...frame.request.form };
    const endpoint = ENDPOINTS.find((one) => one.answers(frame, recorded));
    if (endpoint === undefined) return undefined; // metadata: read as often as the client likes
    const problem = endpoint.check(this, frame, asked);
    if (!problem) this.take(recorded, asked.fields, endpoint.takes ?? []);
    return problem;
  }

  /** A refresh where the recording traded a code: the client refreshed without a refresh token to. */
  refreshUnrecorded(): OAuthRefusal {
    return {
      kind: 'oauth-refresh-token',
      error: 'invalid_grant',
      message: `your client asked to refresh ${this.values.has('<refresh-token>') ? 'where the recording authorized again' : 'though no token response gave it a refresh token'}: clients MUST NOT assume refresh tokens will be issued (2026-07-28); without one, ask for authorization again`,
    };
  }

  /** The scopes an authorization request is to ask for: those of the challenge before it, which are
   *  authoritative; else the protected resource metadata's scopes_supported (the spec's fallback). */
  scopesDue(frame: AuthFrame): ScopesDue | undefined {
    const challenge = this.challenges.get(frame);
    const scope = /\bscope="([^"]*)"/.exec(challenge?.header ?? '')?.[1];
    if (challenge && scope !== undefined) return { scopes: words(scope), from: `the ${challenge.status}'s WWW-Authenticate`, authoritative: true };
    const supported = this.frames
      .map((one) => one.reply.json)
      .find((json) => isObject(json) && json.resource !== undefined && Array.isArray(json.scopes_supported));
    if (!isObject(supported) || !Array.isArray(supported.scopes_supported)) return undefined;
    const scopes = supported.scopes_supported.filter((one): one is string => typeof one === 'string');
    return { scopes, from: "the protected resource metadata's scopes_supported", authoritative: false };
  }

  /** The token endpoint authentication methods the authorization server's metadata lists. */
  private authMethods(): string[] {
    const metadata = this.frames.map((one) => one.reply.json).find((json) => isObject(json) && Array.isArray(json.token_endpoint_auth_methods_supported));
    const methods = isObject(metadata) ? metadata.token_endpoint_auth_methods_supported : undefined;
    return Array.isArray(methods) ? methods.filter((one): one is string => typeof one === 'string') : [];
  }

  /** The client's own values, under the placeholders their recorded fields hold. */
  private take(recorded: Record<string, string>, live: Record<string, string>, names: string[]): void {
    for (const name of names) if (recorded[name]?.startsWith('<') && live[name] !== undefined) this.values.set(recorded[name], live[name]);
  }

  private reply(frame: AuthFrame, asked: Asked, response: ServerResponse): void {
    const { reply } = frame;
    const refreshToken = asked.fields.refresh_token;
    if (frame.request.form?.grant_type === 'refresh_token' && reply.status >= 400 && refreshToken !== undefined) this.refusedRefreshes.add(refreshToken);
    // the redirect goes to the client's live redirect_uri, wherever the recording sent it (after a sign-in, say)
    const recordedRedirect = frame.request.query?.redirect_uri;
    const liveRedirect = frame.request.query?.response_type === undefined ? undefined : this.requests.redirectOf(asked.fields.redirect_uri, recordedRedirect);
    if (recordedRedirect && liveRedirect) this.redirectUri = { recorded: recordedRedirect, live: liveRedirect };
    const { recorded, live } = this.redirectUri ?? {};
    const redirect = (text: string) => (recorded && live ? text.replaceAll(recorded, live) : text);
    const headers = Object.fromEntries(
      Object.entries(reply.headers ?? {}).map(([name, value]) => [name, redirect(name === 'location' ? this.location(frame, value) : this.fill(value))]),
    );
    const filled = reply.json === undefined ? undefined : mapStrings(reply.json, (text) => this.fill(text));
    const json = filled !== undefined && isRegistration(frame.request.json) ? this.requests.registrationAnswer(filled, asked, this.authMethods()) : filled;
    if (isObject(json) && typeof json.access_token === 'string') this.accessTokens.push(json.access_token);
    const body = json !== undefined ? JSON.stringify(json) : redirect(this.fill(reply.text ?? ''));
    this.player.transportRefusal(asked.text, reply.status);
    response.writeHead(reply.status, headers).end(body);
  }

  /** A recorded redirect, live: a path on the authorization server's origin under AUTHORIZATION_PATH;
   *  each query value filled as the value it is (an `iss` is sent URL-encoded); and without the
   *  client's values that the client never sent: an authorization request without state gets none
   *  back (RFC 6749 4.1.2: state is returned "if the state parameter was present in the client
   *  authorization request"). */
  private location(frame: AuthFrame, recorded: string): string {
    const filled = this.fill(recorded);
    if (frame.request.server === 'authorization' && /^\/(?!\/)/.test(filled)) return `${AUTHORIZATION_PATH}${filled}`;
    if (!URL.canParse(filled)) return filled;
    const url = new URL(filled);
    // a recorded state of a role the server mints (a case's forgery): the code that comes with it is marked
    const forgery = roleOf(/[?&]state=(<[^>&]+>)/.exec(recorded)?.[1] ?? '');
    const code = url.searchParams.get('code');
    if (code !== null && this.requests.asking) {
      this.requests.grants.set(code, this.requests.asking); // the code of the last authorization request
      this.requests.asking = undefined;
    }
    for (const [name, value] of [...url.searchParams]) {
      const live = this.fill(value);
      const role = roleOf(live);
      if (role !== undefined && CLIENT_ROLES.has(role)) url.searchParams.delete(name);
      else url.searchParams.set(name, live);
    }
    if (code !== null) {
      // a state the client sent, and none comes back: as forged as another one
      const dropped = this.values.has('<state>') && !/[?&]state=/.test(recorded);
      const discard = this.discardProblem((forgery !== undefined && !CLIENT_ROLES.has(forgery)) || dropped, url.searchParams.get('iss'));
      if (discard) this.discarded.set(code, discard);
    }
    return url.href;
  }

  /** Why the client must discard an authorization response: a state it did not send, an iss
   *  (RFC 9207) not the issuer it asked, or none where the issuer says it names itself. */
  private discardProblem(stateForged: boolean, iss: string | null): Mistake | undefined {
    if (stateForged)
      return {
        kind: 'oauth-state-unchecked',
        message: 'your client traded the code of a redirect whose state was not the one it sent (another, or none): discard such a redirect, code and all',
      };
    const issuer = `${this.origin}${AUTHORIZATION_PATH}`;
    if (iss !== null && iss !== issuer)
      return {
        kind: 'oauth-iss-unchecked',
        message: sameOnceNormalised(iss, issuer)
          ? `your client traded the code of a redirect whose iss is ${JSON.stringify(iss)}, the issuer it asked (${issuer}) only once normalised: compare the two strings as they are, no case folding, default port, trailing slash or percent-encoding made the same (2026-07-28: clients MUST NOT normalise them), and discard the redirect`
          : `your client traded the code of a redirect whose iss is ${JSON.stringify(iss)}, not the issuer it asked (${issuer}): compare iss with the issuer, and discard the redirect when they differ (a mix-up, RFC 9207)`,
      };
    if (iss === null && this.recorded.namesIssuer)
      return {
        kind: 'oauth-iss-unchecked',
        message:
          'your client traded the code of a redirect without iss from an authorization server whose metadata says authorization_response_iss_parameter_supported: such a response is rejected (RFC 9207 2.4)',
      };
    return undefined;
  }

  private refuse(asked: Pick<Asked, 'text'>, response: ServerResponse, status: number, error: string, kind: DiagnosisKind, message: string): void {
    this.player.transportRefusal(asked.text, status, error, { kind, message });
    response
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify({ error, error_description: message.replace(/^your client/, 'the client') }));
  }
}

/** For each recorded authorization exchange, the last challenge (a 401 or 403 with WWW-Authenticate)
 *  the MCP server gave before it. */
function challengesBefore(cassette: Cassette): Map<AuthFrame, { status: number; header: string }> {
  const before = new Map<AuthFrame, { status: number; header: string }>();
  let last: { status: number; header: string } | undefined;
  for (const frame of cassette.frames) {
    if (frame.from === 'auth') {
      if (last) before.set(frame, last);
    } else if (frame.from === 'client' && frame.http?.reply?.headers?.['www-authenticate'] && frame.http.reply.status >= 400)
      last = { status: frame.http.reply.status, header: frame.http.reply.headers['www-authenticate'] };
  }
  return before;
}

/** Whether two URLs are one once normalised as RFC 3986 6.2.2-6.2.3 would (what URL parsing does, and
 *  a trailing slash dropped): the normalisation an iss comparison must not make. */
function sameOnceNormalised(a: string, b: string): boolean {
  const normal = (text: string) => (URL.canParse(text) ? new URL(text).href : text).replace(/\/+$/, '');
  return normal(a) === normal(b);
}
