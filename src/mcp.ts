// The reference solution of the MCP client course. Each stage adds to this file;
// starter/src/mcp.ts has the same exports with bodies that say which stage implements them.
import { spawn } from 'node:child_process';

// ---------------------------------------------------------------- stage 1: config-and-framing

/** Line-delimited framing: one JSON message per line, terminated by '\n'. */
export function frame(msg: object): string {
  return JSON.stringify(msg) + '\n';
}

/** One line off the stream (with or without its '\n' or '\r\n') back to the message. */
export function parseFrame(line: string): unknown {
  return JSON.parse(line.trim());
}

export type ServerConfig =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; type: 'http'; url: string; headers: Record<string, string> };

/** .mcp.json text -> its servers, in file order. `type` may be omitted:
 *  `command` means stdio, `url` means http. args/env/headers default to empty.
 *  Throws on invalid JSON, a missing `mcpServers` object, or an entry that is
 *  neither a valid stdio nor a valid http server. */
export function parseConfig(text: string): ServerConfig[] {
  const root: unknown = JSON.parse(text);
  if (!isRecord(root) || !isRecord(root.mcpServers)) {
    throw new Error('.mcp.json: expected an object with an "mcpServers" object');
  }
  return Object.entries(root.mcpServers).map(([name, entry]) => parseServer(name, entry));
}

function parseServer(name: string, entry: unknown): ServerConfig {
  if (!isRecord(entry)) throw new Error(`server "${name}": expected an object`);
  const type = entry.type ?? inferType(entry);
  if (type === 'stdio') {
    const { command, args = [], env = {} } = entry;
    if (typeof command !== 'string' || command === '') throw new Error(`server "${name}": "command" must be a non-empty string`);
    if (!isStringArray(args)) throw new Error(`server "${name}": "args" must be an array of strings`);
    if (!isStringRecord(env)) throw new Error(`server "${name}": "env" must map names to strings`);
    return { name, type, command, args, env };
  }
  if (type === 'http') {
    const { url, headers = {} } = entry;
    if (typeof url !== 'string' || !isHttpUrl(url)) throw new Error(`server "${name}": "url" must be an http(s) URL`);
    if (!isStringRecord(headers)) throw new Error(`server "${name}": "headers" must map names to strings`);
    return { name, type, url, headers };
  }
  throw new Error(`server "${name}": expected "type" to be "stdio" or "http", or a "command" or a "url"`);
}

/** `command` means stdio and `url` means http; both or neither is ambiguous. */
function inferType(entry: Record<string, unknown>): 'stdio' | 'http' | undefined {
  const hasCommand = 'command' in entry;
  const hasUrl = 'url' in entry;
  if (hasCommand === hasUrl) return undefined;
  return hasCommand ? 'stdio' : 'http';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------- stage 2: handshake

/** A byte stream, like a child's stdin/stdout: what is written goes to the server, what the
 *  server writes arrives in chunks cut at arbitrary points. */
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

/** Newline-delimited JSON over a Wire. Lines that are not JSON (a careless server's log line on
 *  stdout) are skipped, as the official SDK's transport does, and reported on stderr. */
export class StdioTransport implements Transport {
  readonly messages: AsyncIterable<unknown>;

  constructor(private readonly wire: Wire) {
    this.messages = readLines(wire.chunks);
  }

  async send(msg: object): Promise<void> {
    this.wire.write(frame(msg));
  }

  async close(): Promise<void> {
    this.wire.close();
  }
}

async function* readLines(chunks: AsyncIterable<string>): AsyncIterable<unknown> {
  let buffered = '';
  for await (const chunk of chunks) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim() === '') continue;
      try {
        yield parseFrame(line);
      } catch {
        console.error(`skipped a line that is not JSON: ${line.trim()}`);
      }
    }
  }
}

/** A JSON-RPC error response, thrown by McpClient.request. */
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

