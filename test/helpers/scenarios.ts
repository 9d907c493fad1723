// The deliberately broken solutions: each is the reference with one mistake
// (test/scenarios/<mistake>/mistake.diff); the grader's whole output on it is recorded once as a
// golden file and compared, and the run must end in exit code 1 and name the mistake it was built for.
// Graded in the test's own process (runInProcess), as watch mode grades: the same main, warm.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import { courseCopies, expectGraderGolden, keepOnly, normalise, REPO, runInProcess, scenarioSubmission } from './cli.ts';

/** The seed every recorded grader output was made with. */
export const SEED = ['--seed', '7'];

/** Runs of each property in a broken solution's grading, where its entry names none: the mistakes a
 *  property catches are caught in the first hundred (but one, whose entry says so), and the stages
 *  before the scenario's own pass either way. The 128 gradings took 184 core-seconds where they took 203
 *  at the default 1,000. */
const SCENARIO_RUNS = '100';

/** The stages, in course order: course.yaml's (harness/stages/index.ts is held to it by test/stages.test.ts). */
export const STAGES = loadCourse(REPO).stages.map(({ slug }) => slug);

/** Correct clients that chose otherwise (test/variants/<choice>/change.diff): the stage where the choice
 *  shows, and the advice it earns by kind (a SHOULD of the spec it does not follow), none by default. */
export const VARIANTS: Record<string, { stage: string; advice?: string[] }> = {
  'arguments-omitted': { stage: 'tools' },
  'other-client-info': { stage: 'tools' },
  'string-ids': { stage: 'tools' },
  // it declares roots, and answers the server's roots/list with them (the reference declares none: -32601)
  'roots-declared': { stage: 'tools' },
  'no-delete-on-close': { stage: 'streamable-http', advice: ['http-session-left-open'] },
  // the retry is how long a client waits at least: three times it is no wait for the player
  'resume-waits-longer': { stage: 'streamable-http' },
  'session-id-to-stateless-server': { stage: 'stateless', advice: ['stateless-session'] },
  'client-info-not-sent': { stage: 'stateless', advice: ['meta-client-info-missing'] },
  'bearer-scheme-lower-case': { stage: 'authorization' },
  // OAuth 2.1 removed it; a server that also serves OAuth 2.0 clients would refuse the request without it
  'token-request-without-redirect-uri': { stage: 'authorization', advice: ['oauth-token-redirect-uri'] },
  'authorization-without-redirect-uri': { stage: 'authorization' },
  'resource-origin-only': { stage: 'authorization', advice: ['oauth-resource-form'] },
  'client-secret-basic': { stage: 'authorization' },
};

/** What each broken solution must make the grader say (written by hand, not recorded). `only`: the
 *  command, or the case, that its mistake can change; it is graded in a course copy without the stage's
 *  other cases, which pass on every such mistake (the config cases call no framing function, and the
 *  reverse; only the case whose server the client spawns from its config calls spawnWire), or one of
 *  those cases where each would show the mistake alike at a cost: the first the mistake breaks (one
 *  broken solution is graded over its whole stage, to show how a mistake is told once in many cases). */
