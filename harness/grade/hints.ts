// Why an output differs from expected.json, in words: each hint names one mistake and its fix.
// The rules here are those for any JSON output; each stage's own rules are in its module under
// harness/stages/. All of them read the comparison made in comparison.ts.
import { isDeepStrictEqual } from 'node:util';
import type { Diagnosis, DiagnosisKind } from '../cassette/diagnosis.ts';
import { isAdvice, RULES } from '../cassette/rules.ts';
import { kindOf } from '../cassette/model.ts';
import { lacksRequiredMeta } from '../cassette/stateless.ts';
import { bothValues, describePath, firstJsonDifference, isNotBlank, keysAreSorted, valueAt, type Comparison } from './comparison.ts';
import { quote } from './escape.ts';
import type { Hint } from '../run/verdict.ts';

/** Reads a comparison and names the mistakes it shows (none when it does not know them). */
export type HintRule = (comparison: Comparison) => Hint[];

// ------------------------------------------------------------------------ turning it into hints

/**
 * The hints for a failing output, most basic first, each kind of mistake once: the rules for any
 * JSON output, then the stages' `rules` (CourseContent.hintRules: its stage's, then earlier ones').
 */
export function hintsFor(comparison: Comparison, rules: readonly HintRule[] = []): Hint[] {
  if (comparison.actualText.length === 0) {
    return [
      {
        kind: 'empty',
        lines: ['your program printed nothing on stdout', 'if it crashed, its error is on stderr above'],
        general: ['your program printed nothing on stdout'],
      },
    ];
  }
  const hints: Hint[] = [];
  for (const rule of [...OUTPUT_RULES, ...rules]) {
    for (const hint of rule(comparison)) {
      if (!hints.some((known) => known.kind === hint.kind)) hints.push(hint);
    }
  }
  if (hints.length === 0) hints.push(...fallback(comparison));
  return hints;
}

// --------------------------------------------------------------- rules for any JSON output

const OUTPUT_RULES: HintRule[] = [
  function crlfLineEnds({ crlf }) {
    return crlf ? [{ kind: 'crlf-output', lines: ['your output ends its lines with \\r\\n (CRLF); write \\n only'] }] : [];
  },

  function logLinesOnStdout({ strayLines }) {
    const logLines = strayLines.filter(isNotBlank);
    if (logLines.length === 0) return [];
    const more = logLines.length > 1 ? ` (and ${logLines.length - 1} more)` : '';
    return [
      {
        kind: 'log-line',
        lines: [`a log line on stdout: ${quote(logLines[0]!)}${more}`, 'use console.error: stdout is the protocol channel'],
        general: ['a log line on stdout', 'use console.error: stdout is the protocol channel'],
      },
    ];
  },

  function finalNewline({ expectedText, actualText, strayLines }) {
    const body = actualText.replace(/(\r?\n)+$/, '');
    if (expectedText.endsWith('\n') && !actualText.endsWith('\n')) {
      return [{ kind: 'final-newline', lines: ['your output does not end with a newline; end it with exactly one \\n'] }];
    }
    if (/\n\r?\n$/.test(actualText) && !/\n\n$/.test(expectedText)) {
      const extra = actualText.length - body.length;
      return [
        {
          kind: 'final-newline',
          lines: [`your output ends with ${extra} line breaks; end it with exactly one \\n`],
          general: ['your output ends with more than one line break; end it with exactly one \\n'],
        },
      ];
    }
    if (strayLines.length > 0 && !strayLines.some(isNotBlank)) {
      return [{ kind: 'blank-line', lines: ['your output has an extra blank line: something printed an empty line on stdout'] }];
    }
    return [];
  },

  function keysInAnotherOrder(comparison) {
    const both = bothValues(comparison);
    if (both === undefined) return [];
    const difference = firstJsonDifference(both.expected, both.actual);
    if (difference?.kind !== 'order') return [];
    const sorted = keysAreSorted(valueAt(both.actual, difference.path));
    return [
      {
        kind: 'key-order',
        lines: [
          `${describePath(difference.path)}: the same keys in another order${sorted ? ' (yours are sorted)' : ''}`,
          'the bytes are compared, so keep keys in the order expected.json has them; do not sort them',
        ],
        general: [
          'an object of your output has the same keys in another order',
          'the bytes are compared, so keep keys in the order expected.json has them; do not sort them',
        ],
      },
    ];
  },
];