/** The protocol versions this client speaks, newest first. */
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
  /** Required by MCP, and still left out by some servers (toClaudeTool gives such a tool an empty one). */
  inputSchema?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface CallToolResult {
  content: Record<string, unknown>[];
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [key: string]: unknown;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export class McpClient {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly reading: Promise<void>;

  constructor(
    private readonly transport: Transport,
    private readonly clientInfo = { name: 'mcp-course-client', version: '1.0.0' },
  ) {
    this.reading = this.read();
  }

  /** Sends a request and waits for the response with its id; a JSON-RPC error becomes McpError. */
  request(method: string, params?: object): Promise<any> {
    const id = this.nextId++;
    const response = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    return this.transport.send({ jsonrpc: '2.0', id, method, ...(params && { params }) }).then(() => response, (error) => this.unsent(id, error));
  }

  notify(method: string, params?: object): Promise<void> {
    return this.transport.send({ jsonrpc: '2.0', method, ...(params && { params }) });
  }

  /** The handshake: initialize, check the version the server answers with, then initialized. */
  async initialize(): Promise<InitializeResult> {
    const result: InitializeResult = await this.request('initialize', {
      protocolVersion: SUPPORTED_PROTOCOL_VERSIONS[0],
      capabilities: {},
      clientInfo: this.clientInfo,
    });
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      await this.close();
      throw new Error(`the server offered protocol version ${result.protocolVersion}, which this client does not support`);
    }
    await this.notify('notifications/initialized');
    return result;
  }

  // -------------------------------------------------------------- stage 3: tools

  /** Every tool, following nextCursor until the server gives none. */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  /** A tool's result, isError included: a tool that failed is still a result, not an exception. */
  callTool(name: string, args: object = {}): Promise<CallToolResult> {
    return this.request('tools/call', { name, arguments: args });
  }

  async close(): Promise<void> {
    await this.transport.close();
    await this.reading;
  }

  /** Routes each incoming message: responses to their pending request, requests answered. */
  private async read(): Promise<void> {
    for await (const message of this.transport.messages) {
      if (!isRecord(message)) continue;
      if ('method' in message && 'id' in message) {
        await this.answer(message);
      } else if ('id' in message && typeof message.id === 'number') {
        const pending = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (isRecord(message.error)) {
          const { code, message: text, data } = message.error;
          pending?.reject(new McpError(Number(code), String(text), data));
        } else {
          pending?.resolve(message.result);
        }
      }
      // notifications (list_changed, progress, log messages) need nothing from this client
    }
    for (const pending of this.pending.values()) pending.reject(new Error('the connection closed before the server answered'));
    this.pending.clear();
  }

  /** A request from the server: ping is answered, anything else is not supported. */
  private answer(request: Record<string, unknown>): Promise<void> {
    const reply = request.method === 'ping'
      ? { result: {} }
      : { error: { code: -32601, message: `Method not found: ${String(request.method)}` } };
    return this.transport.send({ jsonrpc: '2.0', id: request.id, ...reply });
  }

  /** A request the transport could not send (an HTTP error): no response will come for it, so it
   *  waits no more (else close() would fail it again, with nobody left to hear). */
  private unsent(id: number, error: unknown): never {
    this.pending.delete(id);
    throw error;
  }
}

