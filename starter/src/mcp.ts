// Your MCP client. Each stage of the course adds to this file; run
//   npx theinference test --stage <stage> --watch
// and make the grader happy, one stage at a time.

// ---------------------------------------------------------------- stage 1: config-and-framing

/** Line-delimited framing: one JSON message per line, terminated by '\n'. */
export function frame(msg: object): string {
  // -> compact JSON + a single trailing newline
  throw new Error('not implemented yet: frame (stage config-and-framing)');
}

export function parseFrame(line: string): unknown {
  // -> JSON.parse the line back into an object (trim the newline first)
  throw new Error('not implemented yet: parseFrame (stage config-and-framing)');
}

export type ServerConfig =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; type: 'http'; url: string; headers: Record<string, string> };

/** .mcp.json text -> its servers, in file order. `type` may be omitted:
 *  `command` means stdio, `url` means http. args/env/headers default to empty.
 *  Throws on invalid JSON, a missing `mcpServers` object, or an entry that is
 *  neither a valid stdio nor a valid http server. */
export function parseConfig(text: string): ServerConfig[] {
  throw new Error('not implemented yet: parseConfig (stage config-and-framing)');
}

// ---------------------------------------------------------------- stage 2: handshake

/** A byte stream, like a child's stdin/stdout: what is written goes to the server, what the
 *  server writes arrives in chunks cut at arbitrary points (half a line, or several lines). */
export interface Wire {
  write(data: string): void;
  readonly chunks: AsyncIterable<string>;
  close(): void;
}

/** One JSON-RPC message at a time. */
export interface Transport {
  send(msg: object): Promise<void>;
  readonly messages: AsyncIterable<unknown>;
  close(): Promise<void>;
}

/** Newline-delimited JSON over a Wire: frame() what you send; buffer the chunks, cut them into
 *  lines, parseFrame() each line. A line that is not JSON (a server's stray log line) is skipped. */
export class StdioTransport implements Transport {
  readonly messages: AsyncIterable<unknown>;

  constructor(wire: Wire) {
    throw new Error('not implemented yet: StdioTransport (stage handshake)');
  }

  async send(msg: object): Promise<void> {
    throw new Error('not implemented yet: StdioTransport.send (stage handshake)');
  }

  async close(): Promise<void> {
    throw new Error('not implemented yet: StdioTransport.close (stage handshake)');
  }
}

/** A JSON-RPC error response: code, message and data as the server sent them. */
export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'McpError';
  }
}