// --------------------------------------------------------------- rules for what the player said

/** Hints for a mistake of the protocol that the cassette player found, whatever the output shows. */
export function protocolHints(diagnoses: readonly Diagnosis[]): Hint[] {
  const hints: Hint[] = [];
  if (diagnoses.some((diagnosis) => diagnosis.kind === 'unused' && diagnosis.waitingFor && kindOf(diagnosis.waitingFor.message) === 'response')) {
    hints.push({
      kind: 'server-request-unanswered',
      lines: [
        'the server sent your client a request while it waited for a response of its own, and your client never answered',
        'a message with both a method and an id is a request: answer ping with an empty result, any other request with a -32601 error',
      ],
    });
  }
  if (diagnoses.some((diagnosis) => diagnosis.kind === 'id-reused')) {
    hints.push({
      kind: 'id-reused',
      lines: [
        'an id names one request: for the whole session (2025-11-25), or while it is unanswered (the stateless revision)',
        'take each id from a counter that only grows',
      ],
    });
  }
  if (diagnoses.some(newSessionAwaited)) {
    hints.push({
      kind: 'session-lost',
      lines: [
        'the server lost the session (it answered 404, or 400 to a session id it no longer knows): the client starts a new one, once for each request that meets a lost session',
        'send initialize again without the old session id, then notifications/initialized, then the request that failed',
      ],
    });
  }
  if (prettyPrinted(diagnoses)) {
    hints.push({
      kind: 'multi-line-message',
      lines: [
        'your client wrote each message over several lines (pretty-printed JSON): the server reads one message a line, and no line of it is a whole message',
        'frame() puts a message on one line: JSON.stringify(message) with no indent argument, then "\\n"',
      ],
    });
  }
  const lost = hints.some((hint) => hint.kind === 'session-lost');
  for (const [kind, lines] of Object.entries(HTTP_HINTS)) {
    // a session id sent after the session was lost: the hint to read is how to start the next one
    if (kind === 'http-session' && lost) continue;
    if (diagnoses.some((diagnosis) => diagnosis.kind === kind)) hints.push({ kind, lines });
  }
  return hints;
}

/** Lines that are not JSON one by one, but are a message together: joined, they parse, or (past the
 *  diagnoses the player keeps) one is a lone brace or bracket and another an indented `"key": value`. */
