// The diagnosis kinds of the stateless revision (2026-07-28): the _meta every request carries, the
// headers that mirror the body, no session, no initialize, and the retry of an input_required result.
import { COURSE, type KindRow } from '../../exchange/rows.ts';

const STATELESS_BASE = '2026-07-28 basic';
const STATELESS_HTTP = '2026-07-28 basic/transports/streamable-http';

export const STATELESS_KINDS = {
  'meta-missing': {
    what: 'a request of the stateless revision without its protocol version or client capabilities in `_meta`, which the recorded one had (answered 400, -32602)',
    level: 'must',
    source: `${STATELESS_BASE}#meta`,
    words:
      'Client requests carry the following io.modelcontextprotocol/* fields in _meta; fields marked as required MUST be included on every request. (A server rejects a request missing one with -32602, Invalid params.)',
    hint: [
      'in the stateless revision every request carries in params._meta its protocol version and client capabilities (io.modelcontextprotocol/protocolVersion, clientCapabilities), and should carry its client info (clientInfo)',
      'set all three on every request after connect() found the revision, server/discover included (a _meta the caller gave keeps its own keys)',
    ],
    example:
      'your client sent tools/list (your id 1) without io.modelcontextprotocol/clientCapabilities in params._meta: in the stateless revision every request says its protocol version and client capabilities there (…)',
  },
  'meta-client-info-missing': {
    what: 'the same without `io.modelcontextprotocol/clientInfo` (served); advice',
    level: 'should',
    source: `${STATELESS_BASE}#meta`,
    words: 'Clients SHOULD include io.modelcontextprotocol/clientInfo on every request unless specifically configured not to do so.',
    example: 'your client sent tools/list (your id 1) without io.modelcontextprotocol/clientInfo in params._meta: say who the client is on every request',
  },
  'http-header-mismatch': {
    what: 'a stateless POST whose MCP-Protocol-Version, Mcp-Method, Mcp-Name or Mcp-Param-* header is missing or disagrees with its body (answered 400, -32020)',
    level: 'must',
    source: `${STATELESS_HTTP}#request-metadata`,
    words:
      'The client MUST include the request metadata headers; their values MUST match the request body, encoded where a value cannot be a plain ASCII header value (=?base64?…?=); the server MUST reject a mismatch with 400 Bad Request and a HeaderMismatch error.',
    refusal: true,
    hint: [
      'a server of the revision checks the headers that mirror the body, and refuses (400, -32020) a request whose headers disagree with it or lack one',
      "send MCP-Protocol-Version equal to the _meta's version, Mcp-Method, Mcp-Name on tools/call (params.name), and Mcp-Param-<Name> for each argument the tool's inputSchema marks x-mcp-header (=?base64?...?= when not plain ASCII)",
    ],
    example:
      'your client\'s POST of tools/call "echo" (your id 4) has headers that disagree with its body: the body carries params.name="echo" but the Mcp-Name header names "echo2"; …',
  },
  'stateless-session': {
    what: 'an `Mcp-Session-Id` sent to a server that gave no session (served); advice',
    level: 'should',
    source: `${STATELESS_HTTP}#earlier-streamable-http-revisions`,
    words:
      'An Mcp-Session-Id header on a request: ignore it, and do not mint or echo session IDs. (What a server of this revision SHOULD do: the revision has no sessions.)',
    example:
      'your client sent POST /mcp with Mcp-Session-Id "remembered", but the server gave no session (the stateless revision has none): the server ignores it; a client of the revision need not send it',
  },
  'stateless-initialize': {
    what: 'initialize where the recording probed with server/discover (answered 400, -32022 with the supported versions)',
    level: 'course',
    source: COURSE,
    words: 'connect() probes with server/discover first, and falls back to initialize only where the server does not know the revision',
    refusal: true,
    hint: [
      'the server speaks the stateless revision: it has no initialize, and refuses one (-32022)',
      'connect() probes with server/discover first; initialize() only when the probe shows a 2025 server (an error other than -32020/-32021/-32022, or a -32022 whose common version is of 2025)',
    ],
    example:
      'your client sent initialize (your id 0), but the server speaks the stateless revision (2026-07-28; the recording reached it with server/discover): …',
  },
  'input-required-retry': {
    what: 'the retry after an `input_required` result without its `requestState` or with another (answered with that result again)',
    level: 'must',
    source: '2026-07-28 basic/patterns/mrtr',
    words:
      'If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request. … The JSON-RPC id MUST be different between the initial request and the retry, as they are independent requests.',
    hint: [
      'an input_required result is answered by sending the request again, as a new request with an id of its own: inputResponses (each answer under its key) and the requestState it gave, unchanged',
      'the server keeps nothing between the two: without its requestState it asks again',
    ],
    example:
      'your client retried tools/call "deploy" (your id 9) without the requestState the input_required result gave: echo it, unchanged, in params.requestState (…)',
  },
} satisfies Record<string, KindRow>;