/** The protocol versions this client speaks, newest first: initialize asks for the first. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

export interface InitializeResult {
  protocolVersion: string;
  capabilities: Record<string, unknown>;
  serverInfo: { name: string; version: string; [key: string]: unknown };
  instructions?: string;
  [key: string]: unknown;
}

export interface Tool {
  name: string;
  description?: string;
  /** Required by MCP, and still left out by some servers. */
  inputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface CallToolResult {
  content: Record<string, unknown>[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [key: string]: unknown;
}

export class McpClient {
  /** `options` is stage 6's (stateless): leave it until then. */
  constructor(transport: Transport, clientInfo = { name: 'mcp-course-client', version: '1.0.0' }, options: McpClientOptions = {}) {
    throw new Error('not implemented yet: McpClient (stage handshake)');
  }

  /** Sends a request with a fresh id and resolves with the result of the response that has the
   *  same id (responses may come in any order, notifications in between); an error -> McpError. */
  request(method: string, params?: object): Promise<any> {
    throw new Error('not implemented yet: McpClient.request (stage handshake)');
  }

  notify(method: string, params?: object): Promise<void> {
    throw new Error('not implemented yet: McpClient.notify (stage handshake)');
  }

  /** initialize, check the protocolVersion the server answers with (refuse one you don't
   *  support), then notifications/initialized. */
  async initialize(): Promise<InitializeResult> {
    throw new Error('not implemented yet: McpClient.initialize (stage handshake)');
  }

  // -------------------------------------------------------------- stage 3: tools

  /** Every tool: follow nextCursor until the server gives none. */
  async listTools(): Promise<Tool[]> {
    throw new Error('not implemented yet: McpClient.listTools (stage tools)');
  }

  /** The tool's result, isError included (a failed tool is a result, not an exception). */
  async callTool(name: string, args: object = {}): Promise<CallToolResult> {
    throw new Error('not implemented yet: McpClient.callTool (stage tools)');
  }

  async close(): Promise<void> {
    throw new Error('not implemented yet: McpClient.close (stage handshake)');
  }

  // -------------------------------------------------------------- stage 6: stateless

  /** Which era the server speaks: `server/discover` first, its `_meta` (protocol version: the first of
   *  STATELESS_PROTOCOL_VERSIONS, clientInfo, capabilities) and headers as the 2026-07-28 revision
   *  asks. A -32022 error: once more, with a version its `data.supported` lists and you speak. Any
   *  other error (but -32020 and -32021, the era's own), or an HTTP error: a 2025 server, so
   *  initialize() as before. In the stateless era, every request then carries that `_meta` too; a
   *  result with `resultType: "input_required"` is answered (onInputRequest for each of its
   *  inputRequests) by sending the request again with a new id, `inputResponses` and the
   *  `requestState` it gave; a result without resultType is complete. */
  async connect(): Promise<Connection> {
    throw new Error('not implemented yet: McpClient.connect (stage stateless)');
  }

  // -------------------------------------------------------------- stage 8: resources-and-prompts
  // Each refuses (throws, sending nothing) a method whose capability the server did not declare in
  // its initialize result: resources (and resources.subscribe for subscribe), prompts.

  /** Every resource: follow nextCursor until the server gives none. The list is kept, and fetched
   *  again only after the server's notifications/resources/list_changed. */
  async listResources(): Promise<Resource[]> {
    throw new Error('not implemented yet: McpClient.listResources (stage resources-and-prompts)');
  }

  /** Every resource template, kept as listResources keeps its list. */
  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    throw new Error('not implemented yet: McpClient.listResourceTemplates (stage resources-and-prompts)');
  }

  /** Every prompt: kept until the server's notifications/prompts/list_changed. */
  async listPrompts(): Promise<Prompt[]> {
    throw new Error('not implemented yet: McpClient.listPrompts (stage resources-and-prompts)');
  }

  /** resources/read: each of its contents, text as it is, a blob as its bytes (decodeBase64). */
  async readResource(uri: string): Promise<ResourceContents[]> {
    throw new Error('not implemented yet: McpClient.readResource (stage resources-and-prompts)');
  }

  /** prompts/get, each argument sent as a string. */
  async getPrompt(name: string, args: Record<string, unknown> = {}): Promise<GetPromptResult> {
    throw new Error('not implemented yet: McpClient.getPrompt (stage resources-and-prompts)');
  }

  /** resources/subscribe; then each notifications/resources/updated for `uri` calls onUpdated(uri). */
  async subscribe(uri: string, onUpdated: (uri: string) => void): Promise<void> {
    throw new Error('not implemented yet: McpClient.subscribe (stage resources-and-prompts)');
  }

  /** resources/unsubscribe: no more onUpdated for `uri`. */
  async unsubscribe(uri: string): Promise<void> {
    throw new Error('not implemented yet: McpClient.unsubscribe (stage resources-and-prompts)');
  }
}

/** A real server as a child process (node:child_process spawn): its stdin and stdout are the wire. */
export function spawnWire(server: Extract<ServerConfig, { type: 'stdio' }>): Wire {
  throw new Error('not implemented yet: spawnWire (stage handshake)');
}

// ---------------------------------------------------------------- stage 4: streamable-http

/** Streamable HTTP (MCP 2025-11-25) with fetch: each message is a POST to the URL. The configured
 *  headers (a bearer token) go on every request; so does the `Mcp-Session-Id` a response gave, and,
 *  once the initialize result has passed, `MCP-Protocol-Version: <the version it agreed>`. */
export class HttpTransport implements Transport {
  readonly messages: AsyncIterable<unknown>;

  constructor(url: string, options: { headers?: Record<string, string>; oauth?: OAuthClient } = {}) {
    throw new Error('not implemented yet: HttpTransport (stage streamable-http)');
  }

