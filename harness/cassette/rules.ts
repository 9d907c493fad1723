// The rule behind each diagnosis, in the spec's own words: a MUST broken is an error; a SHOULD not
// followed is advice (shown and counted, the case still passes); what the course asks beyond the
// spec (that a client does what its case asks, in order) is the course's and is said to be. One
// table; docs/cassettes.md shows it (a test keeps the two the same).
import type { DiagnosisKind } from './diagnosis.ts';

/** `must`: the spec requires it (an error); `should`: the spec recommends it (advice); `compatible`:
 *  the spec allows it, but servers it also names (OAuth 2.0's) may refuse it (advice); `course`: the
 *  course asks it, beyond the spec (an error, marked as the course's). */
export type RuleLevel = 'must' | 'should' | 'compatible' | 'course';

export interface Rule {
  level: RuleLevel;
  /** Where the words are: `<revision> <page>#<section>` of the spec (modelcontextprotocol.io/specification/…),
   *  `OAuth 2.1 #<section>` of the draft it cites (draft-ietf-oauth-v2-1-13), `RFC <n> <section>`, or
   *  the course's own page. */
  source: string;
  /** The rule, quoted (the spec's words) or said (the course's). */
  words: string;
}

const LIFECYCLE = '2025-11-25 basic/lifecycle';
const BASE = '2025-11-25 basic';
const TRANSPORTS = '2025-11-25 basic/transports';
const STATELESS_BASE = '2026-07-28 basic';
const STATELESS_HTTP = '2026-07-28 basic/transports/streamable-http';
const COURSE = 'docs/course.md';
const AS_RECORDED = 'a case plays one recorded session: the client sends the messages its program.ts calls ask for, in their order';

const AUTHORIZATION = '2025-11-25 basic/authorization';
const OAUTH = 'OAuth 2.1';