function prettyPrinted(diagnoses: readonly Diagnosis[]): boolean {
  const lines = diagnoses.flatMap((diagnosis) => (diagnosis.kind === 'not-json' && typeof diagnosis.received === 'string' ? [diagnosis.received] : []));
  if (lines.length < 2) return false;
  try {
    JSON.parse(lines.join('\n'));
    return true;
  } catch {
    return lines.some((line) => /^\s*[{[]\s*$/.test(line)) && lines.some((line) => /^\s+"[^"]*"\s*:/.test(line));
  }
}

/** The recording starts a second session (the server lost the first: 404), and the client never began it. */
function newSessionAwaited(diagnosis: Diagnosis): boolean {
  return diagnosis.kind !== 'id-reused' && diagnosis.waitingFor?.newSession === true;
}

/** What the HTTP player answers with an error status: the request went no further. A server of the
 *  stateless revision refuses with 400 and a JSON-RPC error too: headers that disagree with the body
 *  (-32020), an initialize (-32022, the versions it speaks). */
const HTTP_REFUSALS: ReadonlySet<string> = new Set([
  'http-accept',
  'http-content-type',
  'http-session',
  'http-auth',
  'http-method',
  'http-header-mismatch',
  'stateless-initialize',
  // the authorization server's refusals (an OAuth error), every oauth- kind but the advice
  ...Object.keys(RULES).filter((kind) => kind.startsWith('oauth-') && !isAdvice(kind as DiagnosisKind)),
]);

/** The server refused a request, which went no further: at the HTTP level, as a server of the
 *  stateless revision does, or as one of a session it had lost. */
export function refusedByTheServer(diagnoses: readonly Diagnosis[]): boolean {
  return diagnoses.some((diagnosis) => HTTP_REFUSALS.has(diagnosis.kind) || envelopeRefused(diagnosis) || newSessionAwaited(diagnosis));
}

/** A request without a required key of the stateless `_meta` (its protocol version or client
 *  capabilities): refused 400, -32602. One without clientInfo alone is served. */
function envelopeRefused(diagnosis: Diagnosis): boolean {
  return diagnosis.kind === 'meta-missing' && lacksRequiredMeta(diagnosis.received);
}

/** The fix for each mistake of the HTTP transport the player answers (status) and says (diagnosis),
 *  the stateless revision's included. */
const HTTP_HINTS: Partial<Record<Diagnosis['kind'], string[]>> = {
  'http-accept': [
    'a server may answer a POST with JSON or with an event stream, and refuses (406) a client that does not take both',
    'send Accept: application/json, text/event-stream with every POST',
  ],
  'http-content-type': ['a message is a JSON body: send Content-Type: application/json with every POST'],
  'http-session': [
    'the initialize response gave a session id (the Mcp-Session-Id header): the server knows your session by it',
    'keep it from the first response that has it, and send it on every later request',
  ],
  'http-protocol-version': ['after initialize, send MCP-Protocol-Version: <the version the server answered> on every request'],
  'http-auth': [
    'the configured headers, and the access token of an authorization ("Authorization: Bearer <token>"), go on every request: POST, GET and DELETE alike',
  ],
  // the authorization (2025-11-25 basic/authorization)
  'oauth-pkce': ['make a code_verifier, send its S256 hash as code_challenge with code_challenge_method=S256 in the authorization request'],
  'oauth-pkce-unsupported': [
    "read code_challenge_methods_supported in the authorization server's metadata, found by RFC 8414 or by OpenID Connect discovery alike: without S256 there, stop before registering or asking for authorization",
  ],
  'oauth-verifier': ['keep the code_verifier the challenge was made from, and send that one with the token request'],
  'oauth-code': ['trade the code of the redirect for a token once: a second token request with it is refused'],
  'oauth-refresh-token': [
    'keep the refresh_token of the token response; on a 401 invalid_token, POST grant_type=refresh_token with it (and resource) before anything else',
    'refresh once: when that is refused (invalid_grant), ask for authorization again, and send that refresh token no more',
  ],
  'oauth-refresh-rotation': [
    'a token response that carries a refresh_token replaces the one you hold: keep the new one for the next refresh, and drop the old (a token response without one leaves yours as it is)',
  ],
  'oauth-resource': ["send resource=<the MCP server's URL> in both the authorization request and the token request"],
  'oauth-redirect-uri': [
    'register your redirect_uri (redirect_uris in the registration), and ask for authorization with it; if you send one with the token request, send that same one',
  ],
  'oauth-token-redirect-uri': ['servers that also serve OAuth 2.0 clients ask for the redirect_uri again in the token request: sending it works with both'],
  'oauth-resource-form': ["send the MCP server's URL as it is (the one you connect to, without a trailing slash) as resource"],
  'oauth-client-auth': [
    "authenticate at the token endpoint as the registration's token_endpoint_auth_method says: client_secret_basic in the Authorization: Basic header, client_secret_post as client_id and client_secret in the form, none with client_id alone; one way only",
  ],
  'oauth-discovery': [
    "take the resource metadata URL from the 401's WWW-Authenticate (resource_metadata); without one, try /.well-known/oauth-protected-resource<path>, then /.well-known/oauth-protected-resource",
    "for the authorization server's metadata, try the well-known URLs in the spec's order (RFC 8414's, then OpenID Connect's), the well-known part between the host and the issuer's path",
  ],
  'oauth-scope': ['after a 403 insufficient_scope, ask for authorization again with every scope its WWW-Authenticate names (scope="…")'],
  'oauth-scope-selection': ["ask for the scopes of the 401's WWW-Authenticate; without any there, those of the protected resource metadata's scopes_supported"],
  'oauth-metadata-mismatch': [
    "compare the protected resource metadata's resource with the URL you read it for, and the authorization server metadata's issuer with the issuer you asked: stop where they differ",
  ],
  'oauth-registration-refused': [
    'a refused registration (an error with error and error_description) ends the flow there: say why, and ask for no authorization',
  ],
  'oauth-application-type': [
    'register with application_type: "native" (a client whose redirect is on localhost); an OpenID Connect server takes a registration without it as "web", and may refuse a localhost redirect',
  ],
  'oauth-token-leaked': ['the access token goes to the MCP server only: send no Authorization: Bearer header to the authorization server'],
  'oauth-client-metadata': [
    "where the authorization server's metadata says client_id_metadata_document_supported, the clientMetadataUrl you were given is your client_id: register nothing",
  ],
  'oauth-registration-kept': [
    'keep what a registration answered in the registrations you were given, under the issuer of the authorization server that answered it; on the next run, look there first, by the issuer you discovered',
    'a registration kept under another issuer is not for this authorization server: register, and keep that one too',
  ],
  'oauth-iss-unchecked': [
    "compare the redirect's iss with the issuer whose metadata you read (simple string comparison: no URL parsing, no trailing slash dropped); without iss, reject it where that metadata says authorization_response_iss_parameter_supported",
  ],
  'oauth-state-unchecked': ["compare the redirect's state with the one you sent, and discard the redirect (its code too) when they differ"],
  'oauth-secret-printed': ['print what the flow found (the endpoints, the scopes), never a token, a code, a secret or a verifier: not in a log line either'],
  'oauth-token-in-query': ['send the access token as Authorization: Bearer <token>, never in the URL'],
  // the stateless revision (2026-07-28)
  'meta-missing': [
    'in the stateless revision every request carries in params._meta its protocol version and client capabilities (io.modelcontextprotocol/protocolVersion, clientCapabilities), and should carry its client info (clientInfo)',
    'set all three on every request after connect() found the revision, server/discover included (a _meta the caller gave keeps its own keys)',
  ],
  'http-header-mismatch': [
    'a server of the revision checks the headers that mirror the body, and refuses (400, -32020) a request whose headers disagree with it or lack one',
    "send MCP-Protocol-Version equal to the _meta's version, Mcp-Method, Mcp-Name on tools/call (params.name), and Mcp-Param-<Name> for each argument the tool's inputSchema marks x-mcp-header (=?base64?...?= when not plain ASCII)",
  ],
  'stateless-initialize': [
    'the server speaks the stateless revision: it has no initialize, and refuses one (-32022)',
    'connect() probes with server/discover first; initialize() only when the probe shows a 2025 server (an error other than -32020/-32021/-32022, or a -32022 whose common version is of 2025)',
  ],
  'input-required-retry': [
    'an input_required result is answered by sending the request again, as a new request with an id of its own: inputResponses (each answer under its key) and the requestState it gave, unchanged',
    'the server keeps nothing between the two: without its requestState it asks again',
  ],
};

/** When no rule knows the mistake: at least say what kind of difference it is. */
function fallback(comparison: Comparison): Hint[] {
  const both = bothValues(comparison);
  if (both !== undefined && isDeepStrictEqual(both.expected, both.actual) && firstJsonDifference(both.expected, both.actual) === undefined) {
    return [{ kind: 'same-value', lines: ['the JSON value is right; only the whitespace or escaping between its tokens differs'] }];
  }
  return [];
}