  /** POST with `Content-Type: application/json` and `Accept: application/json, text/event-stream`
   *  (both). The reply is one JSON message, an event stream (readSse: every message on it, in
   *  order), or 202 with no body. An HTTP error -> an Error that names the status and the URL. A
   *  session the server lost (404, or 400, to a session id): initialize again, once, then retry
   *  (McpClient has its initialize result already: the new one is the transport's own). A stream
   *  that ends before its request's response, after an event with an `id:`: wait its `retry:` (ms),
   *  then GET the URL with `Accept: text/event-stream` and `Last-Event-ID: <that id>`, and read on. */
  async send(msg: object): Promise<void> {
    throw new Error('not implemented yet: HttpTransport.send (stage streamable-http)');
  }

  /** DELETE when there is a session (that ends it on the server), then end `messages`.
   *  (Stage 6, stateless: a request whose params._meta says a protocol version of that era goes
   *  without a session, with `MCP-Protocol-Version` (that version), `Mcp-Method`, `Mcp-Name` and the
   *  `Mcp-Param-*` its tool's `x-mcp-header` annotations ask for; see docs/course.md.) */
  async close(): Promise<void> {
    throw new Error('not implemented yet: HttpTransport.close (stage streamable-http)');
  }
}

/** The JSON-RPC messages of a text/event-stream body, in order: `data:` lines (joined with '\n')
 *  until a blank line; `:` comments (keep-alives), `event:`, `id:` and an event with empty data
 *  carry no message. Lines end in '\n', '\r\n' or '\r', and a chunk may end anywhere (inside a
 *  line, a '\r\n' or a character: decode with a streaming TextDecoder). */
export function readSse(body: ReadableStream<Uint8Array>): AsyncIterable<unknown> {
  throw new Error('not implemented yet: readSse (stage streamable-http)');
}

// ---------------------------------------------------------------- stage 5: translate

/** The tool as the Claude API takes it: `{ name, description, input_schema }`, in that order (no
 *  description key when the tool has none). `input_schema` is the tool's `inputSchema` without its
 *  top-level `$schema`, and otherwise as it is; a tool without one gets
 *  `{ type: 'object', properties: {} }`. Leave the MCP tool itself unchanged. */
export function toClaudeTool(tool: Tool): { name: string; description?: string; input_schema: Record<string, unknown> } {
  throw new Error('not implemented yet: toClaudeTool (stage translate)');
}

// ---------------------------------------------------------------- stage 6: stateless

/** The protocol versions of the stateless era (2026-07-28: no initialize, no session, `_meta` on
 *  every request), newest first: connect() offers the first. */
export const STATELESS_PROTOCOL_VERSIONS = ['2026-07-28'];

/** A request the server needs answered (from an `input_required` result, or, from a 2025 server, a
 *  request of its own): `elicitation/create`, `sampling/createMessage` or `roots/list`. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface McpClientOptions {
  /** The client capabilities it declares (in `_meta`; in initialize too). Default `{}`. */
  capabilities?: Record<string, unknown>;
  /** The answer to one input request (an ElicitResult for `elicitation/create`, ...). */
  onInputRequest?: (request: InputRequest) => unknown | Promise<unknown>;
}