export const RULES: Record<DiagnosisKind, Rule> = {
  'unexpected-method': { level: 'course', source: COURSE, words: AS_RECORDED },
  'params-differ': { level: 'course', source: COURSE, words: AS_RECORDED },
  'out-of-order': { level: 'course', source: COURSE, words: AS_RECORDED },
  exhausted: { level: 'course', source: COURSE, words: AS_RECORDED },
  unused: { level: 'course', source: COURSE, words: AS_RECORDED },
  'before-initialize-result': {
    level: 'should',
    source: `${LIFECYCLE}#initialization`,
    words: 'The client SHOULD NOT send requests other than pings before the server has responded to the initialize request.',
  },
  'initialized-too-early': {
    level: 'must',
    source: `${LIFECYCLE}#initialization`,
    words: 'After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations.',
  },
  'invalid-message': {
    level: 'must',
    source: `${BASE}#messages`,
    words:
      'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. (The schema of the negotiated version says what each message holds.)',
  },
  'not-json': {
    level: 'must',
    source: `${TRANSPORTS}#stdio`,
    words: "The client MUST NOT write anything to the server's stdin that is not a valid MCP message.",
  },
  'line-too-long': { level: 'course', source: COURSE, words: 'a message is at most 16 MiB on one line: the player reads no further' },
  'id-reused': {
    level: 'must',
    source: `${BASE}#requests`,
    words:
      'The request ID MUST NOT have been previously used by the requestor within the same session. (2026-07-28: the request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for.)',
  },
  'http-accept': {
    level: 'must',
    source: `${TRANSPORTS}#sending-messages-to-the-server`,
    words: 'The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types.',
  },
  'http-content-type': {
    level: 'course',
    source: COURSE,
    words: "a POST's body is declared Content-Type: application/json (the recorded server, the official SDK's, refuses others with 415)",
  },
  'http-session': {
    level: 'must',
    source: `${TRANSPORTS}#session-management`,
    words:
      'If an MCP-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the MCP-Session-Id header on all of their subsequent HTTP requests. When a client receives HTTP 404 in response to a request containing an MCP-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.',
  },
  'http-protocol-version': {
    level: 'must',
    source: `${TRANSPORTS}#protocol-version-header`,
    words: 'If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server.',
  },
  'http-method': { level: 'course', source: COURSE, words: 'the client talks to the URL it was given, with POST, GET and DELETE' },
  'http-auth': {
    level: 'must',
    source: '2025-11-25 basic/authorization#token-requirements',
    words:
      'Authorization MUST be included in every HTTP request from client to server, even if they are part of the same logical session. (The course: the headers of the config go on every request.)',
  },
  'http-session-left-open': {
    level: 'should',
    source: `${TRANSPORTS}#session-management`,
    words:
      'Clients that no longer need a particular session (e.g., because the user is leaving the client application) SHOULD send an HTTP DELETE to the MCP endpoint with the MCP-Session-Id header, to explicitly terminate the session.',
  },
  'http-retry': {
    level: 'must',
    source: `${TRANSPORTS}#sending-messages-to-the-server`,
    words:
      'If the server does close the connection prior to terminating the SSE stream, it SHOULD send an SSE event with a standard retry field before closing the connection. The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect.',
  },
  'http-resume': {
    level: 'should',
    source: `${TRANSPORTS}#resumability-and-redelivery`,
    words:
      'If the client wishes to resume after a disconnection (whether due to network failure or server-initiated closure), it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID header to indicate the last event ID it received.',
  },
  'meta-missing': {
    level: 'must',
    source: `${STATELESS_BASE}#meta`,
    words:
      'Client requests carry the following io.modelcontextprotocol/* fields in _meta; fields marked as required MUST be included on every request. (A server rejects a request missing one with -32602, Invalid params.)',
  },
  'roots-answer': {
    level: 'must',
    source: '2025-11-25 client/roots#capabilities',
    words:
      'Clients that support roots MUST declare the roots capability during initialization. (Data types, Root:) uri: Unique identifier for the root. This MUST be a file:// URI in the current specification.',
  },
  'roots-error-code': {
    level: 'should',
    source: '2025-11-25 client/roots#error-handling',
    words: 'Clients SHOULD return standard JSON-RPC errors for common failure cases: Client does not support roots: -32601 (Method not found)',
  },
  'meta-client-info-missing': {
    level: 'should',
    source: `${STATELESS_BASE}#meta`,
    words: 'Clients SHOULD include io.modelcontextprotocol/clientInfo on every request unless specifically configured not to do so.',
  },
  'http-header-mismatch': {
    level: 'must',
    source: `${STATELESS_HTTP}#request-metadata`,
    words:
      'The client MUST include the request metadata headers; their values MUST match the request body, encoded where a value cannot be a plain ASCII header value (=?base64?…?=); the server MUST reject a mismatch with 400 Bad Request and a HeaderMismatch error.',
  },
  'stateless-session': {
    level: 'should',
    source: `${STATELESS_HTTP}#earlier-streamable-http-revisions`,
    words:
      'An Mcp-Session-Id header on a request: ignore it, and do not mint or echo session IDs. (What a server of this revision SHOULD do: the revision has no sessions.)',
  },
  'stateless-initialize': {
    level: 'course',
    source: COURSE,
    words: 'connect() probes with server/discover first, and falls back to initialize only where the server does not know the revision',
  },
  'input-required-retry': {
    level: 'must',
    source: '2026-07-28 basic/patterns/mrtr',
    words:
      'If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request. … The JSON-RPC id MUST be different between the initial request and the retry, as they are independent requests.',
  },
  'oauth-pkce': {
    level: 'must',
    source: `${AUTHORIZATION}#authorization-code-protection`,
    words:
      'MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2 … MCP clients MUST use the S256 code challenge method when technically capable.',
  },
  'oauth-pkce-unsupported': {
    level: 'must',
    source: `${AUTHORIZATION}#authorization-code-protection`,
    words:
      'MCP clients MUST verify PKCE support before proceeding with authorization … If code_challenge_methods_supported is absent, the authorization server does not support PKCE and MCP clients MUST refuse to proceed.',
  },
  'oauth-verifier': {
    level: 'must',
    source: `${AUTHORIZATION}#authorization-code-protection`,
    words:
      'MCP clients MUST implement PKCE according to OAuth 2.1 Section 7.5.2. (OAuth 2.1 4.1.1: the code_verifier is a unique high-entropy cryptographically random string generated for each authorization request, using the unreserved characters … with a minimum length of 43 characters and a maximum length of 128 characters; the server hashes it and compares it with the code_challenge, and refuses the token when they differ.)',
  },
  'oauth-code': {
    level: 'must',
    source: `${OAUTH} #code-token-extension`,
    words:
      'The authorization server MUST return an access token only once for a given authorization code. If a second valid token request is made with the same authorization code as a previously successful token request, the authorization server MUST deny the request. (The code is the one the redirect carried: "code: REQUIRED. The authorization code received from the authorization server.")',
  },
  'oauth-refresh-token': {
    level: 'course',
    source: COURSE,
    words:
      'a client whose access token expired refreshes it with the refresh token the authorization server gave, once, before it asks for authorization again (OAuth 2.1 4.3: the refresh_token parameter is the refresh token issued to the client)',
  },
  'oauth-refresh-rotation': {
    level: 'must',
    source: 'RFC 6749 6',
    words:
      'The authorization server MAY issue a new refresh token, in which case the client MUST discard the old refresh token and replace it with the new refresh token. (2026-07-28 basic/authorization/security-considerations: For public clients, authorization servers MUST rotate refresh tokens as described in OAuth 2.1 Section 4.3.1.)',
  },
  'oauth-resource': {
    level: 'must',
    source: `${AUTHORIZATION}#resource-parameter-implementation`,
    words:
      'The resource parameter: MUST be included in both authorization requests and token requests. MUST identify the MCP server that the client intends to use the token with. (Its canonical URI, or a less specific one of the same origin: the spec lists https://mcp.example.com as valid.)',
  },
  'oauth-resource-form': {
    level: 'should',
    source: `${AUTHORIZATION}#canonical-server-uri`,
    words:
      'MCP clients SHOULD provide the most specific URI that they can for the MCP server they intend to access … implementations SHOULD consistently use the form without the trailing slash for better interoperability unless the trailing slash is semantically significant for the specific resource.',
  },
  'oauth-redirect-uri': {
    level: 'must',
    source: `${AUTHORIZATION}#open-redirection`,
    words:
      "MCP clients MUST have redirect URIs registered with the authorization server. (OAuth 2.1 #multiple-redirect-uris: If multiple redirect URIs have been registered to a client, the client MUST include a redirect URI with the authorization request … If only a single redirect URI has been registered to a client, the redirect_uri request parameter is optional. #redirect-uri-in-token-request: an authorization server MUST allow clients to send the redirect_uri parameter in the token request, and MUST enforce the parameter as described in RFC6749: identical to the authorization request's.)",
  },
  'oauth-token-redirect-uri': {
    level: 'compatible',
    source: `${OAUTH} #redirect-uri-in-token-request`,
    words:
      'In OAuth 2.1, authorization code injection is prevented by the code_challenge and code_verifier parameters, making the inclusion of the redirect_uri parameter serve no purpose in the token request. As such, it has been removed. … the authorization server MUST allow clients to send the redirect_uri parameter in the token request, and MUST enforce the parameter as described in RFC6749 … A client following only the OAuth 2.1 recommendations will not send the redirect_uri in the token request, and therefore will not be compatible with an authorization server that expects the parameter in the token request.',
  },
  'oauth-client-auth': {
    level: 'must',
    source: `${OAUTH} #token-endpoint-client-authentication`,
    words:
      'Confidential clients MUST authenticate with the authorization server as described in Section 3.2.1 … The client MUST NOT use more than one authentication method in each request. (#code-token-extension: client_id: REQUIRED, if the client is not authenticating with the authorization server. RFC 7591 2: token_endpoint_auth_method, the authentication method the registration gives: client_secret_basic, client_secret_post or none.)',
  },
  'oauth-discovery': {
    level: 'must',
    source: `${AUTHORIZATION}#protected-resource-metadata-discovery-requirements`,
    words:
      'MCP clients MUST support both discovery mechanisms and use the resource metadata URL from the parsed WWW-Authenticate headers when present; otherwise, they MUST fall back to constructing and requesting the well-known URIs in the order listed above. (Authorization server metadata: MCP clients MUST attempt multiple well-known endpoints, and MUST try endpoints in the following priority order, RFC 8414 3.1 and OpenID Connect Discovery.)',
  },
  'oauth-scope': {
    level: 'must',
    source: `${AUTHORIZATION}#protected-resource-metadata-discovery-requirements`,
    words:
      'Clients MUST NOT assume any particular set relationship between the challenged scope set and scopes_supported. Clients MUST treat the scopes provided in the challenge as authoritative for satisfying the current request.',
  },
  'oauth-scope-selection': {
    level: 'should',
    source: `${AUTHORIZATION}#scope-selection-strategy`,
    words:
      'MCP clients SHOULD follow the principle of least privilege by requesting only the scopes necessary for their intended operations … SHOULD follow this priority order for scope selection: 1. Use scope parameter from the initial WWW-Authenticate header in the 401 response, if provided 2. If scope is not available, use all scopes defined in scopes_supported from the Protected Resource Metadata document.',
  },
  'oauth-metadata-mismatch': {
    level: 'must',
    source: 'RFC 9728 3.3',
    words:
      "The resource value returned MUST be identical to the protected resource's resource identifier value into which the well-known resource metadata URI path suffix was inserted … If these values are not identical, the data contained in the response MUST NOT be used. (2026-07-28 basic/authorization/authorization-server-discovery: the issuer value in the document MUST be identical to the issuer identifier used to construct the well-known URL. If they differ, the client MUST NOT use the metadata.)",
  },
  'oauth-application-type': {
    level: 'course',
    source: COURSE,
    words:
      'a registration names its application_type (2026-07-28 basic/authorization/client-registration: MCP clients MUST specify an appropriate application_type during Dynamic Client Registration. Omitting it defaults to "web" under OIDC, which can conflict with native-style redirect URIs; the course holds every client to it, since its clients speak 2026-07-28 and register before they know which revision the server speaks)',
  },
  'oauth-registration-refused': {
    level: 'must',
    source: '2026-07-28 basic/authorization/client-registration',
    words:
      'MCP clients MUST be prepared to handle registration failures due to redirect URI constraints when authorization servers implement OIDC. When a registration request is rejected, clients SHOULD surface a meaningful error to the user or developer. (A client refused holds no client_id: it asks for no authorization there.)',
  },
  'oauth-token-leaked': {
    level: 'must',
    source: 'RFC 6750 5.3',
    words:
      'Client implementations MUST ensure that bearer tokens are not leaked to unintended parties, as they will be able to use them to gain access to protected resources. (MCP 2025-11-25 basic/authorization#token-requirements: the token goes to the MCP server, in the Authorization header of its requests.)',
  },
  'oauth-client': {
    level: 'course',
    source: COURSE,
    words: 'an authorization request names the client_id the authorization server registered the client with (OAuth 2.1 4.1.1, where client_id is REQUIRED)',
  },
  'oauth-client-metadata': {
    level: 'course',
    source: COURSE,
    words:
      "a client that has a Client ID Metadata Document uses its URL as client_id where the authorization server's metadata says client_id_metadata_document_supported, and registers nothing (the spec's order, which clients supporting all options SHOULD follow: a pre-registered client_id, then a Client ID Metadata Document, then Dynamic Client Registration as a fallback)",
  },
  'oauth-registration-kept': {
    level: 'course',
    source: COURSE,
    words:
      "a client keeps each registration it makes under the issuer of the authorization server that made it, uses it there on a later run and registers no more, and never uses it at another authorization server, where it registers anew (2026-07-28 basic/authorization/client-registration: clients that persist client credentials obtained via Dynamic Client Registration MUST associate those credentials with the specific authorization server that issued them, keyed by the authorization server's issuer identifier … MUST NOT reuse client credentials from a different authorization server and MUST re-register; the spec's order, which clients SHOULD follow, puts the client information held first; 2025-11-25 says neither, and the course asks both of every client)",
  },
  'oauth-state': {
    level: 'should',
    source: `${AUTHORIZATION}#open-redirection`,
    words:
      'MCP clients SHOULD use and verify state parameters in the authorization code flow and discard any results that do not include or have a mismatch with the original state.',
  },
  'oauth-state-unchecked': {
    level: 'course',
    source: COURSE,
    words:
      'a redirect whose state is not the one the client sent is discarded, its code never traded (the spec: MCP clients SHOULD use and verify state parameters … and discard any results that do not include or have a mismatch with the original state; the course requires it)',
  },
  'oauth-iss-unchecked': {
    level: 'course',
    source: COURSE,
    words:
      "a redirect whose iss is not the issuer the client asked, or that has none where the issuer's metadata says authorization_response_iss_parameter_supported, is discarded, its code never traded (2026-07-28 basic/authorization: MCP clients MUST apply the validation in RFC9207 Section 2.4 before transmitting the authorization code to any token endpoint, and MUST NOT apply scheme or host case folding, default-port elision, trailing-slash, or percent-encoding normalization before comparison; the course holds clients of 2025-11-25 to it too)",
  },
  'oauth-secret-printed': {
    level: 'course',
    source: COURSE,
    words:
      'a program prints no token, code, client secret or verifier, on stdout or stderr (the spec, 2025-11-25 basic/authorization#token-theft: attackers who obtain tokens stored by the client, or tokens cached or logged … can access protected resources; clients MUST implement secure token storage)',
  },
  'oauth-token-in-query': {
    level: 'must',
    source: `${AUTHORIZATION}#token-requirements`,
    words: 'Access tokens MUST NOT be included in the URI query string.',
  },
};