export const SCENARIOS: Record<string, { stage: string; says: string[]; timeout?: string; only?: string; runs?: string }> = {
  // stage 1: framing
  'pretty-printed': { stage: 'config-and-framing', says: ['pretty-printed', 'indent'], only: 'mcp-frame' },
  crlf: { stage: 'config-and-framing', says: ['\\r\\n'], only: 'mcp-frame' },
  'no-newline': { stage: 'config-and-framing', says: ['no final newline'], only: 'mcp-frame' },
  'two-newlines': { stage: 'config-and-framing', says: ['ends with 2 newlines'], only: 'mcp-frame' },
  'whitespace-stripped': { stage: 'config-and-framing', says: ['whitespace inside strings was removed'], only: 'mcp-frame' },
  'keys-sorted': { stage: 'config-and-framing', says: ['keys are in another order (yours are sorted)'], only: 'mcp-frame' },
  'non-ascii-escaped': { stage: 'config-and-framing', says: ['as \\uXXXX'], only: 'mcp-frame' },
  'slash-escaped': { stage: 'config-and-framing', says: ["escapes '/' as '\\/'"], only: 'mcp-frame' },
  'parse-assumes-newline': { stage: 'config-and-framing', says: ['parseFrame(line without its "\\n") threw'], only: 'mcp-frame' },
  'logs-to-stdout': { stage: 'config-and-framing', says: ['a log line on stdout', 'use console.error'], only: 'mcp-frame' },
  // the message it loops on comes after the first hundred runs: the properties' timeouts are part of what it shows
  hangs: { stage: 'config-and-framing', says: ['timeout: used more than 1 s of CPU time'], timeout: '1', only: 'mcp-frame', runs: '1000' },
  // every framing case floods alike, and each costs half a second of CPU: one shows it
  'floods-stdout': {
    stage: 'config-and-framing',
    says: ['printed more than 1 MiB on stdout', 'stopped for printing more than 1 MiB on stdout while checking this property'],
    only: 'empty-values',
  },
  // the case passes: its stdout is right, and program.ts ends with process.exit, which drops the stderr Node had not written yet
  'floods-stderr': {
    stage: 'config-and-framing',
    says: ['stopped for printing more than 1 MiB on stderr while checking this property', 'print less'],
    only: 'empty-values',
  },
  crashes: { stage: 'config-and-framing', says: ['crash: exited with code 1', 'TypeError'], only: 'mcp-frame' },
  // stage 1: config
  'config-no-defaults': { stage: 'config-and-framing', says: ['defaults are missing'], only: 'mcp-config' },
  'config-accepts-invalid': { stage: 'config-and-framing', says: ['an invalid config was accepted'], only: 'mcp-config' },
  'config-type-not-inferred': { stage: 'config-and-framing', says: ['has no type, expected "stdio"'], only: 'mcp-config' },
  'config-order-lost': { stage: 'config-and-framing', says: ["keep the file's order"], only: 'mcp-config' },
  'config-integer-names-first': {
    stage: 'config-and-framing',
    says: ['integer-like-names', 'yours put the names that look like integers first'],
    only: 'mcp-config',
  },
  // stage 2: handshake
  // the same mistake as pretty-printed, as the server sees it: one message over many lines
  'pretty-printed-on-the-wire': {
    stage: 'handshake',
    says: ['your client wrote a line that is not JSON: {', 'each message over several lines', 'with no indent argument'],
    only: 'everything-server',
  },
  // graded over the whole stage: how one mistake shows in every case it breaks
  'initialized-missing': { stage: 'handshake', says: ['the session ended before your client sent notifications/initialized'] },
  'initialized-before-response': { stage: 'handshake', says: ['before the initialize result had arrived'], only: 'everything-server' },
  'first-message-is-the-response': { stage: 'handshake', says: ["the response is the message with your request's id"], only: 'log-message-before-result' },
  'chunk-is-a-message': {
    stage: 'handshake',
    says: ['result-split-across-reads', 'did nothing for 2 s while the server waited'],
    only: 'result-split-across-reads',
  },
  'version-not-checked': {
    stage: 'handshake',
    says: ['which your client does not support', 'the recording has no more client messages; your client sent notifications/initialized'],
    only: 'version-counter-offer-older-unsupported',
  },
  'version-compared-by-date': {
    stage: 'handshake',
    says: ['"2000-01-01", which your client does not support', 'comparing dates lets it through', 'your client sent notifications/initialized'],
    only: 'version-counter-offer-older-unsupported',
  },
  'version-must-match-exactly': {
    stage: 'handshake',
    says: [
      'initialize refused the protocol version the server offered in return, "2025-06-18"',
      'the session ended before your client sent notifications/initialized',
    ],
    only: 'version-counter-offer-supported',
  },
  'close-does-nothing': { stage: 'handshake', says: ['"closed": false', "the transport's close() its wire"], only: 'everything-server' },
  'error-taken-as-result': { stage: 'handshake', says: ['an error response must reject the request with McpError'], only: 'initialize-error' },
  'non-json-line-crashes': { stage: 'handshake', says: ['non-json-line-before-result', 'SyntaxError'], only: 'non-json-line-before-result' },
  'spawn-env-replaced': {
    stage: 'handshake',
    says: ['spawn theinference-case-server ENOENT', "in its parent's environment (whose PATH finds the command)"],
    only: 'server-spawned-from-config',
  },
  'spawn-env-ignored': {
    stage: 'handshake',
    says: ['server-spawned-from-config', "never reached the grader: your spawnWire did not start it, or not with the entry's env"],
    only: 'server-spawned-from-config',
  },
  'spawn-close-leaves-stdin-open': {
    stage: 'handshake',
    says: ['server-spawned-from-config', 'every message of the session was exchanged right, and then your program kept waiting', "end the child's stdin"],
    timeout: '2',
    only: 'server-spawned-from-config',
  },
  // an attack too: a client that goes straight to the grader's relay, around the server the entry names, reaches no player
  'spawn-wire-bypassed': {
    stage: 'handshake',
    says: ['server-spawned-from-config', 'never reached the grader'],
    timeout: '2',
    only: 'server-spawned-from-config',
  },
  'spawn-decodes-each-read': {
    stage: 'handshake',
    says: ['server-spawned-from-config', "child.stdout.setEncoding('utf8')"],
    only: 'server-spawned-from-config',
  },
  // stage 3: tools
  'pagination-not-followed': {
    stage: 'tools',
    says: ['follow nextCursor', 'the session ended before your client sent tools/list (recorded id 101)'],
    only: 'pagination',
  },
  'is-error-thrown': { stage: 'tools', says: ['a tool that failed is still a result'], only: 'is-error-results' },
  'responses-matched-in-order': { stage: 'tools', says: ['match each response to its request by id'], only: 'responses-out-of-order' },
  'server-requests-ignored': {
    stage: 'tools',
    says: ["your client sent an answer to the server's ping request", 'any other request with a -32601 error', 'request-not-handled'],
  },
  'roots-answered-undeclared': {
    stage: 'tools',
    says: ['request-not-handled', 'roots-answer', "answer to the server's roots/list breaks the spec", 'error -32601 (your client did not declare roots)'],
    only: 'request-not-handled',
  },
  'ids-reused': { stage: 'tools', says: ['with an id it already gave initialize in this session', 'a counter that only grows'], only: 'everything-server' },
  'text-content-only': { stage: 'tools', says: ['lost its image content', 'keep every content item of a result'], only: 'everything-server' },
  // stage 4: streamable-http
  'accept-json-only': {
    stage: 'streamable-http',
    says: ['refuses (406) a client that does not take both', 'HTTP 406 Not Acceptable'],
    only: 'everything-server',
  },
  'priming-event-crashes': {
    stage: 'streamable-http',
    says: ['skip one without data (the priming event)', 'refused: Unexpected end of JSON input'],
    only: 'everything-server',
  },
  'json-reply-unread': { stage: 'streamable-http', says: ['json-replies', 'exited with code 13', 'a reply that arrived was never read'], only: 'json-replies' },
  'session-id-not-sent': { stage: 'streamable-http', says: ['without the Mcp-Session-Id header', 'send it on every later request'], only: 'everything-server' },
  'headers-not-sent': { stage: 'streamable-http', says: ['bearer-token', 'without the Authorization header', 'go on every request'], only: 'bearer-token' },
  'lost-session-not-renewed': {
    stage: 'streamable-http',
    says: ['session-lost', 'the server lost the session', 'send initialize again'],
    only: 'session-lost',
  },
  'sse-decodes-each-read': { stage: 'streamable-http', says: ['split-reads', 'U+FFFD', 'one TextDecoder with { stream: true }'], only: 'split-reads' },
  'sse-read-is-whole-events': {
    stage: 'streamable-http',
    says: ['split-reads', 'which the server never closed before its end', 'your client lost what came on that stream after that event'],
    only: 'split-reads',
  },
  'sse-lines-split-on-lf-only': {
    stage: 'streamable-http',
    says: ['line-endings', 'end their lines in CRLF and in a lone CR', 'a lone "\\r"'],
    only: 'line-endings',
  },
  'sse-lone-cr-not-a-line-end': { stage: 'streamable-http', says: ['line-endings', 'notifications[0]', 'or on "\\r\\n" and "\\n"'], only: 'line-endings' },
  'only-last-event-handed-on': {
    stage: 'streamable-http',
    says: ['handed on 0 of the 2 notifications', 'server-requests', "an answer to the server's ping request", 'the session could not go on'],
  },
  'stream-not-resumed': {
    stage: 'streamable-http',
    says: ['did nothing for 2 s', 'your client never resumed it', 'then GET the same URL'],
    only: 'resumption',
  },
  'resumed-without-last-event-id': {
    stage: 'streamable-http',
    says: ['has no Last-Event-ID, while the server waits to resume the stream of tools/call "count"', 'did nothing for 2 s'],
    only: 'resumption',
  },
  'resumed-from-first-event': {
    stage: 'streamable-http',
    says: ['an event of the stream of tools/call "count" (your id 3) but not the last', 'then GET the same URL'],
    only: 'resumption',
  },
  'resumed-without-waiting': {
    stage: 'streamable-http',
    says: ["sooner than the 500 ms the stream's retry field asked it to wait", 'http-retry'],
    only: 'resumption',
  },
  'close-leaves-messages-open': {
    stage: 'streamable-http',
    says: ['exited with code 13', 'and then your program kept waiting', 'ends messages'],
    timeout: '1',
    only: 'everything-server',
  },
  'session-renewed-only-once': { stage: 'streamable-http', says: ['session-lost-twice', 'HTTP 404'], only: 'session-lost-twice' },
  'renewal-keeps-old-session-id': {
    stage: 'streamable-http',
    says: ['session-lost', 'after the server lost the session: a new session starts with initialize, without a session id'],
    only: 'session-lost',
  },
  'protocol-version-not-sent': {
    stage: 'streamable-http',
    says: ['without the MCP-Protocol-Version header', 'after initialize, send MCP-Protocol-Version'],
    only: 'everything-server',
  },
  // stage 5: translate
  'input-schema-not-renamed': {
    stage: 'translate',
    says: ['has inputSchema: the Claude API calls the field input_schema', 'rename the key'],
    only: 'everything-server',
  },
  'schema-not-stripped': { stage: 'translate', says: ['kept the top-level $schema', 'leave it out of input_schema'], only: 'everything-server' },
  'schema-stripped-everywhere': {
    stage: 'translate',
    says: ['nested-schema', 'lost a $schema below the top of its schema: input_schema.properties.$schema', 'only the top-level $schema goes'],
    only: 'nested-schema',
  },
  'tool-mutated': { stage: 'translate', says: ['toClaudeTool changed the MCP tools it was given', 'leave the tool alone'], only: 'everything-server' },
  'missing-schema-undefined': {
    stage: 'translate',
    says: ['no-input-schema', 'gives it no input_schema', 'a tool without a schema gets { "type": "object", "properties": {} }'],
    only: 'no-input-schema',
  },
  'description-dropped': {
    stage: 'translate',
    says: ['your translation of echo has no description', "keep the tool's description"],
    only: 'everything-server',
  },
  // stage 6: stateless
  'no-server-discover': { stage: 'stateless', says: ['stateless-initialize', 'connect() probes with server/discover first'], only: 'tools-server' },
  'no-fallback-on-http-error': {
    stage: 'stateless',
    says: ['fallback-2025', 'fall back to initialize() on the same URL on any error of the probe'],
    only: 'fallback-2025',
  },
  'unsupported-version-not-retried': {
    stage: 'stateless',
    says: ['unsupported-version', 'answer -32022 once with a version its data.supported lists and your client speaks'],
    only: 'unsupported-version',
  },
  'meta-capabilities-missing': {
    stage: 'stateless',
    says: ['without io.modelcontextprotocol/clientCapabilities in params._meta', 'set all three on every request'],
    only: 'tools-server',
  },
  'header-version-not-meta': {
    stage: 'stateless',
    says: ['the MCP-Protocol-Version header names 2025-11-25', "send MCP-Protocol-Version equal to the _meta's version"],
    only: 'tools-server',
  },
  'header-values-not-encoded': {
    stage: 'stateless',
    // the first case it fails is header-values-encoded (outer spaces lost); mirrored-headers, where the raw
    // non-ASCII value is refused, is the same mistake to the terminal
    says: ['header-values-encoded', 'decodes to "north"', 'mirrored-headers'],
  },
  'fallback-on-the-revisions-errors': {
    stage: 'stateless',
    says: ['probe-refused-by-the-revision', 'stateless-initialize'],
    only: 'probe-refused-by-the-revision',
  },
  'refusal-thrown-as-http-error': {
    stage: 'stateless',
    says: ['capability-required', 'refused: HTTP 400'],
    only: 'capability-required',
  },
  'number-header-kept': {
    stage: 'stateless',
    says: ['invalid-header-annotations', 'your client listed price', 'never a number'],
    only: 'invalid-header-annotations',
  },
  'null-cursor-followed': {
    stage: 'stateless',
    says: ['null-cursor-ends-list', 'the recording has no more client messages; your client sent tools/list'],
    only: 'null-cursor-ends-list',
  },
  'base64-only-for-non-ascii': {
    stage: 'stateless',
    says: ['header-values-encoded', 'Mcp-Param-Region header decodes to "north"'],
    only: 'header-values-encoded',
  },
  'mcp-name-not-sent': { stage: 'stateless', says: ['the required Mcp-Name header is absent', 'Mcp-Name on tools/call'], only: 'tools-server' },
  'input-required-returned': {
    stage: 'stateless',
    says: ["calls[0] is the server's input_required result", 'call onInputRequest for each of its inputRequests'],
    only: 'input-required',
  },
  'retry-without-request-state': {
    stage: 'stateless',
    says: ['the server asked for the same input 10 times', 'without the requestState the input_required result gave'],
    only: 'input-required',
  },
  // 2026-07-28 mrtr: the JSON-RPC id MUST be different between the initial request and the retry
  'retry-reuses-answered-id': {
    stage: 'stateless',
    says: ['input-required-retry', 'under the id of the request the input_required result answered'],
    only: 'input-required',
  },
  'empty-cursor-ends-list': {
    stage: 'stateless',
    says: ['it stopped at a page whose nextCursor is the empty string', 'test for undefined'],
    only: 'tools-server',
  },
  // stage 7: authorization
  'pkce-plain': { stage: 'authorization', says: ['oauth-pkce', 'code_challenge_method "plain": MCP clients MUST use S256'], only: 'sdk-auth-router' },
  'pkce-support-unchecked': {
    stage: 'authorization',
    says: ['pkce-unsupported', 'does not advertise S256 in code_challenge_methods_supported: it MUST refuse to proceed'],
    only: 'pkce-unsupported',
  },
  'pkce-checked-in-oauth-metadata-only': {
    stage: 'authorization',
    says: ['oauth-pkce-unsupported', 'does not advertise S256 in code_challenge_methods_supported: it MUST refuse to proceed'],
    only: 'pkce-unsupported-openid',
  },
  'registration-without-application-type': {
    stage: 'authorization',
    says: ['oauth-application-type', 'registered without application_type: MCP clients MUST specify an appropriate one'],
    only: 'oidc-provider',
  },
  'state-unchecked': { stage: 'authorization', says: ['state-forged', 'a redirect whose state was not the one it sent'], only: 'state-forged' },
  'resource-omitted': {
    stage: 'authorization',
    says: ['oauth-resource', 'authorization request has no resource: it MUST name the MCP server, whose canonical URI is'],
    only: 'sdk-auth-router',
  },
  'token-in-query': { stage: 'authorization', says: ['with the access token in its URL', 'never in the URL'], only: 'sdk-auth-router' },
  'metadata-path-appended': {
    stage: 'authorization',
    says: [
      'oauth-discovery',
      'GET /authorization-server/.well-known/oauth-authorization-server',
      'it has metadata at',
      "the well-known URLs in the spec's order",
    ],
    only: 'sdk-auth-router',
  },
  'step-up-ignored': {
    stage: 'authorization',
    says: ['step-up', 'your client authorized 1 time, the reference 2', 'insufficient_scope'],
    only: 'step-up',
  },
  'refresh-missing': {
    stage: 'authorization',
    says: ['refresh', 'your client refreshed its token 0 times, the reference 1'],
    only: 'refresh',
  },
  'client-metadata-ignored': {
    stage: 'authorization',
    says: ['oauth-client-metadata', 'that takes its Client ID Metadata Document', 'register nothing'],
    only: 'client-metadata-document',
  },
  'registration-not-kept': {
    stage: 'authorization',
    says: [
      'oauth-registration-kept',
      'your client registered (RFC 7591) again with an authorization server it holds a registration for',
      'mcp-course-client-registered-earlier',
    ],
    only: 'registration-kept',
  },
  'registration-unbound': {
    stage: 'authorization',
    says: [
      'oauth-registration-kept',
      'as client_id "mcp-course-client-of-the-previous-server" without registering with this authorization server',
      'MUST NOT reuse',
    ],
    only: 'authorization-server-changed',
  },
  'iss-unchecked': {
    stage: 'authorization',
    says: ['oauth-iss-unchecked', 'a redirect whose iss is "https://attacker.example", not the issuer it asked', 'mix-up'],
    only: 'iss-mixed-up',
  },
  'iss-normalised-before-compare': {
    stage: 'authorization',
    says: ['oauth-iss-unchecked', 'only once normalised', 'MUST NOT normalise'],
    only: 'iss-normalised',
  },
  'iss-absence-accepted': {
    stage: 'authorization',
    says: ['oauth-iss-unchecked', 'a redirect without iss from an authorization server whose metadata says authorization_response_iss_parameter_supported'],
    only: 'iss-missing',
  },
  'refresh-token-not-replaced': {
    stage: 'authorization',
    says: ['oauth-refresh-rotation', 'your client refreshed with a refresh token that a later token response replaced', 'MUST discard the old refresh token'],
    only: 'refresh-rotated',
  },
  'refresh-retried': {
    stage: 'authorization',
    says: ['oauth-refresh-token', 'your client sent again the refresh token the authorization server refused', 'ask for authorization again'],
    only: 'refresh-refused',
  },
  'token-printed': {
    stage: 'authorization',
    says: ['oauth-secret-printed', 'your program printed the access token of its authorization', 'never a token'],
    only: 'sdk-auth-router',
  },
  'bearer-on-post-only': {
    stage: 'authorization',
    says: ['http-auth', 'your client sent DELETE /mcp without the Authorization header'],
    only: 'oidc-provider',
  },
  'client-secret-omitted': { stage: 'authorization', says: ['oauth-client-auth', 'has no client_secret'], only: 'oidc-provider' },
  'basic-where-post-registered': {
    stage: 'authorization',
    says: ['oauth-client-auth', 'uses HTTP Basic authentication, where its registration says token_endpoint_auth_method client_secret_post'],
    only: 'oidc-provider',
  },
  'verifier-too-short': { stage: 'authorization', says: ['oauth-verifier', 'code_verifier is 8 characters'], only: 'oidc-provider' },
  'verifier-reused': { stage: 'authorization', says: ['oauth-pkce', 'the code_challenge of an earlier authorization request'], only: 'step-up' },
  'registration-without-redirect-uris': {
    stage: 'authorization',
    says: ['oauth-redirect-uri', 'registered without redirect_uris'],
    only: 'oidc-provider',
  },
  'step-up-with-old-scopes': {
    stage: 'authorization',
    says: ['oauth-scope', 'MUST treat the scopes of the challenge as authoritative'],
    only: 'step-up',
  },
  'token-sent-to-authorization-server': {
    stage: 'authorization',
    says: ['oauth-token-leaked', 'sent its access token to the authorization server'],
    only: 'step-up',
  },
  'metadata-fallback-missing': {
    stage: 'authorization',
    says: ['metadata-at-well-known', 'GET /.well-known/oauth-protected-resource to the MCP server', '/.well-known/oauth-protected-resource/mcp'],
    only: 'metadata-at-well-known',
  },
  // stage 7: cases recorded for issue 47
  'openid-discovery-missing': {
    stage: 'authorization',
    says: [
      'openid-discovery',
      'no authorization server metadata at',
      '/.well-known/oauth-authorization-server/authorization-server',
      'the authorization did not finish',
    ],
    only: 'openid-discovery',
  },
  'resource-metadata-url-ignored': {
    stage: 'authorization',
    says: [
      'metadata-named',
      'your client sent GET /.well-known/oauth-protected-resource/mcp to the MCP server, which the recording never answered',
      'resource_metadata',
    ],
    only: 'metadata-named',
  },
  'metadata-root-fallback-missing': {
    stage: 'authorization',
    says: ['metadata-at-root', 'no protected resource metadata at', '/.well-known/oauth-protected-resource/mcp', 'the authorization did not finish'],
    only: 'metadata-at-root',
  },
  'renewed-only-by-refresh': {
    stage: 'authorization',
    says: ['no-refresh-token', 'your client authorized 1 time, the reference 2', 'the session ended before your client sent tools/call "echo"'],
    only: 'no-refresh-token',
  },
  'resource-metadata-not-compared': {
    stage: 'authorization',
    says: ['oauth-metadata-mismatch', 'names the resource https://another-mcp-server.example/mcp', 'MUST NOT be used'],
    only: 'resource-mismatch',
  },
  'issuer-not-compared': {
    stage: 'authorization',
    says: ['oauth-metadata-mismatch', 'names the issuer https://another-authorization-server.example', 'MUST NOT be used'],
    only: 'issuer-mismatch',
  },
  'state-absence-accepted': {
    stage: 'authorization',
    says: ['oauth-state-unchecked', 'a redirect whose state was not the one it sent (another, or none)'],
    only: 'state-dropped',
  },
  'registration-refusal-ignored': {
    stage: 'authorization',
    says: ['oauth-registration-refused', 'after the authorization server refused its registration'],
    only: 'registration-refused',
  },
  // stage 8: resources and prompts
  'list-cursor-not-followed': {
    stage: 'resources-and-prompts',
    says: ['follow nextCursor', 'your client listed 2 of the 5 resources', 'the session ended before your client sent resources/list'],
    only: 'paged-server',
  },
  'blob-kept-as-text': {
    stage: 'resources-and-prompts',
    says: ['a blob came back as its Base64 text', 'decode it to its bytes'],
    only: 'paged-server',
  },
  'capability-unchecked': {
    stage: 'resources-and-prompts',
    says: ['does not declare the capability this step needs', 'Only use capabilities that were successfully negotiated'],
    only: 'memory-server',
  },
  'resource-updated-ignored': {
    stage: 'resources-and-prompts',
    says: ['notifications/resources/updated 1 time', "call the subscriber's onUpdated"],
    only: 'memory-server',
  },
  'list-not-refreshed': {
    stage: 'resources-and-prompts',
    says: ['a list_changed notification means the list you keep is out of date', 'the session ended before your client sent resources/list'],
    only: 'everything-server',
  },
  'list-fetched-every-time': {
    stage: 'resources-and-prompts',
    says: ['your client asked for the prompts again', "the course's rule", 'your client sent prompts/list'],
    only: 'everything-server',
  },
  'non-text-content-dropped': {
    stage: 'resources-and-prompts',
    says: ['your client lost content items of type resource', 'keep every item as the server sent it'],
    only: 'paged-server',
  },
  'prompt-arguments-unstringified': {
    stage: 'resources-and-prompts',
    says: ['send the arguments as an object of strings', 'params.arguments.words: expected "10", got 10'],
    only: 'paged-server',
  },
  'prompt-arguments-positional': {
    stage: 'resources-and-prompts',
    says: ['send the arguments as an object of strings', 'params.arguments: Invalid input: expected record, received array'],
    only: 'paged-server',
  },
};

/** One test per broken solution of `stage`. */
export function scenarioTests(stage: string): void {
  // one course copy for each `only`, made when a scenario first needs it
  const courseOf = courseCopies((dir, only) => keepOnly(dir, stage, only));
  for (const [scenario, { stage: at, says, timeout, only, runs = SCENARIO_RUNS }] of Object.entries(SCENARIOS)) {
    if (at !== stage) continue;
    it(`fails ${scenario} at ${stage}, saying so`, async () => {
      const submission = scenarioSubmission(scenario);
      try {
        const run = await runInProcess(
          ['test', '--stage', stage, ...SEED, '--runs', runs, '--submission', submission, ...(timeout ? ['--timeout', timeout] : [])],
          {
            cwd: only === undefined ? undefined : courseOf(only),
          },
        );
        expect(run.code).toBe(1);
        expect(run.stderr).toBe('');
        for (const phrase of says) expect(run.stdout).toContain(phrase);
        expectGraderGolden(normalise(run.stdout), join(REPO, 'test/scenarios', scenario, 'grader-output.txt'));
      } finally {
        rmSync(submission, { recursive: true, force: true });
      }
    });
  }
}
