// The authorization, served beside the MCP session: the MCP server's protected resource metadata, and
// the authorization server at AUTHORIZATION_PATH of the same origin (an issuer with a path, its
// metadata where RFC 8414 puts it: a program graded without network reaches one port, relayed), each
// answered from the cassette's authorization frames. Values random by design are minted anew (codes, tokens, client
// credentials) or taken from the live client (state, the PKCE challenge and verifier), and the
// client is held to what the spec asks of them, not to their bytes: the verifier hashes (S256) to
// the challenge sent, the code is used once, redirect_uri and resource match. A miss is refused as an
// authorization server refuses it (an OAuth error), with the rule named.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  AUTHORIZATION_SERVER,
  isMetadataDocumentUrl,
  isRegistration,
  MCP_SERVER,
  mapStrings,
  type RecordedAuthorization,
  recordedAuthorization,
  roleOf,
  s256,
  UNPRINTABLE_ROLES,
  type Secret,
} from '../../cassette/authorization.ts';
import type { Diagnosis, DiagnosisKind } from '../../cassette/diagnosis.ts';
import type { AuthFrame, Cassette, Json } from '../../cassette/model.ts';
import type { Player } from '../../cassette/player.ts';
import { refuseRequest, statusLine } from './refusal.ts';

/** The roles whose values the client makes; every other role's the server mints. */
const CLIENT_ROLES = new Set(['state', 'code-challenge', 'code-verifier', 'nonce']);
const PLACEHOLDER = /<([a-z]+(?:-[a-z]+)*?)(?:-(\d+))?>/g;
/** Where the recorded authorization server is served, on the MCP server's origin. */
export const AUTHORIZATION_PATH = '/authorization-server';
/** A Host header that names an origin, and nothing more. */
const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/** What a live request asked, as its fields. */
interface Asked {
  method: string;
  path: string;
  fields: Record<string, string>;
  json?: Json;
  text: string;
}

/** A rule broken, said; and how the authorization server refuses it (an OAuth error, 400 unless said). */
interface Mistake {
  kind: DiagnosisKind;
  message: string;
}
interface OAuthRefusal extends Mistake {
  error: string;
  status?: number;
}

/** A code the player gave, and what the authorization request it answers said. */
interface Grant {
  challenge?: string;
  method?: string;
  redirectUri?: string;
  resource?: string;
  used: boolean;
}

export class AuthFace {
  private readonly frames: AuthFrame[];
  private readonly played = new Set<AuthFrame>();
  private readonly values = new Map<string, string>();
  private readonly grants = new Map<string, Grant>();
  /** The last authorization request, whose code is not given yet. */
  private asking: Grant | undefined;
  private registered: string[] | undefined;
  /** Refresh tokens the recorded authorization server refused (invalid_grant): refused for good. */
  private readonly refusedRefreshes = new Set<string>();
  /** Codes the client must discard, and why: their redirect came back with a state not the client's,
   *  or an iss not the issuer's (a case that forges one). */
  private readonly discarded = new Map<string, Mistake>();
  /** What the recording says of its authorization, that the client is held to. */
  private readonly recorded: RecordedAuthorization;
  private redirectUri: { recorded: string; live: string } | undefined;
  /** The MCP server's origin as the client reaches it (a relay's port, say): its requests' Host. */
  private origin = '';

  constructor(
    cassette: Cassette,
    private readonly player: Player,
  ) {
    this.frames = cassette.frames.filter((frame): frame is AuthFrame => frame.from === 'auth');
    this.recorded = recordedAuthorization(cassette);
  }

  /** The 401's WWW-Authenticate, at the live origins. */
  challengeHeader(): string {
    return this.fill(this.recorded.challenge);
  }

  static of(cassette: Cassette, player: Player): AuthFace | undefined {
    return cassette.frames.some((frame) => frame.from === 'auth') ? new AuthFace(cassette, player) : undefined;
  }