/** The rules a case decides by the program's output, not by what the player saw: where the course
 *  asks more than the spec, the output shows it (`authorizations`, `refreshes` of the authorization
 *  command). Their hints (stages/) quote them. */
export const OUTPUT_RULES: Record<string, Rule> = {
  'step-up-missing': {
    level: 'course',
    source: COURSE,
    words:
      'a request answered 403 insufficient_scope is answered with a step-up: the authorization again, for the scopes held and those the challenge names, then the request again (the spec: Clients SHOULD respond to these errors by requesting a new access token with an increased set of scopes via a step-up authorization flow or handle the errors in other, appropriate ways; the course asks the step-up)',
  },
  'refresh-missing': {
    level: 'course',
    source: COURSE,
    words:
      'a request answered 401 invalid_token while the client holds a refresh token is answered with one refresh, then the request again; the authorization again only when the refresh is refused (the spec asks no refresh: OAuth 2.1 4.3 makes it the way to a new token without the user, and the course asks it)',
  },
};

/** Whether a diagnosis of this kind fails its case (a MUST, or the course's rule) or is advice (a SHOULD). */
export function isAdvice(kind: DiagnosisKind): boolean {
  return RULES[kind].level === 'should' || RULES[kind].level === 'compatible';
}

/** The table docs/cassettes.md shows, as Markdown rows: the diagnoses, then the rules decided by the output. */
export function rulesTable(): string {
  const rows = [...Object.entries(RULES), ...Object.entries(OUTPUT_RULES).map(([kind, rule]) => [`${kind} (output)`, rule] as const)].map(
    ([kind, rule]) => `| \`${kind}\` | ${LEVEL_WORDS[rule.level]} | ${rule.source} | ${rule.words.replaceAll('|', '\\|')} |`,
  );
  return ['| diagnosis | level | where | the rule |', '|---|---|---|---|', ...rows].join('\n');
}

const LEVEL_WORDS: Record<RuleLevel, string> = {
  must: 'MUST: error',
  should: 'SHOULD: advice',
  compatible: 'allowed, not by every server: advice',
  course: "the course's: error",
};