/** A real server as a child process: its stdin and stdout are the wire (stderr passes through). */
export function spawnWire(server: Extract<ServerConfig, { type: 'stdio' }>): Wire {
  const child = spawn(server.command, server.args, { env: { ...process.env, ...server.env }, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8'); // a character cut between two reads is put back together
  return {
    write: (data) => void child.stdin.write(data),
    chunks: child.stdout,
    close: () => child.stdin.end(),
  };
}

// ---------------------------------------------------------------- stage 4: streamable-http

/** Streamable HTTP (MCP 2025-11-25) with fetch. Every message is a POST to the one URL; the reply
 *  is one JSON message, an event stream of messages (notifications and server requests before the
 *  response), or 202 with no body (for a notification, or for the client's answer to a server). */
export class HttpTransport implements Transport {
  readonly messages: AsyncIterable<unknown>;
  private readonly inbox = new Inbox();
  /** Aborts what is still in flight when the transport closes. */
  private readonly closing = new AbortController();
  private sessionId: string | undefined;
  private protocolVersion: string | undefined;
  /** The initialize request that went out, kept to start a new session if the server loses this one. */
  private initializeRequest: Record<string, unknown> | undefined;
  private reinitializing: Promise<void> | undefined;
  private reinitializations = 0;

  constructor(
    private readonly url: string,
    private readonly options: { headers?: Record<string, string> } = {},
  ) {
    this.messages = this.inbox;
  }

  async send(msg: object): Promise<void> {
    if (isRecord(msg) && msg.method === 'initialize') this.initializeRequest = msg;
    const session = this.sessionId;
    let response = await this.post(msg);
    if (this.lostSession(response, session)) {
      // The server no longer knows the session (it restarted, or ended it): start a new one, once.
      await response.body?.cancel();
      if (this.sessionId === session) this.reinitializing ??= this.reinitialize().finally(() => (this.reinitializing = undefined));
      await this.reinitializing; // a send that lost the session at the same time waits for the same new one
      response = await this.post(msg);
    }
    for await (const message of this.replies(response)) {
      if (isRecord(message) && message.id === this.initializeRequest?.id) this.agreed(message);
      this.inbox.push(message);
    }
  }

  /** DELETE ends the session on the server (405 means it does not let clients do that), then
   *  `messages` ends. */
  async close(): Promise<void> {
    try {
      if (this.sessionId !== undefined) {
        const response = await fetch(this.url, { method: 'DELETE', headers: this.headers() });
        await response.body?.cancel();
        this.sessionId = undefined;
      }
    } finally {
      this.closing.abort();
      this.inbox.end();
    }
  }

  /** The configured headers (a bearer token) go on every request, and so do the session id and,
   *  once the initialize response has passed, the protocol version it agreed. */
  private headers(): Record<string, string> {
    return {
      ...this.options.headers,
      ...(this.sessionId !== undefined && { 'Mcp-Session-Id': this.sessionId }),
      ...(this.protocolVersion !== undefined && { 'MCP-Protocol-Version': this.protocolVersion }),
    };
  }

  private async post(msg: object): Promise<Response> {
    const response = await fetch(this.url, {
      method: 'POST',
      headers: { ...this.headers(), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(msg),
      signal: this.closing.signal,
    });
    this.sessionId = response.headers.get('Mcp-Session-Id') ?? this.sessionId;
    return response;
  }

  /** The messages of a reply, in order; an HTTP error is thrown instead. */
  private async *replies(response: Response): AsyncIterable<unknown> {
    if (!response.ok) throw await httpError(response, this.url);
    const type = response.headers.get('Content-Type') ?? '';
    if (type.startsWith('text/event-stream') && response.body) yield* readSse(response.body);
    else if (type.startsWith('application/json')) yield await response.json();
    else await response.body?.cancel(); // 202 Accepted: nothing to read
  }

  /** The initialize result: every later request says the protocol version it agreed. */
  private agreed(response: Record<string, unknown>): void {
    if (isRecord(response.result) && typeof response.result.protocolVersion === 'string') this.protocolVersion = response.result.protocolVersion;
  }

  /** 404 is what the spec says a server answers to a session it does not know; servers built on
   *  the SDK's examples (server-everything among them) answer 400. Either, while a session is in use. */
  private lostSession(response: Response, session: string | undefined): boolean {
    return (response.status === 404 || response.status === 400) && session !== undefined && this.initializeRequest !== undefined;
  }

  /** A new session, as the spec asks: the initialize request again, without the old session id, then
   *  notifications/initialized. McpClient already has its initialize result and must not get
   *  another: the request goes with an id of its own (a string, which McpClient's numeric ids never
   *  are) and its response stays here, while anything else on that reply is handed on as usual. */
  private async reinitialize(): Promise<void> {
    this.sessionId = undefined;
    this.protocolVersion = undefined;
    const request = { ...this.initializeRequest, id: `reinitialize-${++this.reinitializations}` };
    let result: Record<string, unknown> | undefined;
    for await (const message of this.replies(await this.post(request))) {
      if (isRecord(message) && message.id === request.id) result = message;
      else this.inbox.push(message);
    }
    if (!isRecord(result?.result)) throw new Error(`the server lost the session, and starting a new one failed: ${JSON.stringify(result?.error)}`);
    this.agreed(result);
    for await (const message of this.replies(await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }))) this.inbox.push(message);
  }
}

/** "HTTP 406 Not Acceptable from <url>", with the JSON-RPC error message of the body if it has one. */
async function httpError(response: Response, url: string): Promise<Error> {
  const status = [response.status, response.statusText].filter(Boolean).join(' ');
  const body = await response.text().catch(() => '');
  let detail = '';
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed) && isRecord(parsed.error) && typeof parsed.error.message === 'string') detail = `: ${parsed.error.message}`;
  } catch {
    // not JSON: the status says it all
  }
  return new Error(`HTTP ${status} from ${url}${detail}`);
}

