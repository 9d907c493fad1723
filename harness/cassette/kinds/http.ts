// The diagnosis kinds of the Streamable HTTP transport (2025-11-25): its headers, its session and its streams.
import { COURSE, type KindRow } from '../../exchange/rows.ts';

const TRANSPORTS = '2025-11-25 basic/transports';

export const HTTP_KINDS = {
  'http-accept': {
    what: "a POST whose `Accept` lacks `application/json` or `text/event-stream` (answered 406, in the SDK servers' words)",
    level: 'must',
    source: `${TRANSPORTS}#sending-messages-to-the-server`,
    words: 'The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types.',
    refusal: true,
    hint: [
      'a server may answer a POST with JSON or with an event stream, and refuses (406) a client that does not take both',
      'send Accept: application/json, text/event-stream with every POST',
    ],
    example: 'your client\'s POST says Accept: "application/json"; it must accept both application/json and text/event-stream',
  },
  'http-content-type': {
    what: 'a POST whose `Content-Type` is not `application/json` (answered 415)',
    level: 'course',
    source: COURSE,
    words: "a POST's body is declared Content-Type: application/json (the recorded server, the official SDK's, refuses others with 415)",
    refusal: true,
    hint: ['a message is a JSON body: send Content-Type: application/json with every POST'],
    example: 'your client\'s POST says Content-Type: "text/plain"; a message is sent as application/json',
  },
  'http-session': {
    what: 'a request without the session id the server gave (400), or with another one (404)',
    level: 'must',
    source: `${TRANSPORTS}#session-management`,
    words:
      'If an MCP-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the MCP-Session-Id header on all of their subsequent HTTP requests. When a client receives HTTP 404 in response to a request containing an MCP-Session-Id, it MUST start a new session by sending a new InitializeRequest without a session ID attached.',
    refusal: true,
    hint: [
      'the initialize response gave a session id (the Mcp-Session-Id header): the server knows your session by it',
      'keep it from the first response that has it, and send it on every later request',
    ],
    example: 'your client sent POST /mcp without the Mcp-Session-Id header: send the session id the initialize response gave on every later request',
  },
  'http-protocol-version': {
    what: 'a request after initialize without the agreed `MCP-Protocol-Version`, or with another',
    level: 'must',
    source: `${TRANSPORTS}#protocol-version-header`,
    words: 'If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server.',
    hint: ['after initialize, send MCP-Protocol-Version: <the version the server answered> on every request'],
    example: 'your client sent POST /mcp without the MCP-Protocol-Version header: after initialize, every request says the version agreed (2025-11-25)',
  },
  'http-method': {
    what: 'a path other than the recorded one (404), or a method other than POST, GET and DELETE (405)',
    level: 'course',
    source: COURSE,
    words: 'the client talks to the URL it was given, with POST, GET and DELETE',
    refusal: true,
    example: 'your client sent PUT /mcp: a Streamable HTTP client sends POST, GET or DELETE',
  },
  'body-too-large': {
    what: "a request body of more than 16 MiB, to the MCP endpoint or to the authorization server (answered 413, and not read): the course's bound on what the player reads",
    level: 'course',
    source: COURSE,
    words: 'a request body is at most 16 MiB: the player reads none larger',
    refusal: true,
    example: 'your client sent POST /mcp with a body of more than 16 MiB, which the grader does not read',
  },
  'http-auth': {
    what: 'a POST without the `Authorization` header the recorded client sent, or over a recorded authorization any request (GET and DELETE too) without the access token issued last; the scheme is case-insensitive (answered 401)',
    level: 'must',
    source: '2025-11-25 basic/authorization#token-requirements',
    words:
      'Authorization MUST be included in every HTTP request from client to server, even if they are part of the same logical session. (The course: the headers of the config go on every request.)',
    refusal: true,
    hint: [
      'the configured headers, and the access token of an authorization ("Authorization: Bearer <token>"), go on every request: POST, GET and DELETE alike',
    ],
    example: 'your client sent initialize (id 1) without the Authorization header the server was given: send the configured headers on every request',
  },
  'http-session-left-open': {
    what: 'the session ended without the DELETE the recorded client sent; advice',
    level: 'should',
    source: `${TRANSPORTS}#session-management`,
    words:
      'Clients that no longer need a particular session (e.g., because the user is leaving the client application) SHOULD send an HTTP DELETE to the MCP endpoint with the MCP-Session-Id header, to explicitly terminate the session.',
    example:
      'the session ended without DELETE: close() should end the session it started (DELETE /mcp with its Mcp-Session-Id), so that the server can let it go',
  },
  'http-retry': {
    what: "a GET that resumes a stream the server closed (its event marked `closes`) sooner after the close than the stream's `retry:` field asked (served)",
    level: 'must',
    source: `${TRANSPORTS}#sending-messages-to-the-server`,
    words:
      'If the server does close the connection prior to terminating the SSE stream, it SHOULD send an SSE event with a standard retry field before closing the connection. The client MUST respect the retry field, waiting the given number of milliseconds before attempting to reconnect.',
    example:
      'your client resumed the stream of tools/call "count" (your id 2) sooner than the 500 ms the stream\'s retry field asked it to wait after the server closed it: …',
  },
  'http-resume': {
    what: "a GET after the server closed a stream, without a `Last-Event-ID` or with one that is not the last event id of a closed stream (answered as the recorded GET, or 400), or a closed stream never resumed by the session's end; advice: the rest of the stream never comes, so the case fails by what follows",
    level: 'should',
    source: `${TRANSPORTS}#resumability-and-redelivery`,
    words:
      'If the client wishes to resume after a disconnection (whether due to network failure or server-initiated closure), it SHOULD issue an HTTP GET to the MCP endpoint, and include the Last-Event-ID header to indicate the last event ID it received.',
    example:
      'your client\'s GET /mcp has no Last-Event-ID, while the server waits to resume the stream of tools/call "count" (your id 2) after its event "…": …',
  },
} satisfies Record<string, KindRow>;