  /** Takes a request that is the authorization's (a path its frames answered, a well-known path, one
   *  under AUTHORIZATION_PATH), or one that carries an access token in its URL (refused); says whether
   *  it did. Every request says the origin the client reaches the server at. */
  took(request: IncomingMessage, response: ServerResponse, url: URL): boolean {
    const host = request.headers.host ?? '';
    if (HOST.test(host)) this.origin = `http://${host}`;
    const frame = this.frames.find((one) => this.livePath(one) === url.pathname);
    const path = url.pathname;
    const authorizationServer = path.startsWith(`${AUTHORIZATION_PATH}/`) || (path.startsWith('/.well-known/') && path.includes(AUTHORIZATION_PATH));
    if (frame || authorizationServer || path.startsWith('/.well-known/')) {
      this.handle(frame?.request.server ?? (authorizationServer ? 'authorization' : 'resource'), request, response);
      return true;
    }
    if (!this.tokenInQuery(url)) return false;
    refuseRequest(this.player, request, response, { status: 401 }, [
      'oauth-token-in-query',
      `your client sent ${request.method} ${url.pathname} with the access token in its URL: it goes in the Authorization header, never the query`,
    ]);
    return true;
  }

  /** Recorded text with the servers at their live origins and each role's value: minted, or the client's. */
  fill(text: string): string {
    const origins = text.replaceAll(MCP_SERVER, this.origin).replaceAll(AUTHORIZATION_SERVER, `${this.origin}${AUTHORIZATION_PATH}`);
    return origins.replace(PLACEHOLDER, (placeholder, role: string) => {
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
  secrets(): Secret[] {
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

  /** Why an MCP request's Authorization is not the token the player issued in the recorded role, if it is not. */
  bearerProblem(recorded: string, live: string | undefined): string | undefined {
    const expected = this.fill(recorded);
    if (live === expected) return undefined;
    if (live === undefined) return 'without the Authorization header: the access token goes in "Authorization: Bearer <token>" on every request';
    return /^Bearer\s/i.test(live)
      ? 'with a bearer token the authorization server did not issue (not the access token of the token response)'
      : `with Authorization: ${live.split(' ')[0]} …, not the bearer token`;
  }

  /** Whether the URL carries an access token the player issued, as a query parameter. */
  tokenInQuery(url: URL): boolean {
    const issued = [...this.values].filter(([placeholder]) => placeholder.startsWith('<access-token')).map(([, value]) => value);
    return url.searchParams.has('access_token') || [...url.searchParams.values()].some((value) => issued.includes(value));
  }

  handle(server: AuthFrame['request']['server'], request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => this.answer(server, request, response, Buffer.concat(chunks).toString('utf8')));
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
    };
    const refusal = this.outOfBounds(server, asked);
    if (refusal) return this.refuse(asked, response, 400, refusal.error, refusal.kind, refusal.message);
    const same = this.frames.filter((frame) => frame.request.server === server && frame.request.method === asked.method && this.livePath(frame) === asked.path);
    // metadata may be read any number of times; every other exchange goes once, in order
    const frame = asked.path.startsWith('/.well-known/') ? same[0] : same.find((one) => !this.played.has(one));
    if (!frame) {
      if (same.length > 0 && asked.fields.grant_type === 'authorization_code')
        return this.refuse(
          asked,
          response,
          400,
          'invalid_grant',
          'oauth-code',
          this.codeProblem(asked.fields.code) ?? 'your client sent a second token request for one authorization',
        );
      const whose = server === 'resource' ? 'the MCP server' : 'the authorization server';
      return this.refuse(
        asked,
        response,
        404,
        'invalid_request',
        'http-method',
        `your client sent ${asked.method} ${asked.path} to ${whose}, which the recording ${same.length > 0 ? 'answered fewer times' : 'never answered'}${this.metadataAt(asked.path)}`,
      );
    }
    const problem = this.check(frame, asked);
    if (problem) return this.refuse(asked, response, problem.status ?? 400, problem.error, problem.kind, problem.message);
    this.played.add(frame);
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
    if (asked.fields.grant_type === 'refresh_token' && asked.fields.refresh_token !== undefined && this.refusedRefreshes.has(asked.fields.refresh_token))
      return {
        kind: 'oauth-refresh-token',
        error: 'invalid_grant',
        message:
          'your client sent again the refresh token the authorization server refused (invalid_grant): a refused refresh token stays refused; refresh once, then ask for authorization again',
      };
    const discarded = this.discarded.get(asked.fields.code ?? '');
    if (discarded) return { ...discarded, error: 'invalid_grant' };
    return undefined;
  }

  /** The first rule the request breaks, held to its recorded one. */
  private check(frame: AuthFrame, asked: Asked): OAuthRefusal | undefined {
    const recorded = { ...frame.request.query, ...frame.request.form };
    const live = asked.fields;
    if (isRegistration(asked.json)) this.registered = asked.json.redirect_uris.filter((uri): uri is string => typeof uri === 'string');
    if (recorded.response_type !== undefined) {
      if (live.code_challenge === undefined)
        return {
          kind: 'oauth-pkce',
          error: 'invalid_request',
          message: 'your client asked for authorization without a code_challenge: MCP clients MUST implement PKCE',
        };
      if (live.code_challenge_method !== 'S256')
        return {
          kind: 'oauth-pkce',
          error: 'invalid_request',
          message: `your client asked for the code_challenge_method ${JSON.stringify(live.code_challenge_method ?? 'plain')}: MCP clients MUST use S256`,
        };
      const resource = this.resourceProblem(recorded.resource, live.resource, 'authorization');
      if (resource) return resource;
      if (recorded.client_id !== undefined && live.client_id !== this.fill(recorded.client_id))
        // where the recording registered and the client did not, it used a registration of elsewhere
        return this.recorded.brought === undefined && this.registered === undefined
          ? {
              kind: 'oauth-registration-kept',
              error: 'invalid_client',
              status: 401,
              message: `your client asked for authorization as client_id ${JSON.stringify(live.client_id)} without registering with this authorization server: a registration is kept under the issuer that made it and used there only; at an authorization server it holds none for, a client registers (2026-07-28: it MUST NOT reuse client credentials from a different authorization server)`,
            }
          : {
              kind: 'oauth-client',
              error: 'invalid_client',
              status: 401,
              message: `your client asked for authorization as client_id ${JSON.stringify(live.client_id)}, not ${isMetadataDocumentUrl(recorded.client_id) ? `its metadata document's URL, ${recorded.client_id}` : 'the client_id it was registered with'}`,
            };
      if (this.registered && !this.registered.includes(live.redirect_uri ?? ''))
        return {
          kind: 'oauth-redirect-uri',
          error: 'invalid_request',
          message: `your client's redirect_uri ${JSON.stringify(live.redirect_uri)} is not one it registered (${this.registered.join(', ')})`,
        };
      if (recorded.state !== undefined && live.state === undefined)
        this.player.transportMistake('oauth-state', 'your client asked for authorization without state: it SHOULD send one and check that it comes back');
      this.take(recorded, live, ['state', 'code_challenge']);
      // the code the redirect back will carry (after a sign-in's redirects, perhaps) answers this request
      this.asking = {
        challenge: live.code_challenge,
        method: live.code_challenge_method,
        redirectUri: live.redirect_uri,
        resource: live.resource,
        used: false,
      };
      return undefined;
    }
    if (recorded.grant_type === 'authorization_code') {
      const codeProblem = this.codeProblem(live.code);
      if (codeProblem) return { kind: 'oauth-code', error: 'invalid_grant', message: codeProblem };
      const grant = this.grants.get(live.code!)!;
      grant.used = true;
      if (live.code_verifier === undefined || s256(live.code_verifier) !== grant.challenge)
        return {
          kind: 'oauth-verifier',
          error: 'invalid_grant',
          message: `your client's code_verifier ${live.code_verifier === undefined ? 'is missing' : 'does not hash (S256) to the code_challenge it sent with the authorization request'}: send the verifier that challenge was made from`,
        };
      if (live.redirect_uri !== grant.redirectUri)
        return {
          kind: 'oauth-redirect-uri',
          error: 'invalid_grant',
          message: `your client's token request says redirect_uri ${JSON.stringify(live.redirect_uri)}; the authorization request said ${JSON.stringify(grant.redirectUri)}: they must be identical`,
        };
      const resource = this.resourceProblem(recorded.resource, live.resource, 'token');
      if (resource) return resource;
      this.take(recorded, live, ['code_verifier']);
    }
    if (recorded.grant_type === 'refresh_token') {
      if (live.grant_type !== 'refresh_token' || live.refresh_token !== this.fill(recorded.refresh_token ?? ''))
        return {
          kind: 'oauth-refresh-token',
          error: 'invalid_grant',
          message: `your client's token request ${live.grant_type === 'refresh_token' ? 'has a refresh_token the authorization server never gave' : `asks for grant_type ${JSON.stringify(live.grant_type)} where the recording refreshed`}: send grant_type=refresh_token with the refresh token of the last token response`,
        };
      const resource = this.resourceProblem(recorded.resource, live.resource, 'refresh');
      if (resource) return resource;
    }
    return undefined;
  }

  private codeProblem(code: string | undefined): string | undefined {
    const grant = code === undefined ? undefined : this.grants.get(code);
    if (!grant)
      return `your client's token request has ${code === undefined ? 'no code' : 'a code the authorization server never gave'}: send the code of the redirect`;
    if (grant.used) return 'your client used the authorization code a second time: a code is good for one token request';
    return undefined;
  }

  private resourceProblem(recorded: string | undefined, live: string | undefined, request: string) {
    if (recorded === undefined) return undefined;
    const expected = this.fill(recorded);
    if (live === expected) return undefined;
    return {
      kind: 'oauth-resource' as const,
      error: 'invalid_target',
      message: `your client's ${request} request ${live === undefined ? 'has no resource' : `says resource ${JSON.stringify(live)}`}: it MUST name the MCP server's canonical URI, ${expected}`,
    };
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
    if (recordedRedirect && asked.fields.redirect_uri) this.redirectUri = { recorded: recordedRedirect, live: asked.fields.redirect_uri };
    const { recorded, live } = this.redirectUri ?? {};
    const redirect = (text: string) => (recorded && live ? text.replaceAll(recorded, live) : text);
    const headers = Object.fromEntries(
      Object.entries(reply.headers ?? {}).map(([name, value]) => [name, redirect(name === 'location' ? this.location(frame, value) : this.fill(value))]),
    );
    const body = reply.json !== undefined ? JSON.stringify(mapStrings(reply.json, (text) => this.fill(text))) : redirect(this.fill(reply.text ?? ''));
    this.player.transportRefusal(asked.text, statusLine(reply.status));
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
    if (code !== null && this.asking) {
      this.grants.set(code, this.asking); // the code of the last authorization request
      this.asking = undefined;
    }
    for (const [name, value] of [...url.searchParams]) {
      const live = this.fill(value);
      const role = roleOf(live);
      if (role !== undefined && CLIENT_ROLES.has(role)) url.searchParams.delete(name);
      else url.searchParams.set(name, live);
    }
    if (code !== null) {
      const discard = this.discardProblem(forgery !== undefined && !CLIENT_ROLES.has(forgery), url.searchParams.get('iss'));
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
        message: 'your client traded the code of a redirect whose state was not the one it sent: discard such a redirect, code and all',
      };
    const issuer = `${this.origin}${AUTHORIZATION_PATH}`;
    if (iss !== null && iss !== issuer)
      return {
        kind: 'oauth-iss-unchecked',
        message: `your client traded the code of a redirect whose iss is ${JSON.stringify(iss)}, not the issuer it asked (${issuer}): compare iss with the issuer, and discard the redirect when they differ (a mix-up, RFC 9207)`,
      };
    if (iss === null && this.recorded.namesIssuer)
      return {
        kind: 'oauth-iss-unchecked',
        message:
          'your client traded the code of a redirect without iss from an authorization server whose metadata says authorization_response_iss_parameter_supported: such a response is rejected (RFC 9207 2.4)',
      };
    return undefined;
  }

  private refuse(asked: Asked, response: ServerResponse, status: number, error: string, kind: DiagnosisKind, message: string): void {
    this.player.transportRefusal(asked.text, statusLine(status, error), { kind, message });
    response
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify({ error, error_description: message.replace(/^your client/, 'the client') }));
  }
}

/** Why a POST's credentials are not those the recorded server was given, and the 401's challenge;
 *  none when they are. Over a recorded authorization, the token must be the one the player issued. */
export function credentialsProblem(
  recorded: string | undefined,
  live: string | undefined,
  authorization: AuthFace | undefined,
): { problem: string; challenge: string } | undefined {
  if (recorded === undefined) return undefined;
  if (authorization && /<access-token(?:-\d+)?>/.test(recorded)) {
    const problem = authorization.bearerProblem(recorded, live);
    return problem === undefined ? undefined : { problem, challenge: authorization.challengeHeader() };
  }
  if (live !== undefined) return undefined;
  return { problem: 'without the Authorization header the server was given: send the configured headers on every request', challenge: 'Bearer' };
}
