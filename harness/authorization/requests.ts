// What the client's requests to the authorization server are held to, at the level the spec gives
// each rule (harness/cassette/kinds/authorization.ts): registration, the authorization request, the
// token request and the refresh, each against the recorded one, the grant it answers and what this
// session's earlier requests said. A MUST broken is refused as the authorization server refuses it
// (an OAuth error); a SHOULD not followed, or a choice a server of RFC 6749 would refuse, is advice.
import { isObject, type AuthFrame, type DiagnosisKind, type Json } from '../cassette/index.ts';
import { isMetadataDocumentUrl, isRegistration, s256 } from './oauth.ts';
import type { RecordedAuthorization } from './recorded.ts';

/** What a live request asked, as its fields. */
export interface Asked {
  method: string;
  path: string;
  fields: Record<string, string>;
  json?: Json;
  text: string;
  /** Its Authorization header. */
  authorization?: string;
}

/** A rule broken, said. */
export interface Mistake {
  kind: DiagnosisKind;
  message: string;
}

/** How the authorization server refuses it: an OAuth error, 400 unless said. */
export interface OAuthRefusal extends Mistake {
  error: string;
  status?: number;
}

/** A code the player gave, and what the authorization request it answers said. */
interface Grant {
  challenge?: string;
  /** Where its redirect went: the redirect_uri it named, or the one registered. */
  redirectUri?: string;
  /** It named its redirect_uri (RFC 6749 4.1.3 asks the token request to repeat it then). */
  redirectNamed: boolean;
  resource?: string;
  used: boolean;
}

/** The scopes an authorization request is to ask for: the challenge's (authoritative, a MUST, after a
 *  403 insufficient_scope), or those the spec's scope selection picks (a SHOULD). */
export interface ScopesDue {
  scopes: string[];
  from: string;
  authoritative: boolean;
}

/** How the client authenticates at the token endpoint, as its registration says (RFC 7591 2). */
interface ClientCredentials {
  id: string;
  secret?: string;
  method: string;
}

