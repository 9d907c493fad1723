// The diagnosis kinds of a JSON-RPC session, whatever carries it: the recorded course of messages,
// the lifecycle, framing, ids, and the client's answers to the server's requests (roots).
import { COURSE, type KindRow } from '../../exchange/rows.ts';

const BASE = '2025-11-25 basic';
const LIFECYCLE = `${BASE}/lifecycle`;
const AS_RECORDED = 'a case plays one recorded session: the client sends the messages its program.ts calls ask for, in their order';

export const SESSION_KINDS = {
  'unexpected-method': {
    what: 'another method or kind of message than the next recorded one',
    level: 'course',
    source: COURSE,
    words: AS_RECORDED,
    example: 'at the start of the session, the server expected initialize (recorded id 1); your client sent ping (your id 1)',
  },
  'params-differ': {
    what: "right method, params (or an answer's result, or its error's code) differ; `path`, `expected`, `actual` say where",
    level: 'course',
    source: COURSE,
    words: AS_RECORDED,
    example:
      'your client sent tools/call "echo" (your id 3) with params that differ from the recording at params.arguments.message: expected "hi", got "hello"',
  },
  'out-of-order': {
    what: 'the message is recorded, but later (e.g. a skipped notification)',
    level: 'course',
    source: COURSE,
    words: AS_RECORDED,
    example:
      'after the initialize result, the server expected notifications/initialized; your client sent tools/list (your id 2), which the recording has later (line 13)',
  },
  exhausted: {
    what: 'the recording has no client message left',
    level: 'course',
    source: COURSE,
    words: AS_RECORDED,
    example: 'the recording has no more client messages; your client sent ping (your id 13)',
  },
  unused: {
    what: 'the session ended with recorded client messages never sent',
    level: 'course',
    source: COURSE,
    words: AS_RECORDED,
    example:
      'the session ended before your client sent tools/call "b" (recorded id 2); … before your client sent an answer to the server\'s ping request (the server\'s id 0)',
  },
  'before-initialize-result': {
    what: 'a request other than ping before the initialize result was written (the player holds that result back 50 ms, so a client that does not wait for it is seen); advice',
    level: 'should',
    source: `${LIFECYCLE}#initialization`,
    words: 'The client SHOULD NOT send requests other than pings before the server has responded to the initialize request.',
    example: 'your client sent tools/list (your id 1) before the initialize result had arrived: wait for it (only ping should come earlier)',
  },
  'initialized-too-early': {
    what: '`notifications/initialized` before the initialize result was written',
    level: 'must',
    source: `${LIFECYCLE}#initialization`,
    words: 'After successful initialization, the client MUST send an initialized notification to indicate it is ready to begin normal operations.',
    example:
      'your client sent notifications/initialized before the initialize result had arrived: initialized says the handshake succeeded, so it follows the result',
  },
  'invalid-message': {
    what: 'the message breaks the MCP schema',
    level: 'must',
    source: `${BASE}#messages`,
    words:
      'All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification. (The schema of the negotiated version says what each message holds.)',
    example: 'initialize (your id 1) is not valid MCP: params.clientInfo: Invalid input: expected object, received undefined',
  },
  'not-json': {
    what: 'a line that is not one JSON object (answered with a JSON-RPC parse error); after 1,000 such lines on a stream (stdio, not HTTP, where each is a request of its own) the player stops reading the client',
    level: 'must',
    source: `${BASE}/transports#stdio`,
    words: "The client MUST NOT write anything to the server's stdin that is not a valid MCP message.",
    example: 'your client wrote a line that is not JSON: this is not json; … wrote 1,000 lines that are not messages; the player stopped reading',
  },
  'line-too-long': {
    what: "a line of more than 16 MiB without a newline: the player stops reading the client there (the course's bound on what it holds)",
    level: 'course',
    source: COURSE,
    words: 'a message is at most 16 MiB on one line: the player reads no further',
    example:
      'your client wrote a line longer than 16 MiB without a newline; the player stopped reading: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"aaaa…',
  },
  'nested-too-deep': {
    what: "a message that nests arrays and objects more than 500 levels deep (answered with a JSON-RPC Invalid Request error, and not read further): the course's bound on what the player reads, where JSON-RPC and MCP set none",
    level: 'course',
    source: COURSE,
    words: 'a message nests arrays and objects at most 500 levels deep: the player reads no deeper',
    example:
      'your client wrote a message nested deeper than 500 levels, which the grader does not read: {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":[[[[[[[[[...',
  },
  'id-reused': {
    what: 'a request with an id the client already gave a request in the session, answered or not (2025-11-25); in the stateless revision, one still unanswered',
    level: 'must',
    source: `${BASE}#requests`,
    words:
      'The request ID MUST NOT have been previously used by the requestor within the same session. (2026-07-28: the request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for.)',
    example:
      'your client sent tools/list (your id 1) with an id it already gave initialize in this session: every request needs an id never used before in the session',
  },
  'roots-answer': {
    what: "an answer to the server's `roots/list` that breaks the spec: roots from a client that did not declare the capability (a client without roots answers an error), a result without a `roots` array, a root whose `uri` is not `file://` (an error from a client that declared roots differs from the recording: `params-differ`)",
    level: 'must',
    source: '2025-11-25 client/roots#capabilities',
    words:
      'Clients that support roots MUST declare the roots capability during initialization. (Data types, Root:) uri: Unique identifier for the root. This MUST be a file:// URI in the current specification.',
    example:
      'your client\'s answer to the server\'s roots/list breaks the spec at result: expected "error -32601 (your client did not declare roots)", got {"roots":[]}',
  },
  'roots-error-code': {
    what: "a client that declared no roots answers the server's `roots/list` with an error whose code is not -32601 (Method not found); advice",
    level: 'should',
    source: '2025-11-25 client/roots#error-handling',
    words: 'Clients SHOULD return standard JSON-RPC errors for common failure cases: Client does not support roots: -32601 (Method not found)',
    example: "your client answered the server's roots/list with error -32603: a client without roots answers -32601 (Method not found)",
  },
} satisfies Record<string, KindRow>;
