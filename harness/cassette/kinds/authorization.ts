// The diagnosis kinds of the authorization (OAuth): discovery, registration, the authorization and
// token requests, refresh, and where the tokens go. Each but the advice is marked a refusal (the
// authorization server answers most with an OAuth error): a case shows its hint, not the output's.
import { COURSE, type KindRow } from '../../exchange/rows.ts';

const AUTHORIZATION = '2025-11-25 basic/authorization';
const OAUTH = 'OAuth 2.1';

export const AUTHORIZATION_KINDS = {
  'oauth-pkce': {
    what: 'an authorization request without `code_challenge`, with a method other than S256, or with the challenge of an earlier one (answered 400)',
    level: 'must',
    source: `${AUTHORIZATION}#authorization-code-protection`,
    words:
      'MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2 … MCP clients MUST use the S256 code challenge method when technically capable.',
    refusal: true,
    hint: ['make a code_verifier, send its S256 hash as code_challenge with code_challenge_method=S256 in the authorization request'],
    example: 'your client asked for the code_challenge_method "plain": MCP clients MUST use S256',
  },
  'oauth-pkce-unsupported': {
    what: 'a request past an authorization server whose metadata has no S256 in `code_challenge_methods_supported` (answered 400)',
    level: 'must',
    source: `${AUTHORIZATION}#authorization-code-protection`,
    words:
      'MCP clients MUST verify PKCE support before proceeding with authorization … If code_challenge_methods_supported is absent, the authorization server does not support PKCE and MCP clients MUST refuse to proceed.',
    refusal: true,
    hint: [
      "read code_challenge_methods_supported in the authorization server's metadata, found by RFC 8414 or by OpenID Connect discovery alike: without S256 there, stop before registering or asking for authorization",
    ],
    example:
      'your client went on (POST /authorization-server/register) with an authorization server whose metadata does not advertise S256 in code_challenge_methods_supported: it MUST refuse to proceed',
  },
  'oauth-verifier': {
    what: 'a token request whose `code_verifier` does not hash (S256) to the challenge sent, or is not 43 to 128 unreserved characters',
    level: 'must',
    source: `${AUTHORIZATION}#authorization-code-protection`,
    words:
      'MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2. (OAuth 2.1 4.1.1: the code_verifier is a unique high-entropy cryptographically random string generated for each authorization request, using the unreserved characters … with a minimum length of 43 characters and a maximum length of 128 characters; the server hashes it and compares it with the code_challenge, and refuses the token when they differ.)',
    refusal: true,
    hint: ['keep the code_verifier the challenge was made from, and send that one with the token request'],
    example:
      "your client's code_verifier does not hash (S256) to the code_challenge it sent with the authorization request: send the verifier that challenge was made from",
  },
  'oauth-code': {
    what: 'a token request with a code never given, or one already used',
    level: 'must',
    source: `${OAUTH} #code-token-extension`,
    words:
      'The authorization server MUST return an access token only once for a given authorization code. If a second valid token request is made with the same authorization code as a previously successful token request, the authorization server MUST deny the request. (The code is the one the redirect carried: "code: REQUIRED. The authorization code received from the authorization server.")',
    refusal: true,
    hint: ['trade the code of the redirect for a token once: a second token request with it is refused'],
    example: 'your client used the authorization code a second time: a code is good for one token request',
  },
  'oauth-refresh-token': {
    what: 'a refresh with another refresh token than the one given, another grant where the recording refreshed, or a refresh token the authorization server refused sent again (answered 400)',
    level: 'course',
    source: COURSE,
    words:
      'a client whose access token expired refreshes it with the refresh token the authorization server gave, once, before it asks for authorization again (OAuth 2.1 4.3: the refresh_token parameter is the refresh token issued to the client)',
    refusal: true,
    hint: [
      'keep the refresh_token of the token response; on a 401 invalid_token, POST grant_type=refresh_token with it (and resource) before anything else',
      'refresh once: when that is refused (invalid_grant), ask for authorization again, and send that refresh token no more',
    ],
    example:
      "your client's token request has a refresh_token the authorization server never gave: send grant_type=refresh_token with the refresh token of the last token response",
  },
  'oauth-refresh-rotation': {
    what: 'a refresh with a refresh token the player gave that a later token response replaced (the authorization server rotated it, RFC 6749 6; answered 400 `invalid_grant`, as oidc-provider answers a rotated refresh token sent again)',
    level: 'must',
    source: 'RFC 6749 6',
    words:
      'The authorization server MAY issue a new refresh token, in which case the client MUST discard the old refresh token and replace it with the new refresh token. (2026-07-28 basic/authorization/security-considerations: For public clients, authorization servers MUST rotate refresh tokens as described in OAuth 2.1 Section 4.3.1.)',
    refusal: true,
    hint: [
      'a token response that carries a refresh_token replaces the one you hold: keep the new one for the next refresh, and drop the old (a token response without one leaves yours as it is)',
    ],
    example:
      'your client refreshed with a refresh token that a later token response replaced (it carried a new refresh_token): the client MUST discard the old refresh token and refresh with the new one; …',
  },
  'oauth-resource': {
    what: 'an authorization or token request without `resource`, or naming another server, or a token request naming another resource than its authorization request',
    level: 'must',
    source: `${AUTHORIZATION}#resource-parameter-implementation`,
    words:
      'The resource parameter: MUST be included in both authorization requests and token requests. MUST identify the MCP server that the client intends to use the token with. (Its canonical URI, or a less specific one of the same origin: the spec lists https://mcp.example.com as valid.)',
    refusal: true,
    hint: ["send resource=<the MCP server's URL> in both the authorization request and the token request"],
    example: "your client's authorization request has no resource: it MUST name the MCP server, whose canonical URI is http://127.0.0.1:41234/mcp",
  },
  'oauth-redirect-uri': {
    what: "a registration without `redirect_uris`; a `redirect_uri` not registered (or none where more than one is); a token request's that differs from where the authorization request's redirect went",
    level: 'must',
    source: `${AUTHORIZATION}#open-redirection`,
    words:
      "MCP clients MUST have redirect URIs registered with the authorization server. (OAuth 2.1 #multiple-redirect-uris: If multiple redirect URIs have been registered to a client, the client MUST include a redirect URI with the authorization request … If only a single redirect URI has been registered to a client, the redirect_uri request parameter is optional. #redirect-uri-in-token-request: an authorization server MUST allow clients to send the redirect_uri parameter in the token request, and MUST enforce the parameter as described in RFC6749: identical to the authorization request's.)",
    refusal: true,
    hint: [
      'register your redirect_uri (redirect_uris in the registration), and ask for authorization with it; if you send one with the token request, send that same one',
    ],
    example: 'your client\'s redirect_uri "http://127.0.0.1:1/elsewhere" is not one it registered (http://127.0.0.1:8976/callback)',
  },
  'oauth-token-redirect-uri': {
    what: 'a token request without the `redirect_uri` its authorization request named (served: OAuth 2.1 removed it); advice',
    level: 'compatible',
    source: `${OAUTH} #redirect-uri-in-token-request`,
    words:
      'In OAuth 2.1, authorization code injection is prevented by the code_challenge and code_verifier parameters, making the inclusion of the redirect_uri parameter serve no purpose in the token request. As such, it has been removed. … the authorization server MUST allow clients to send the redirect_uri parameter in the token request, and MUST enforce the parameter as described in RFC6749 … A client following only the OAuth 2.1 recommendations will not send the redirect_uri in the token request, and therefore will not be compatible with an authorization server that expects the parameter in the token request.',
    hint: ['servers that also serve OAuth 2.0 clients ask for the redirect_uri again in the token request: sending it works with both'],
    example:
      "your client's token request has no redirect_uri: OAuth 2.1 removed it, but an authorization server that also serves OAuth 2.0 clients enforces it …",
  },
  'oauth-resource-form': {
    what: 'a `resource` of the same origin that names the MCP server less specifically (its origin), or with a trailing slash (served); advice',
    level: 'should',
    source: `${AUTHORIZATION}#canonical-server-uri`,
    words:
      'MCP clients SHOULD provide the most specific URI that they can for the MCP server they intend to access … implementations SHOULD consistently use the form without the trailing slash for better interoperability unless the trailing slash is semantically significant for the specific resource.',
    hint: ["send the MCP server's URL as it is (the one you connect to, without a trailing slash) as resource"],
    example:
      'your client\'s authorization request says resource "http://127.0.0.1:41234": clients SHOULD name the most specific URI they can for the MCP server, http://127.0.0.1:41234/mcp',
  },
  'oauth-client-auth': {
    what: 'a token request that does not authenticate as the registration says (`client_secret_basic`, `client_secret_post`, `none`), or uses two methods (answered 401 `invalid_client`)',
    level: 'must',
    source: `${OAUTH} #token-endpoint-client-authentication`,
    words:
      'Confidential clients MUST authenticate with the authorization server as described in Section 3.2.1 … The client MUST NOT use more than one authentication method in each request. (#code-token-extension: client_id: REQUIRED, if the client is not authenticating with the authorization server. RFC 7591 2: token_endpoint_auth_method, the authentication method the registration gives: client_secret_basic, client_secret_post or none.)',
    refusal: true,
    hint: [
      "authenticate at the token endpoint as the registration's token_endpoint_auth_method says: client_secret_basic in the Authorization: Basic header, client_secret_post as client_id and client_secret in the form, none with client_id alone; one way only",
    ],
    example:
      "your client's token request has no client_secret: its registration says token_endpoint_auth_method client_secret_post, so the secret goes in the form",
  },
  'oauth-discovery': {
    what: "a metadata request at a well-known URL the recording never answered: out of the spec's order, or built wrong (answered 404)",
    level: 'must',
    source: `${AUTHORIZATION}#protected-resource-metadata-discovery-requirements`,
    words:
      'MCP clients MUST support both discovery mechanisms and use the resource metadata URL from the parsed WWW-Authenticate headers when present; otherwise, they MUST fall back to constructing and requesting the well-known URIs in the order listed above. (Authorization server metadata: MCP clients MUST attempt multiple well-known endpoints, and MUST try endpoints in the following priority order, RFC 8414 3.1 and OpenID Connect Discovery.)',
    refusal: true,
    hint: [
      "take the resource metadata URL from the 401's WWW-Authenticate (resource_metadata); without one, try /.well-known/oauth-protected-resource<path>, then /.well-known/oauth-protected-resource",
      "for the authorization server's metadata, try the well-known URLs in the spec's order (RFC 8414's, then OpenID Connect's), the well-known part between the host and the issuer's path",
    ],
    example:
      'your client sent GET /authorization-server/.well-known/oauth-authorization-server to the authorization server, which the recording never answered; it has metadata at …',
  },
  'oauth-scope': {
    what: 'an authorization request after a challenge naming scopes (`scope="…"`) without all of them (answered 400 `invalid_scope`)',
    level: 'must',
    source: `${AUTHORIZATION}#protected-resource-metadata-discovery-requirements`,
    words:
      'Clients MUST NOT assume any particular set relationship between the challenged scope set and scopes_supported. Clients MUST treat the scopes provided in the challenge as authoritative for satisfying the current request.',
    refusal: true,
    hint: ['after a 403 insufficient_scope, ask for authorization again with every scope its WWW-Authenticate names (scope="…")'],
    example:
      'your client asked again for authorization with scope "mcp:tools", after the 403\'s WWW-Authenticate named "mcp:tools mcp:admin": clients MUST treat the scopes of the challenge as authoritative',
  },
  'oauth-scope-selection': {
    what: "an authorization request without the scopes the spec's selection picks where no challenge named any (the resource metadata's `scopes_supported`; served); advice",
    level: 'should',
    source: `${AUTHORIZATION}#scope-selection-strategy`,
    words:
      'MCP clients SHOULD follow the principle of least privilege by requesting only the scopes necessary for their intended operations … SHOULD follow this priority order for scope selection: 1. Use scope parameter from the initial WWW-Authenticate header in the 401 response, if provided 2. If scope is not available, use all scopes defined in scopes_supported from the Protected Resource Metadata document.',
    hint: ["ask for the scopes of the 401's WWW-Authenticate; without any there, those of the protected resource metadata's scopes_supported"],
    example:
      'your client asked for authorization with scope "openid"; the protected resource metadata\'s scopes_supported names "mcp:tools": clients SHOULD ask for those',
  },
  'oauth-metadata-mismatch': {
    what: 'a request past metadata that names another resource (RFC 9728 3.3) or another issuer (RFC 8414 3.3) than it was asked for (answered 400)',
    level: 'must',
    source: 'RFC 9728 3.3',
    words:
      "The resource value returned MUST be identical to the protected resource's resource identifier value into which the well-known resource metadata URI path suffix was inserted … If these values are not identical, the data contained in the response MUST NOT be used. (2026-07-28 basic/authorization/authorization-server-discovery: the issuer value in the document MUST be identical to the issuer identifier used to construct the well-known URL. If they differ, the client MUST NOT use the metadata.)",
    refusal: true,
    hint: [
      "compare the protected resource metadata's resource with the URL you read it for, and the authorization server metadata's issuer with the issuer you asked: stop where they differ",
    ],
    example:
      "your client went on (POST /authorization-server/reg) though the authorization server's metadata names the issuer https://another-authorization-server.example, … : such metadata MUST NOT be used",
  },
  'oauth-registration-refused': {
    what: 'a request to the authorization server after it refused the registration (answered 401)',
    level: 'must',
    source: '2026-07-28 basic/authorization/client-registration',
    words:
      'MCP clients MUST be prepared to handle registration failures due to redirect URI constraints when authorization servers implement OIDC. When a registration request is rejected, clients SHOULD surface a meaningful error to the user or developer. (A client refused holds no client_id: it asks for no authorization there.)',
    refusal: true,
    hint: ['a refused registration (an error with error and error_description) ends the flow there: say why, and ask for no authorization'],
    example:
      'your client went on (GET /authorization-server/auth) after the authorization server refused its registration: it holds no client_id there; stop, and say why',
  },
  'oauth-application-type': {
    what: 'a registration without `application_type` (answered 400 `invalid_client_metadata`, as RFC 7591 3.2.2 answers metadata a server will not take)',
    level: 'course',
    source: COURSE,
    words:
      'a registration names its application_type (2026-07-28 basic/authorization/client-registration: MCP clients MUST specify an appropriate application_type during Dynamic Client Registration. Omitting it defaults to "web" under OIDC, which can conflict with native-style redirect URIs; the course holds every client to it, since its clients speak 2026-07-28 and register before they know which revision the server speaks)',
    refusal: true,
    hint: [
      'register with application_type: "native" (a client whose redirect is on localhost); an OpenID Connect server takes a registration without it as "web", and may refuse a localhost redirect',
    ],
    example:
      'your client registered without application_type: MCP clients MUST specify an appropriate one (2026-07-28); a client with a localhost redirect is "native"',
  },
  'oauth-token-leaked': {
    what: 'an access token sent to the authorization server (answered 400)',
    level: 'must',
    source: 'RFC 6750 5.3',
    words:
      'Client implementations MUST ensure that bearer tokens are not leaked to unintended parties, as they will be able to use them to gain access to protected resources. (MCP 2025-11-25 basic/authorization#token-requirements: the token goes to the MCP server, in the Authorization header of its requests.)',
    refusal: true,
    hint: ['the access token goes to the MCP server only: send no Authorization: Bearer header to the authorization server'],
    example:
      'your client sent its access token to the authorization server (POST /authorization-server/token): the token is for the MCP server only, sent nowhere else',
  },
  'oauth-client': {
    what: "an authorization request under another `client_id` than the one registered (or than its metadata document's URL)",
    level: 'course',
    source: COURSE,
    words: 'an authorization request names the client_id the authorization server registered the client with (OAuth 2.1 4.1.1, where client_id is REQUIRED)',
    refusal: true,
    example: 'your client asked for authorization as client_id "x", not the client_id it was registered with',
  },
  'oauth-client-metadata': {
    what: 'a registration (RFC 7591) where the authorization server takes Client ID Metadata Documents and the recording registered nothing (answered 400)',
    level: 'course',
    source: COURSE,
    words:
      "a client that has a Client ID Metadata Document uses its URL as client_id where the authorization server's metadata says client_id_metadata_document_supported, and registers nothing (the spec's order, which clients supporting all options SHOULD follow: a pre-registered client_id, then a Client ID Metadata Document, then Dynamic Client Registration as a fallback)",
    refusal: true,
    hint: [
      "where the authorization server's metadata says client_id_metadata_document_supported, the clientMetadataUrl you were given is your client_id: register nothing",
    ],
    example: 'your client registered (RFC 7591) with an authorization server that takes its Client ID Metadata Document: …',
  },
  'oauth-registration-kept': {
    what: 'a registration (RFC 7591) where the client holds one for the issuer (the recording registered nothing; answered 400), or an authorization request under a client_id it did not register with this authorization server, where the recording registered (answered 401)',
    level: 'course',
    source: COURSE,
    words:
      "a client keeps each registration it makes under the issuer of the authorization server that made it, uses it there on a later run and registers no more, and never uses it at another authorization server, where it registers anew (2026-07-28 basic/authorization/client-registration: clients that persist client credentials obtained via Dynamic Client Registration MUST associate those credentials with the specific authorization server that issued them, keyed by the authorization server's issuer identifier … MUST NOT reuse client credentials from a different authorization server and MUST re-register; the spec's order, which clients SHOULD follow, puts the client information held first; 2025-11-25 says neither, and the course asks both of every client)",
    refusal: true,
    hint: [
      'keep what a registration answered in the registrations you were given, under the issuer of the authorization server that answered it; on the next run, look there first, by the issuer you discovered',
      'a registration kept under another issuer is not for this authorization server: register, and keep that one too',
    ],
    example:
      'your client registered (RFC 7591) again with an authorization server it holds a registration for (client_id mcp-course-client-registered-earlier, …): use the registration kept, and register only where none is held',
  },
  'oauth-state': {
    what: 'an authorization request without `state`; advice',
    level: 'should',
    source: `${AUTHORIZATION}#open-redirection`,
    words:
      'MCP clients SHOULD use and verify state parameters in the authorization code flow and discard any results that do not include or have a mismatch with the original state.',
    example: 'your client asked for authorization without state: it SHOULD send one and check that it comes back',
  },
  'oauth-iss-unchecked': {
    what: 'a token request with the code of a redirect whose `iss` the case forged or took out, where the issuer names itself (answered 400)',
    level: 'course',
    source: COURSE,
    words:
      "a redirect whose iss is not the issuer the client asked, or that has none where the issuer's metadata says authorization_response_iss_parameter_supported, is discarded, its code never traded (2026-07-28 basic/authorization: MCP clients MUST apply the validation in RFC9207 Section 2.4 before transmitting the authorization code to any token endpoint, and MUST NOT apply scheme or host case folding, default-port elision, trailing-slash, or percent-encoding normalization before comparison; the course holds clients of 2025-11-25 to it too)",
    refusal: true,
    hint: [
      "compare the redirect's iss with the issuer whose metadata you read (simple string comparison: no URL parsing, no trailing slash dropped); without iss, reject it where that metadata says authorization_response_iss_parameter_supported",
    ],
    example:
      'your client traded the code of a redirect whose iss is "https://attacker.example", not the issuer it asked (…): compare iss with the issuer, and discard the redirect when they differ (a mix-up, RFC 9207)',
  },
  'oauth-state-unchecked': {
    what: 'a token request with the code of a redirect whose state the case forged (answered 400)',
    level: 'course',
    source: COURSE,
    words:
      'a redirect whose state is not the one the client sent is discarded, its code never traded (the spec: MCP clients SHOULD use and verify state parameters … and discard any results that do not include or have a mismatch with the original state; the course requires it)',
    refusal: true,
    hint: ["compare the redirect's state with the one you sent, and discard the redirect (its code too) when they differ"],
    example: 'your client traded the code of a redirect whose state was not the one it sent: discard such a redirect, code and all',
  },
  'oauth-secret-printed': {
    what: "the program printed (stdout or stderr) a token, code, client secret or verifier of the session's authorization; checked once it ended",
    level: 'course',
    source: COURSE,
    words:
      'a program prints no token, code, client secret or verifier, on stdout or stderr (the spec, 2025-11-25 basic/authorization#token-theft: attackers who obtain tokens stored by the client, or tokens cached or logged … can access protected resources; clients MUST implement secure token storage)',
    refusal: true,
    hint: ['print what the flow found (the endpoints, the scopes), never a token, a code, a secret or a verifier: not in a log line either'],
    example: "your program printed the access token of its authorization: a token, a code or a secret stays in the client's memory, never on stdout or stderr",
  },
  'oauth-token-in-query': {
    what: "an access token in a request's URL (answered 401)",
    level: 'must',
    source: `${AUTHORIZATION}#token-requirements`,
    words: 'Access tokens MUST NOT be included in the URI query string.',
    refusal: true,
    hint: ['send the access token as Authorization: Bearer <token>, never in the URL'],
    example: 'your client sent POST /mcp with the access token in its URL: it goes in the Authorization header, never the query',
  },
} satisfies Record<string, KindRow>;