/** The code_verifier's form (RFC 7636 4.1; OAuth 2.1 4.1.1): 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
const TOKEN_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'];

export class AuthRequests {
  readonly grants = new Map<string, Grant>();
  /** The last authorization request, whose code is not given yet. */
  asking: Grant | undefined;
  /** The redirect URIs the client registered (a registration's; a client_id it brought: the recorded one). */
  private registered: string[] | undefined;
  private readonly challenges = new Set<string>();
  private readonly states = new Set<string>();
  private client: ClientCredentials | undefined;

  constructor(
    private readonly recorded: RecordedAuthorization,
    private readonly fill: (text: string) => string,
    private readonly advise: (kind: DiagnosisKind, message: string) => void,
    /** The role of a value the player issued or took (`access-token`), if it did. */
    private readonly roleOfValue: (value: string) => string | undefined,
  ) {}

  /** A registration (RFC 7591): its redirect URIs are what the authorization requests are held to. */
  registration(frame: AuthFrame, asked: Asked): OAuthRefusal | undefined {
    if (!isRegistration(frame.request.json)) return undefined;
    if (!isRegistration(asked.json) || asked.json.redirect_uris.length === 0)
      return {
        kind: 'oauth-redirect-uri',
        error: 'invalid_redirect_uri',
        message: 'your client registered without redirect_uris: MCP clients MUST have redirect URIs registered with the authorization server',
      };
    if (!('application_type' in asked.json))
      return {
        kind: 'oauth-application-type',
        error: 'invalid_client_metadata',
        message:
          'your client registered without application_type: MCP clients MUST specify an appropriate one (2026-07-28), a client with a localhost redirect "native"; an OpenID Connect server takes its absence as "web"',
      };
    this.registered = asked.json.redirect_uris.filter((uri): uri is string => typeof uri === 'string');
    return undefined;
  }

  /** The registration's answer as the client gets it: with the token endpoint authentication it asked
   *  for, where the authorization server supports it (RFC 7591 2: client_secret_basic when it names
   *  none); the credentials it gives are those the token requests must show. */
  registrationAnswer(reply: Json, asked: Asked, supported: string[]): Json {
    if (!isObject(reply) || typeof reply.client_id !== 'string' || !isObject(asked.json)) return reply;
    const wanted = typeof asked.json.token_endpoint_auth_method === 'string' ? asked.json.token_endpoint_auth_method : 'client_secret_basic';
    const given = typeof reply.token_endpoint_auth_method === 'string' ? reply.token_endpoint_auth_method : 'client_secret_basic';
    const method = wanted !== given && TOKEN_AUTH_METHODS.includes(wanted) && supported.includes(wanted) ? wanted : given;
    const answer: Record<string, Json> = { ...reply, token_endpoint_auth_method: method };
    if (method === 'none') delete answer.client_secret;
    else if (typeof answer.client_secret !== 'string') answer.client_secret = this.fill('<client-secret>');
    this.client = { id: reply.client_id, method, ...(typeof answer.client_secret === 'string' && { secret: answer.client_secret }) };
    return answer;
  }

  /** An authorization request, held to the recorded one. */
  authorization(frame: AuthFrame, asked: Asked, due: ScopesDue | undefined): OAuthRefusal | undefined {
    const recorded = frame.request.query ?? {};
    const live = asked.fields;
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
    if (this.challenges.has(live.code_challenge))
      return {
        kind: 'oauth-pkce',
        error: 'invalid_request',
        message:
          'your client sent the code_challenge of an earlier authorization request again: a code_verifier is made anew for each authorization request (OAuth 2.1 4.1.1), and its challenge with it',
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
    const redirect = this.redirectProblem(recorded.redirect_uri, live.redirect_uri);
    if (redirect) return redirect;
    this.scopeAdvice(live.scope, due);
    if (due?.authoritative && !due.scopes.every((scope) => words(live.scope).includes(scope)))
      return {
        kind: 'oauth-scope',
        error: 'invalid_scope',
        message: `your client asked again for authorization with scope ${JSON.stringify(live.scope ?? '')}, after ${due.from} named ${JSON.stringify(due.scopes.join(' '))}: clients MUST treat the scopes of the challenge as authoritative`,
      };
    if (recorded.state !== undefined && live.state === undefined)
      this.advise('oauth-state', 'your client asked for authorization without state: it SHOULD send one and check that it comes back');
    else if (live.state !== undefined && this.states.has(live.state))
      this.advise(
        'oauth-state',
        'your client sent the state of an earlier authorization request again: a state is made anew for each request, to tell its redirect from any other',
      );
    this.challenges.add(live.code_challenge);
    if (live.state !== undefined) this.states.add(live.state);
    // the code the redirect back will carry (after a sign-in's redirects, perhaps) answers this request
    this.asking = {
      challenge: live.code_challenge,
      redirectUri: this.redirectOf(live.redirect_uri, recorded.redirect_uri),
      redirectNamed: live.redirect_uri !== undefined,
      resource: live.resource,
      used: false,
    };
    return undefined;
  }

  /** Where the redirect of an authorization request goes: its redirect_uri, or the one the client
   *  registered where it named none. */
  redirectOf(live: string | undefined, recorded: string | undefined): string | undefined {
    const registered = this.registeredFor(recorded);
    return live ?? (registered?.length === 1 ? registered[0] : undefined);
  }

  /** The redirect URIs the client registered; for a client_id it brought (kept, or its metadata
   *  document's), the one the recorded authorization request named. */
  private registeredFor(recorded: string | undefined): string[] | undefined {
    return this.registered ?? (recorded === undefined ? undefined : [this.fill(recorded)]);
  }

  /** A token request for a code, held to the authorization request the code answers. */
  token(frame: AuthFrame, asked: Asked): OAuthRefusal | undefined {
    const live = asked.fields;
    const codeProblem = this.codeProblem(live.code);
    if (codeProblem) return { kind: 'oauth-code', error: 'invalid_grant', message: codeProblem };
    const client = this.clientProblem(frame, asked);
    if (client) return client;
    const grant = this.grants.get(live.code!)!;
    grant.used = true;
    if (live.code_verifier === undefined || s256(live.code_verifier) !== grant.challenge)
      return {
        kind: 'oauth-verifier',
        error: 'invalid_grant',
        message: `your client's code_verifier ${live.code_verifier === undefined ? 'is missing' : 'does not hash (S256) to the code_challenge it sent with the authorization request'}: send the verifier that challenge was made from`,
      };
    if (!VERIFIER.test(live.code_verifier))
      return {
        kind: 'oauth-verifier',
        error: 'invalid_grant',
        message: `your client's code_verifier is ${live.code_verifier.length} characters${/^[A-Za-z0-9\-._~]*$/.test(live.code_verifier) ? '' : ', some of them not unreserved'}: a verifier is 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_" and "~" (RFC 7636 4.1)`,
      };
    if (live.redirect_uri === undefined && grant.redirectNamed)
      this.advise(
        'oauth-token-redirect-uri',
        "your client's token request has no redirect_uri: OAuth 2.1 removed it, but an authorization server that also serves OAuth 2.0 clients enforces it as RFC 6749 4.1.3 does (required when the authorization request had one): send the authorization request's to work with both",
      );
    else if (live.redirect_uri !== undefined && live.redirect_uri !== grant.redirectUri)
      return {
        kind: 'oauth-redirect-uri',
        error: 'invalid_grant',
        message: `your client's token request says redirect_uri ${JSON.stringify(live.redirect_uri)}; the authorization request's redirect went to ${JSON.stringify(grant.redirectUri)}: sent, they must be identical`,
      };
    const resource = this.resourceProblem(frame.request.form?.resource, live.resource, 'token');
    if (resource) return resource;
    if (live.resource !== undefined && grant.resource !== undefined && live.resource !== grant.resource)
      return {
        kind: 'oauth-resource',
        error: 'invalid_target',
        message: `your client's token request says resource ${JSON.stringify(live.resource)}; its authorization request said ${JSON.stringify(grant.resource)}: a token is asked for the resource the authorization was (RFC 8707 2.2)`,
      };
    return undefined;
  }

  /** A refresh, with the refresh token the player gave. */
  refresh(frame: AuthFrame, asked: Asked): OAuthRefusal | undefined {
    const recorded = frame.request.form ?? {};
    const live = asked.fields;
    const expected = this.fill(recorded.refresh_token ?? '');
    // a refresh token the player gave, not the one the recorded refresh sent: a token response since replaced it
    if (live.grant_type === 'refresh_token' && live.refresh_token !== expected && this.roleOfValue(live.refresh_token ?? '') === 'refresh-token')
      return {
        kind: 'oauth-refresh-rotation',
        error: 'invalid_grant',
        message:
          'your client refreshed with a refresh token that a later token response replaced (it carried a new refresh_token): the client MUST discard the old refresh token and refresh with the new one; the authorization server refuses the old one (oidc-provider answers invalid_grant, and ends the grant)',
      };
    if (live.grant_type !== 'refresh_token' || live.refresh_token !== expected)
      return {
        kind: 'oauth-refresh-token',
        error: 'invalid_grant',
        message: `your client's token request ${live.grant_type === 'refresh_token' ? 'has a refresh_token the authorization server never gave' : `asks for grant_type ${JSON.stringify(live.grant_type)} where the recording refreshed`}: send grant_type=refresh_token with the refresh token of the last token response`,
      };
    return this.clientProblem(frame, asked) ?? this.resourceProblem(recorded.resource, live.resource, 'refresh');
  }

  codeProblem(code: string | undefined): string | undefined {
    const grant = code === undefined ? undefined : this.grants.get(code);
    if (!grant)
      return `your client's token request has ${code === undefined ? 'no code' : 'a code the authorization server never gave'}: send the code of the redirect`;
    if (grant.used) return 'your client used the authorization code a second time: a code is good for one token request';
    return undefined;
  }

  /** The client's authentication at the token endpoint: as its registration says, one method only;
   *  a public client (or one it brought: a metadata document's, a kept registration) names its client_id. */
  private clientProblem(frame: AuthFrame, asked: Asked): OAuthRefusal | undefined {
    const client = this.client ?? this.broughtClient(frame);
    if (client === undefined) return undefined;
    const live = asked.fields;
    const basic = basicCredentials(asked.authorization);
    const problem = (said: string): OAuthRefusal => ({
      kind: 'oauth-client-auth',
      error: 'invalid_client',
      status: 401,
      message: `your client's token request ${said}`,
    });
    if (client.method === 'client_secret_basic') {
      if (basic === undefined)
        return problem(
          `has no HTTP Basic authentication${live.client_secret === undefined ? '' : ' (its secret is in the form)'}: its registration says token_endpoint_auth_method client_secret_basic, so client_id and client_secret go in "Authorization: Basic …"`,
        );
      if (basic.id !== client.id || basic.secret !== client.secret)
        return problem(
          `authenticates as ${basic.id === client.id ? 'its client_id with another secret' : 'another client_id'}: send the client_id and client_secret of its registration, each form-encoded, in "Authorization: Basic …"`,
        );
      if (live.client_secret !== undefined)
        return problem('has its secret both in the Basic header and in the form: a client uses one authentication method in a request');
      return undefined;
    }
    if (basic !== undefined) return problem(`uses HTTP Basic authentication, where its registration says token_endpoint_auth_method ${client.method}`);
    if (live.client_id !== client.id)
      return problem(
        `${live.client_id === undefined ? 'has no client_id' : `names client_id ${JSON.stringify(live.client_id)}`}: send the client_id ${client.method === 'none' ? 'it asked for authorization with (a public client names itself)' : 'of its registration'}`,
      );
    if (client.method === 'client_secret_post' && live.client_secret !== client.secret)
      return problem(
        `${live.client_secret === undefined ? 'has no client_secret' : 'has a client_secret that is not its registration’s'}: its registration says token_endpoint_auth_method client_secret_post, so the secret goes in the form`,
      );
    return undefined;
  }

  /** A client that registered nothing here authenticates as the recorded one did: by its client_id. */
  private broughtClient(frame: AuthFrame): ClientCredentials | undefined {
    const id = frame.request.form?.client_id;
    if (id === undefined || frame.request.form?.client_secret !== undefined || frame.request.headers?.authorization !== undefined) return undefined;
    return { id: this.fill(id), method: 'none' };
  }

  /** The redirect_uri of an authorization request: one registered; optional where exactly one is
   *  (OAuth 2.1 2.3.2). A client it brought (kept, or its metadata document's) is held to the recorded one. */
  private redirectProblem(recorded: string | undefined, live: string | undefined): OAuthRefusal | undefined {
    const registered = this.registeredFor(recorded);
    if (registered === undefined) return undefined;
    if (live === undefined && registered.length === 1) return undefined;
    if (live !== undefined && registered.includes(live)) return undefined;
    return {
      kind: 'oauth-redirect-uri',
      error: 'invalid_request',
      message:
        live === undefined
          ? `your client asked for authorization without redirect_uri, having registered ${registered.length}: with more than one registered, the request MUST name one`
          : `your client's redirect_uri ${JSON.stringify(live)} is not one it registered (${registered.join(', ')})`,
    };
  }

  /** The resource of a request: MUST be there and identify the MCP server (its URL, or a URL of the
   *  same origin whose path leads to it); the most specific, without a trailing slash, SHOULD. */
  resourceProblem(recorded: string | undefined, live: string | undefined, request: string): OAuthRefusal | undefined {
    if (recorded === undefined) return undefined;
    const expected = this.fill(recorded);
    if (live === expected) return undefined;
    const refusal = (said: string): OAuthRefusal => ({
      kind: 'oauth-resource',
      error: 'invalid_target',
      message: `your client's ${request} request ${said}: it MUST name the MCP server, whose canonical URI is ${expected}`,
    });
    if (live === undefined) return refusal('has no resource');
    const url = URL.canParse(live) ? new URL(live) : undefined;
    const server = new URL(expected);
    if (url === undefined || url.hash !== '' || live.includes('#'))
      return refusal(`says resource ${JSON.stringify(live)}, not an absolute URI without a fragment`);
    const path = url.pathname.replace(/\/$/, '');
    if (url.origin !== server.origin || url.search !== '' || !(server.pathname === path || server.pathname.startsWith(`${path}/`)))
      return refusal(`says resource ${JSON.stringify(live)}, which is not the MCP server's URI`);
    this.advise(
      'oauth-resource-form',
      url.pathname !== '/' && url.pathname.endsWith('/')
        ? `your client's ${request} request says resource ${JSON.stringify(live)}, with a trailing slash: clients SHOULD use the form without it, ${expected}`
        : `your client's ${request} request says resource ${JSON.stringify(live)}: clients SHOULD name the most specific URI they can for the MCP server, ${expected}`,
    );
    return undefined;
  }

  /** The scopes asked, beside those the spec's scope selection picks (advice where they differ). */
  private scopeAdvice(scope: string | undefined, due: ScopesDue | undefined): void {
    if (due === undefined || due.authoritative || due.scopes.every((one) => words(scope).includes(one))) return;
    this.advise(
      'oauth-scope-selection',
      `your client asked for authorization with scope ${JSON.stringify(scope ?? '')}; ${due.from} names ${JSON.stringify(due.scopes.join(' '))}: clients SHOULD ask for those`,
    );
  }

  /** Whether the request carries an access token the player issued: sent to the authorization server,
   *  a party it is not meant for. */
  tokenLeaked(asked: Asked): OAuthRefusal | undefined {
    const [, scheme = '', token = ''] = /^(\S+)\s+(\S+)/.exec(asked.authorization ?? '') ?? [];
    if (scheme.toLowerCase() !== 'bearer' || this.roleOfValue(token) !== 'access-token') return undefined;
    return {
      kind: 'oauth-token-leaked',
      error: 'invalid_request',
      message: `your client sent its access token to the authorization server (${asked.method} ${asked.path}): the token is for the MCP server only, sent nowhere else`,
    };
  }
}

/** The credentials of an HTTP Basic Authorization header, each form-decoded (OAuth 2.1 2.4.1). */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  const [, scheme = '', encoded = ''] = /^(\S+)\s+(\S+)/.exec(header ?? '') ?? [];
  if (scheme.toLowerCase() !== 'basic') return undefined;
  const text = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replaceAll('+', ' '));
    } catch {
      return part;
    }
  };
  return colon < 0 ? { id: decode(text), secret: '' } : { id: decode(text.slice(0, colon)), secret: decode(text.slice(colon + 1)) };
}

/** A space-separated list (scope), as its words. */
export function words(text: string | undefined): string[] {
  return (text ?? '').split(' ').filter((word) => word !== '');
}