/** The JSON-RPC messages of a text/event-stream body, in order. An event's data is its `data:` lines
 *  joined with '\n'; an event without data (the priming event a stream may start with) carries no
 *  message, and data that is not JSON is skipped (reported on stderr). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncIterable<unknown> {
  let data: string[] = [];
  for await (const line of sseLines(body)) {
    if (line === '') {
      // a blank line ends the event
      const text = data.join('\n');
      data = [];
      if (text === '') continue;
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        console.error(`skipped an event whose data is not JSON: ${text}`);
        continue;
      }
      yield message;
    } else if (!line.startsWith(':')) {
      // `field: value` (one space after the colon is not part of the value); ':' starts a comment (a keep-alive)
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') data.push(value);
      // event:, id: and retry: matter to a client that resumes streams; this one does not
    }
  }
  // an event the stream ended before its blank line is dropped, as the SSE spec says
}

/** The lines of a byte stream, each ended by '\n', '\r\n' or a lone '\r', decoded as one UTF-8 text. */
async function* sseLines(body: ReadableStream<Uint8Array>): AsyncIterable<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder(); // { stream: true }: a character cut between two chunks waits for its rest
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      text += decoder.decode(value, { stream: !done });
      const ends = /\r\n|\n|\r/g;
      let start = 0;
      for (let end = ends.exec(text); end; end = ends.exec(text)) {
        if (end[0] === '\r' && ends.lastIndex === text.length && !done) break; // maybe half of a '\r\n'
        yield text.slice(start, end.index);
        start = ends.lastIndex;
      }
      text = text.slice(start);
      if (done) return; // what is left never got its line end
    }
  } finally {
    await reader.cancel();
  }
}

/** Messages waiting for their reader: an AsyncIterable for one reader, which ends after end(). */
class Inbox implements AsyncIterable<unknown> {
  private readonly waiting: unknown[] = [];
  private ended = false;
  private wake: (() => void) | undefined;

  push(message: unknown): void {
    if (this.ended) return;
    this.waiting.push(message);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<unknown> {
    for (;;) {
      if (this.waiting.length > 0) yield this.waiting.shift();
      else if (this.ended) return;
      else await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }
}

// ---------------------------------------------------------------- stage 5: translate

/** An MCP tool as the Claude API (the Messages API's `tools`) takes it: `inputSchema` renamed
 *  `input_schema`, its top-level `$schema` left out (tokens paid on every request, for nothing) and
 *  everything else kept as it is (a nested `$schema`, `$defs` and `$ref`, 2020-12 keywords); a tool
 *  without a schema gets `{ type: 'object', properties: {} }` (the API refuses a tool without one).
 *  Keys in the order name, description, input_schema; no description key when the tool has none.
 *  The MCP tool is left as it was: the schema is copied, not edited. */
export function toClaudeTool(tool: Tool): { name: string; description?: string; input_schema: Record<string, unknown> } {
  let input_schema: Record<string, unknown> = { type: 'object', properties: {} };
  if (tool.inputSchema !== undefined) {
    const { $schema: _stripped, ...rest } = tool.inputSchema;
    input_schema = rest;
  }
  return { name: tool.name, ...(tool.description !== undefined && { description: tool.description }), input_schema };
}
