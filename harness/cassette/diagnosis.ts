// What the player tells the grader: when a client strays from the recording, and the session message
// by message. Plain data, so that it crosses a process boundary or lands in a JSON report unchanged;
// `message` is one line a student reads.
import type { Json, JsonObject } from './model.ts';

export type DiagnosisKind =
  | 'unexpected-method' // the client sent another method (or kind of message) than the one recorded next
  | 'params-differ' // right method, params (or the answer to a server request) differ at `path`
  | 'out-of-order' // the message is recorded, but later than where the session is
  | 'before-initialize-result' // a request other than ping before the initialize result had been written
  | 'initialized-too-early' // notifications/initialized before the initialize result had been written
  | 'exhausted' // the recording has no client message left
  | 'unused' // the session ended with recorded client messages never sent
  | 'invalid-message' // the message breaks the MCP schema of the negotiated version
  | 'not-json' // the client wrote a line that is not a JSON object
  | 'line-too-long' // the client wrote more than the player holds without a newline; reading stopped
  | 'id-reused' // a request with an id the client already used in this session
  | 'http-accept' // a POST whose Accept lacks application/json or text/event-stream (answered 406)
  | 'http-content-type' // a POST whose body is not declared application/json (answered 415)
  | 'http-session' // a request without the session id the server gave, or with another one
  | 'http-protocol-version' // a request after initialize without the negotiated MCP-Protocol-Version
  | 'http-method' // a request the server does not take (a path or method it never answered)
  | 'http-auth' // a POST without the Authorization header the recorded client sent (answered 401)
  | 'http-session-left-open' // the session ended without the DELETE the recorded client sent
  | 'http-retry' // a GET that resumes a stream the server closed, sooner than the stream's retry field asked
  | 'http-resume' // a GET after the server closed a stream, without the Last-Event-ID of that stream's last event
  | 'meta-missing' // a request of the stateless revision without a required _meta key the recorded one had (protocol version, capabilities)
  | 'meta-client-info-missing' // the same without io.modelcontextprotocol/clientInfo, which a client SHOULD send
  | 'http-header-mismatch' // a POST whose MCP-Protocol-Version, Mcp-Method, Mcp-Name or Mcp-Param-* header disagrees with its body, or is missing (answered 400, -32020)
  | 'stateless-session' // an Mcp-Session-Id sent to a server that gave no session (the stateless revision has none)
  | 'stateless-initialize' // initialize sent to a server the recording reached with server/discover (answered -32022)
  | 'roots-answer' // an answer to roots/list that breaks the spec: roots from a client that did not declare them, or a uri that is not file://
  | 'roots-error-code' // roots/list, undeclared, answered with an error whose code is not -32601 (what a client SHOULD answer)
  | 'input-required-retry' // the retry after an input_required result did not echo its requestState, or reused the first request's id
  | 'oauth-pkce' // an authorization request without a code_challenge, or with a method other than S256
  | 'oauth-pkce-unsupported' // the client went on with an authorization server whose metadata does not advertise S256
  | 'oauth-verifier' // a token request whose code_verifier does not hash (S256) to the authorization request's code_challenge
  | 'oauth-code' // a token request with a code the authorization server never gave, or one already used
  | 'oauth-refresh-token' // a refresh with a refresh token the authorization server never gave or refused (or no refresh where the recording has one)
  | 'oauth-refresh-rotation' // a refresh with a refresh token that a later token response replaced (rotated): the old one kept
  | 'oauth-resource' // an authorization or token request without the resource parameter, or naming another server
  | 'oauth-redirect-uri' // a redirect_uri the client did not register, or a token request's that differs from its authorization request's
  | 'oauth-client-metadata' // a registration (RFC 7591) where the authorization server takes the client's metadata document URL as client_id
  | 'oauth-client' // an authorization request under a client_id other than the one registered
  | 'oauth-registration-kept' // a registration again where the client holds one for the issuer, or one held for another issuer used
  | 'oauth-state' // an authorization request without state (advice)
  | 'oauth-iss-unchecked' // a code traded whose redirect named another issuer (iss), or none where the issuer says it names itself
  | 'oauth-state-unchecked' // a code traded whose redirect came back with a state other than the client's
  | 'oauth-token-in-query' // an access token in a request's URL
  | 'oauth-secret-printed' // the program printed a token, code, client secret or verifier of its authorization
  | 'oauth-discovery' // a metadata request at a well-known URL the discovery never reaches (out of order, or built wrong)
  | 'oauth-client-auth' // a token request that does not authenticate the client as its registration says
  | 'oauth-scope' // an authorization request after a challenge naming scopes, without them
  | 'oauth-scope-selection' // an authorization request without the scopes the spec's scope selection picks (advice)
  | 'oauth-resource-form' // a resource that names the MCP server less specifically, or with a trailing slash (advice)
  | 'oauth-token-redirect-uri' // a token request without the redirect_uri of its authorization request (advice: compatibility)
  | 'oauth-token-leaked' // an access token sent to the authorization server
  | 'oauth-metadata-mismatch' // the client went on with metadata naming another resource or issuer
  | 'oauth-registration-refused' // the client went on after its registration was refused
  | 'oauth-application-type'; // a registration without application_type (2026-07-28)