/** The result of server/discover. */
export interface DiscoverResult {
  supportedVersions: string[];
  capabilities: Record<string, unknown>;
  instructions?: string;
  /** `io.modelcontextprotocol/serverInfo`: the server's name and version. */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** What connect() found: a stateless server and its discover result, or a 2025 one, initialized. */
export type Connection =
  | { era: 'modern'; protocolVersion: string; server: DiscoverResult }
  | { era: 'legacy'; protocolVersion: string; server: InitializeResult };

// ---------------------------------------------------------------- stage 7: authorization

/** What the authorization found and decided, for the program to print: never a token, a code, a
 *  verifier or a secret. */
export interface AuthorizationFound {
  /** Where the protected resource metadata was read (RFC 9728). */
  resourceMetadata: string;
  /** The authorization server (its issuer), and where its metadata was read (RFC 8414, or OpenID discovery). */
  issuer: string;
  serverMetadata: string;
  /** How the client got its client_id: given, its metadata document's URL, kept from an earlier run, or registered now. */
  registration: 'pre-registered' | 'metadata-document' | 'stored' | 'dynamic';
  /** The scopes the token was granted (the token response's, else those asked for). */
  scopes: string[];
  /** Authorization requests made, and refreshes. */
  authorizations: number;
  refreshes: number;
}

export interface OAuthOptions {
  /** Where the authorization server sends the user back (registered as the client's redirect URI). */
  redirectUri: string;
  /** The user at a browser: follows the authorization URL (signing in, consenting) to the redirect
   *  back to redirectUri, and returns that URL. */
  signIn(authorizationUrl: string): Promise<string>;
  clientName?: string;
  /** A client_id given beforehand: no registration; and its secret, if it has one. */
  clientId?: string;
  clientSecret?: string;
  /** The HTTPS URL of the client's metadata document, used as its client_id where the server supports it. */
  clientMetadataUrl?: string;
  /** The registrations kept between runs, by the issuer of the authorization server that made each:
   *  the one held for an issuer is used there, and each registration made is kept here. */
  registrations?: Map<string, ClientRegistration>;
}

/** A client's registration at one authorization server, as its registration response said (RFC 7591 3.2.1). */
export interface ClientRegistration {
  client_id: string;
  client_secret?: string;
  token_endpoint_auth_method?: string;
  [field: string]: unknown;
}

/** The MCP spec's authorization (2025-11-25) for one client, which HttpTransport (its `oauth` option)
 *  calls on a 401: the challenge's resource_metadata (else the well-known URLs, the endpoint's path
 *  first), the authorization server's metadata (RFC 8414; for an issuer with a path, the well-known
 *  name goes before the path), S256 in its code_challenge_methods_supported (else refuse to go on),
 *  registration (the one kept for the issuer, else RFC 7591 once, kept), the authorization request with PKCE (S256), state and resource,
 *  the redirect checked (its state the one sent; its iss, if any, the issuer), the token request
 *  with the verifier and resource; then the token on every request. See docs/course.md. */
export class OAuthClient {
  found: AuthorizationFound | undefined;

  constructor(options: OAuthOptions) {
    throw new Error('not implemented yet: OAuthClient (stage authorization)');
  }

  /** `Authorization: Bearer <access token>`, once there is one; else nothing. */
  headers(): Record<string, string> {
    throw new Error('not implemented yet: OAuthClient.headers (stage authorization)');
  }

  /** The server at `url` refused a request with `response` (401, or 403 insufficient_scope): authorize. */
  async challenged(url: string, response: Response): Promise<void> {
    throw new Error('not implemented yet: OAuthClient.challenged (stage authorization)');
  }
}

// ---------------------------------------------------------------- stage 8: resources-and-prompts

export interface Resource {
  uri: string;
  name: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  mimeType?: string;
  [key: string]: unknown;
}

export interface Prompt {
  name: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean }[];
  [key: string]: unknown;
}

/** A resource's contents as readResource returns them: text as it is, a blob as its bytes. */
export type ResourceContents = { uri: string; mimeType?: string; text: string } | { uri: string; mimeType?: string; bytes: Uint8Array };

export interface GetPromptResult {
  description?: string;
  messages: { role: 'user' | 'assistant'; content: Record<string, unknown> }[];
  [key: string]: unknown;
}

/** Base64 (RFC 4648 section 4: A-Z a-z 0-9 + /, padded with =) to its bytes. */
export function decodeBase64(text: string): Uint8Array {
  throw new Error('not implemented yet: decodeBase64 (stage resources-and-prompts)');
}

export type TemplateValue = string | string[] | Record<string, string>;

/** A URI template (RFC 6570, levels 1 to 4) expanded with these values; see docs/course.md. */
export function expandTemplate(template: string, values: Record<string, TemplateValue | undefined>): string {
  throw new Error('not implemented yet: expandTemplate (stage resources-and-prompts)');
}