export interface RecordedRef {
  /** Index into the cassette's frames. */
  frame: number;
  /** Line in the cassette file, when it came from a file. */
  line?: number;
  message: JsonObject;
  /** An initialize after another in the recording: it starts a new session (the server lost the first). */
  newSession?: boolean;
}

export interface Diagnosis {
  kind: DiagnosisKind;
  /** One line in plain words. */
  message: string;
  /** The cassette file, when known. */
  cassette?: string;
  /** Where the difference is, for params-differ: `params.arguments.message`. */
  path?: string;
  expected?: Json;
  actual?: Json;
  /** What the client sent (parsed), or the line itself when it was not JSON or too long to keep
   *  (then its first 4096 characters and `…`). */
  received?: Json;
  /** The recorded client message the player was waiting for. */
  waitingFor?: RecordedRef;
  /** The recorded client message closest to what was received. */
  nearest?: RecordedRef;
  /** For unused: how many recorded client messages were never sent. */
  unusedCount?: number;
  /** For a message held to a recorded one and found to differ: the rule that found it (matching.ts:
   *  kind, id, roots-answer, answer, method, params). */
  rule?: string;
}

export interface PlayReport {
  /** No diagnosis at all (advice aside), every recorded client message consumed. */
  ok: boolean;
  /** Every recorded client message was consumed. */
  complete: boolean;
  consumed: number;
  expected: number;
  /** The first diagnoses (KEPT_DIAGNOSES in player-diagnoses.ts), in the order they happened: each a rule the client
   *  broke (a MUST, or the course's: rules.ts). */
  diagnoses: Diagnosis[];
  /** Recommendations the client did not follow (a SHOULD: rules.ts), each kind once: the session goes on. */
  advice: Diagnosis[];
  /** How many more there were, counted and not kept. */
  moreDiagnoses: number;
  /** The session message by message, each diagnosis on the client message that caused it. */
  exchange: Exchange;
}

/** One message of a played session (exchange.ts logs them), as a sequence diagram draws it: who sent
 *  what, in order, what the recording expected where the client spoke, and where it first strayed. */
export interface ExchangeStep {
  from: 'client' | 'server';
  /** A JSON-RPC request, notification or response; `line`: a line that is not a JSON-RPC message;
   *  `http`: an HTTP request refused before any message of it was played (its request line and the
   *  headers that decided it), or that refusal (its status and why). */
  kind: 'request' | 'notification' | 'response' | 'line' | 'http';
  /** As on the wire (clipped); for requests and notifications. */
  method?: string;
  /** As on the wire, after the player mapped recorded ids to the live ones (a string id clipped,
   *  an id that is neither string, number nor null as its JSON text); for requests and responses. */
  id?: Json;
  /** What went over the wire: the parsed message, or the text (clipped, `…` at the cut) when it is
   *  not JSON or its JSON text is longer than KEPT_MESSAGE_CHARS (exchange.ts). */
  message: Json;
  /** For a client message: the recorded client message it was matched against, or that the player
   *  was waiting for when it came (absent once the recording had no client message left). Clipped alike. */
  recorded?: Json;
  /** For a client message the player objected to: the first diagnosis it caused, when that one was
   *  kept (the player keeps its first diagnoses in full and only counts the rest). */
  diagnosis?: { kind: DiagnosisKind; message: string };
}

export interface Exchange {
  /** The first steps, in the order they went over the wire. */
  steps: ExchangeStep[];
  /** How many more steps there were, counted and not kept. */
  more: number;
}

/** "cassettes/x.yaml:40: params-differ: ..." */
export function formatDiagnosis(diagnosis: Diagnosis): string {
  const where = diagnosis.cassette ? `${diagnosis.cassette}${diagnosis.nearest?.line ? `:${diagnosis.nearest.line}` : ''}: ` : '';
  return `${where}${diagnosis.kind}: ${diagnosis.message}`;
}

/** The line that follows the kept diagnoses when there were more: "… and 127,980 more". */
export function moreDiagnosesLine(report: Pick<PlayReport, 'moreDiagnoses'>): string | undefined {
  return report.moreDiagnoses > 0 ? `… and ${report.moreDiagnoses.toLocaleString('en-US')} more` : undefined;
}

/** Every kept diagnosis formatted, then the count of the rest. */
export function formatDiagnoses(report: PlayReport): string[] {
  const lines = report.diagnoses.map(formatDiagnosis);
  const more = moreDiagnosesLine(report);
  if (more !== undefined) lines.push(more);
  return lines;
}
