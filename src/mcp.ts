// The reference solution of the MCP client course. Each stage adds to this file;
// starter/src/mcp.ts has the same exports with bodies that say which stage implements them.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

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
  const root: unknown = JSON.parse(markKeys(text));
  if (!isRecord(root) || !isRecord(root[`${KEY_MARK}mcpServers`])) {
    throw new Error('.mcp.json: expected an object with an "mcpServers" object');
  }
  const servers = root[`${KEY_MARK}mcpServers`] as Record<string, unknown>;
  return Object.entries(servers).map(([name, entry]) => parseServer(name.slice(KEY_MARK.length), unmarkKeys(entry)));
}

/** JavaScript objects list integer-like keys ("1", "42") first, whatever the file's order: each key is
 *  read with a mark in front (a name then, never an integer), and the mark is taken off after. Every
 *  string token is matched whole, from the left, so a quote inside a string is never taken for one. */
const KEY_MARK = '#';
function markKeys(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"(?=(\s*:)?)/g, (token, colon: string | undefined) => (colon === undefined ? token : `"${KEY_MARK}${token.slice(1)}`));
}

function unmarkKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unmarkKeys);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.slice(KEY_MARK.length), unmarkKeys(inner)]));
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
  /** The protocol version of the stateless era, once connect() found a server that speaks it. */
  private statelessVersion: string | undefined;
  /** What the server declared it offers (initialize's capabilities), once known: stage 8. */
  private capabilities: Record<string, unknown> | undefined;
  /** Each list as last fetched, by method, until the server says it changed (list_changed): stage 8. */
  private readonly lists = new Map<string, unknown[]>();
  /** What to call with a resource's URI when the server says it was updated, by URI: stage 8. */
  private readonly subscriptions = new Map<string, (uri: string) => void>();

  constructor(
    private readonly transport: Transport,
    private readonly clientInfo = { name: 'mcp-course-client', version: '1.0.0' },
    private readonly options: McpClientOptions = {},
  ) {
    this.reading = this.read();
  }

  /** Sends a request and waits for the response with its id; a JSON-RPC error becomes McpError.
   *  In the stateless era (after connect() found a 2026-07-28 server) every request carries the
   *  `_meta` of that era, and an `input_required` result is answered: the request is sent again,
   *  with a new id, the answers of onInputRequest and the server's requestState. */
  async request(method: string, params?: object): Promise<any> {
    const version = this.statelessVersion;
    if (version === undefined) return this.send(method, params);
    const { inputResponses: _responses, requestState: _state, ...original } = (params ?? {}) as Record<string, unknown>;
    let retry: Record<string, unknown> = params === undefined ? {} : (params as Record<string, unknown>);
    for (let round = 0; ; round++) {
      const result = await this.send(method, this.withMeta(retry, version));
      const type = isRecord(result) ? result.resultType : undefined;
      // absent: complete, as servers of earlier revisions answer
      if (type === undefined || type === 'complete') return result;
      if (type !== 'input_required') throw new Error(`${method}: the server answered resultType ${JSON.stringify(type)}, which this client does not know`);
      if (round === MAX_INPUT_ROUNDS) throw new Error(`${method}: the server still asks for input after ${MAX_INPUT_ROUNDS} rounds`);
      const inputResponses = isRecord(result.inputRequests) ? await this.answerInputs(method, result.inputRequests) : undefined;
      retry = {
        ...original,
        ...(inputResponses && { inputResponses }),
        ...(typeof result.requestState === 'string' && { requestState: result.requestState }),
      };
    }
  }

  /** One JSON-RPC request as it is: a fresh id, the response with that id. */
  private send(method: string, params?: object): Promise<any> {
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
      capabilities: this.options.capabilities ?? {},
      clientInfo: this.clientInfo,
    });
    if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
      await this.close();
      throw new Error(`the server offered protocol version ${result.protocolVersion}, which this client does not support`);
    }
    this.capabilities = isRecord(result.capabilities) ? result.capabilities : {};
    await this.notify('notifications/initialized');
    return result;
  }

  // -------------------------------------------------------------- stage 3: tools

  /** Every tool, following nextCursor until the server gives none: absent or null (the 2026-07-28 spec:
   *  whether a non-null value was given); "" is a cursor. */
  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      tools.push(...page.tools);
      cursor = page.nextCursor ?? undefined;
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
      else if (typeof message.method === 'string') this.notified(message.method, message.params);
    }
    for (const pending of this.pending.values()) pending.reject(new Error('the connection closed before the server answered'));
    this.pending.clear();
  }

  /** A request from the server: ping is answered, and so is a request for input (2025 era) when
   *  onInputRequest was given; anything else is not supported. */
  private async answer(request: Record<string, unknown>): Promise<void> {
    const method = String(request.method);
    let reply: object = { error: { code: -32601, message: `Method not found: ${method}` } };
    if (method === 'ping') reply = { result: {} };
    else if (INPUT_METHODS.includes(method) && this.options.onInputRequest) {
      try {
        const params = isRecord(request.params) ? request.params : undefined;
        reply = { result: await this.options.onInputRequest({ method, ...(params && { params }) }) };
      } catch (error) {
        reply = { error: { code: -32603, message: error instanceof Error ? error.message : String(error) } };
      }
    }
    return this.transport.send({ jsonrpc: '2.0', id: request.id, ...reply });
  }

  /** A request the transport could not send (an HTTP error): no response will come for it, so it
   *  waits no more (else close() would fail it again, with nobody left to hear). */
  private unsent(id: number, error: unknown): never {
    this.pending.delete(id);
    throw error;
  }

  // -------------------------------------------------------------- stage 6: stateless

  /** Which era the server speaks, found out on the one connection: `server/discover` first (the
   *  stateless era of 2026-07-28). A discover result that lists the version is that era. A -32022
   *  error (unsupported protocol version), or a discover result without the version, is answered
   *  once, with a version its list has: discover again with a version of the era, or initialize()
   *  for one of 2025. Any other error (not one of the era's own, -32020 to -32022), an HTTP error or
   *  a result that is no discover result (a 2025 server may answer what it does not know with `{}`)
   *  means a server of the 2025 era: initialize() then. */
  async connect(): Promise<Connection> {
    let version = STATELESS_PROTOCOL_VERSIONS[0]!;
    for (let retried = false; ; retried = true) {
      let supported: unknown;
      try {
        const server: DiscoverResult = await this.send('server/discover', this.withMeta({}, version));
        if (!isRecord(server) || !Array.isArray(server.supportedVersions)) break; // no discover result
        if (server.supportedVersions.includes(version)) {
          this.statelessVersion = version;
          this.capabilities = isRecord(server.capabilities) ? server.capabilities : {};
          return { era: 'modern', protocolVersion: version, server };
        }
        supported = server.supportedVersions;
      } catch (error) {
        if (!(error instanceof McpError) || !STATELESS_ERRORS.includes(error.code)) break; // not a server of this era
        if (error.code !== UNSUPPORTED_PROTOCOL_VERSION) throw error;
        supported = isRecord(error.data) ? error.data.supported : undefined;
      }
      const listed = Array.isArray(supported) ? supported : [];
      const common = STATELESS_PROTOCOL_VERSIONS.find((known) => listed.includes(known));
      if (!retried && common !== undefined) version = common;
      else if (!retried && SUPPORTED_PROTOCOL_VERSIONS.some((known) => listed.includes(known))) break; // a version of the 2025 era
      else throw new Error(`the server supports protocol versions ${JSON.stringify(supported)}, and not ${version}: no version this client speaks`);
    }
    const server = await this.initialize();
    return { era: 'legacy', protocolVersion: server.protocolVersion, server };
  }

  /** params with the `_meta` every request of the stateless era carries (a `_meta` of the caller's own is kept). */
  private withMeta(params: Record<string, unknown>, version: string): Record<string, unknown> {
    const meta = isRecord(params._meta) ? params._meta : {};
    return {
      ...params,
      _meta: { ...meta, [PROTOCOL_VERSION_META]: version, [CLIENT_INFO_META]: this.clientInfo, [CLIENT_CAPABILITIES_META]: this.options.capabilities ?? {} },
    };
  }

  /** inputResponses: onInputRequest's answer to each of the server's input requests, under its key. */
  private async answerInputs(method: string, requests: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = this.options.onInputRequest;
    if (answer === undefined) throw new Error(`${method}: the server asks for input (input_required), and this client was given no onInputRequest`);
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(requests)) {
      if (!isRecord(request) || typeof request.method !== 'string') throw new Error(`${method}: input request ${key} is not a request: ${JSON.stringify(request)}`);
      responses[key] = await answer({ method: request.method, ...(isRecord(request.params) && { params: request.params }) });
    }
    return responses;
  }

  // -------------------------------------------------------------- stage 8: resources and prompts

  /** Every resource (all pages), kept until the server's notifications/resources/list_changed. */
  async listResources(): Promise<Resource[]> {
    return this.list('resources/list', 'resources', 'resources') as Promise<Resource[]>;
  }

  /** Every resource template (all pages), kept until the server's notifications/resources/list_changed. */
  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    return this.list('resources/templates/list', 'resourceTemplates', 'resources') as Promise<ResourceTemplate[]>;
  }

  /** Every prompt (all pages), kept until the server's notifications/prompts/list_changed. */
  async listPrompts(): Promise<Prompt[]> {
    return this.list('prompts/list', 'prompts', 'prompts') as Promise<Prompt[]>;
  }

  /** A resource's contents, each text as it is or a blob decoded from Base64 to its bytes. */
  async readResource(uri: string): Promise<ResourceContents[]> {
    this.require('resources', 'resources/read');
    const result = await this.request('resources/read', { uri });
    const contents: unknown[] = isRecord(result) && Array.isArray(result.contents) ? result.contents : [];
    return contents.map((item) => {
      if (!isRecord(item) || typeof item.blob !== 'string') return item as ResourceContents;
      const { blob, ...rest } = item;
      return { ...rest, bytes: decodeBase64(blob) } as ResourceContents;
    });
  }

  /** A prompt's messages, its arguments sent as strings (MCP's prompt arguments are strings). */
  async getPrompt(name: string, args: Record<string, unknown> = {}): Promise<GetPromptResult> {
    this.require('prompts', 'prompts/get');
    const strings = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)]));
    return this.request('prompts/get', { name, ...(Object.keys(strings).length > 0 && { arguments: strings }) });
  }

  /** Asks to hear of changes to a resource: onUpdated gets its URI at each notifications/resources/updated. */
  async subscribe(uri: string, onUpdated: (uri: string) => void): Promise<void> {
    this.require('resources', 'resources/subscribe', 'subscribe');
    await this.request('resources/subscribe', { uri });
    this.subscriptions.set(uri, onUpdated);
  }

  async unsubscribe(uri: string): Promise<void> {
    this.require('resources', 'resources/unsubscribe', 'subscribe');
    await this.request('resources/unsubscribe', { uri });
    this.subscriptions.delete(uri);
  }

  /** A list as kept, or every page of it fetched anew (following nextCursor) when none is kept. */
  private async list(method: string, key: string, capability: string): Promise<unknown[]> {
    this.require(capability, method);
    const kept = this.lists.get(method);
    if (kept !== undefined) return structuredClone(kept);
    const items: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(method, cursor === undefined ? {} : { cursor });
      items.push(...(isRecord(page) && Array.isArray(page[key]) ? page[key] : []));
      cursor = isRecord(page) && typeof page.nextCursor === 'string' ? page.nextCursor : undefined;
    } while (cursor !== undefined);
    this.lists.set(method, items);
    return structuredClone(items);
  }

  /** Refuses, sending nothing, a method of a capability the server did not declare (or a feature of it,
   *  `subscribe` of resources): "Only use capabilities that were successfully negotiated". */
  private require(capability: string, method: string, feature?: string): void {
    if (this.capabilities === undefined) throw new Error(`${method} before initialize: the server's capabilities are not known yet`);
    const declared = this.capabilities[capability];
    if (!isRecord(declared)) throw new Error(`the server did not declare the ${capability} capability: ${method} is not sent`);
    if (feature !== undefined && declared[feature] !== true) throw new Error(`the server's ${capability} capability has no ${feature}: ${method} is not sent`);
  }

  /** A notification of the server: a list that changed is fetched anew at its next use; an update of a
   *  resource subscribed to is handed on. */
  private notified(method: string, params: unknown): void {
    if (method === 'notifications/resources/list_changed') {
      this.lists.delete('resources/list');
      this.lists.delete('resources/templates/list');
    } else if (method === 'notifications/prompts/list_changed') this.lists.delete('prompts/list');
    else if (method === 'notifications/resources/updated' && isRecord(params) && typeof params.uri === 'string') this.subscriptions.get(params.uri)?.(params.uri);
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
  /** Stateless era: per tool, the Mcp-Param-* headers its arguments go in, from its `x-mcp-header` annotations. */
  private readonly paramHeaders = new Map<string, ParamHeader[]>();

  constructor(
    private readonly url: string,
    private readonly options: { headers?: Record<string, string>; oauth?: OAuthClient } = {},
  ) {
    this.messages = this.inbox;
  }

  /** A request to the server, with the token when there is an OAuthClient: a 401 (or a 403
   *  insufficient_scope) is the server asking for authorization, which runs before the request
   *  goes once more. */
  private async authorized(init: { method: string; headers: Record<string, string>; body?: string }): Promise<Response> {
    const oauth = this.options.oauth;
    const send = () => fetch(this.url, { ...init, headers: { ...init.headers, ...oauth?.headers() }, signal: this.closing.signal });
    const response = await send();
    if (oauth === undefined || !(response.status === 401 || insufficientScope(response))) return response;
    await response.body?.cancel();
    await oauth.challenged(this.url, response);
    return send();
  }

  async send(msg: object): Promise<void> {
    const version = statelessVersionOf(msg);
    if (version !== undefined) return this.sendStateless(msg as Record<string, unknown>, version);
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
    for await (const message of this.replies(response, isRecord(msg) && 'method' in msg && 'id' in msg ? msg.id : undefined)) {
      if (isRecord(message) && message.id === this.initializeRequest?.id) this.agreed(message);
      this.inbox.push(message);
    }
    if (isRecord(msg) && msg.method === 'notifications/initialized') await this.listen();
  }

  /** The server's own stream (a GET), opened once the session is established: what the server sends
   *  outside any request of the client's (a request of its own, a notification) comes there. A
   *  server that offers none answers 405; the spec lets a client go without it (MAY). Waits for the
   *  answer's head, so that the stream is open before the next request goes. */
  private async listen(): Promise<void> {
    let response: Response;
    try {
      response = await this.authorized({ method: 'GET', headers: { ...this.headers(), Accept: 'text/event-stream' } });
    } catch {
      return; // the server went away, or close() came first: the stream was only ever on offer
    }
    const body = response.ok ? eventStream(response) : undefined;
    if (body === undefined) return void (await response.body?.cancel());
    void (async () => {
      try {
        for await (const message of this.stream(body, undefined)) this.inbox.push(message);
      } catch {
        // ended by close(), or cut: nothing of a request of the client's was on it
      }
    })();
  }

  /** A request of the stateless era (2026-07-28): no session; the headers that mirror the body
   *  (MCP-Protocol-Version: the `_meta` version, Mcp-Method, Mcp-Name, and an Mcp-Param-* for each
   *  argument its tool's schema names in `x-mcp-header`). The era's servers refuse with 400 (404 for
   *  an unknown method) and a JSON-RPC error for the request: that error is its response. */
  private async sendStateless(msg: Record<string, unknown>, version: string): Promise<void> {
    const response = await this.authorized({
      method: 'POST',
      headers: {
        ...this.options.headers,
        ...this.statelessHeaders(msg, version),
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(msg),
    });
    if (!response.ok) {
      const body = await response.text().catch(() => '');
      const refusal = parseJson(body);
      if (isRecord(refusal) && isRecord(refusal.error) && refusal.id === msg.id) this.inbox.push(refusal);
      else throw httpErrorOf(response, this.url, refusal);
      return;
    }
    for await (const message of this.replies(response)) {
      this.inbox.push(msg.method === 'tools/list' && isRecord(message) && message.id === msg.id ? this.learnTools(message) : message);
    }
  }

  private statelessHeaders(msg: Record<string, unknown>, version: string): Record<string, string> {
    const params = isRecord(msg.params) ? msg.params : {};
    const headers: Record<string, string> = { 'MCP-Protocol-Version': version, 'Mcp-Method': String(msg.method) };
    const name = msg.method === 'resources/read' ? params.uri : NAMED_METHODS.includes(String(msg.method)) ? params.name : undefined;
    if (typeof name === 'string') headers['Mcp-Name'] = headerValue(name);
    if (msg.method === 'tools/call' && typeof params.name === 'string') {
      for (const { header, path } of this.paramHeaders.get(params.name) ?? []) {
        const value = path.reduce<unknown>((at, key) => (isRecord(at) ? at[key] : undefined), params.arguments);
        if (typeof value === 'string') headers[`Mcp-Param-${header}`] = headerValue(value);
        else if (typeof value === 'number' || typeof value === 'boolean') headers[`Mcp-Param-${header}`] = String(value);
        // null, absent (or not a primitive): no header
      }
    }
    return headers;
  }

  /** A tools/list response: the headers each tool's arguments go in, learnt; a tool whose
   *  `x-mcp-header` annotations break the rules is left out of the list (said on stderr). */
  private learnTools(response: Record<string, unknown>): Record<string, unknown> {
    if (!isRecord(response.result) || !Array.isArray(response.result.tools)) return response;
    const tools = response.result.tools.filter((tool: unknown) => {
      if (!isRecord(tool) || typeof tool.name !== 'string') return true;
      const headers = paramHeadersOf(tool.inputSchema);
      if (typeof headers === 'string') {
        console.error(`left out tool ${tool.name}: ${headers}`);
        return false;
      }
      this.paramHeaders.set(tool.name, headers);
      return true;
    });
    return { ...response, result: { ...response.result, tools } };
  }

  /** DELETE ends the session on the server (405 means it does not let clients do that), then
   *  `messages` ends. */
  async close(): Promise<void> {
    try {
      if (this.sessionId !== undefined) {
        const response = await this.authorized({ method: 'DELETE', headers: this.headers() });
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
    const response = await this.authorized({
      method: 'POST',
      headers: { ...this.headers(), 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(msg),
    });
    this.sessionId = response.headers.get('Mcp-Session-Id') ?? this.sessionId;
    return response;
  }

  /** The messages of a reply, in order; an HTTP error is thrown instead. `request`: the id of the
   *  request it answers, whose stream is resumed if the server closes it before the response. */
  private async *replies(response: Response, request?: unknown): AsyncIterable<unknown> {
    if (!response.ok) throw await httpError(response, this.url);
    const body = eventStream(response);
    if (body) yield* this.stream(body, request);
    else if ((response.headers.get('Content-Type') ?? '').startsWith('application/json')) yield await response.json();
    else await response.body?.cancel(); // 202 Accepted: nothing to read
  }

  /** A request's event stream, to its response. A server may close the connection before it (the
   *  spec's polling, 2025-11-25): then the client waits the `retry:` the stream gave and resumes it
   *  with a GET that says the last event id it got (Last-Event-ID); the server sends the rest there. */
  private async *stream(body: ReadableStream<Uint8Array>, request: unknown): AsyncIterable<unknown> {
    let lastEventId: string | undefined;
    let retryMs = DEFAULT_RETRY_MS;
    for (;;) {
      for await (const event of readEvents(body)) {
        if (event.id !== undefined) lastEventId = event.id;
        if (event.retry !== undefined) retryMs = event.retry;
        const message = messageOf(event.data);
        if (message === undefined) continue;
        const response = isRecord(message) && message.id === request && !('method' in message);
        yield message;
        if (response) return; // nothing more of this request comes: a server may hold the stream open
      }
      // ended before its response: resumable from the last event id, for a request's stream
      if (request === undefined || lastEventId === undefined || this.closing.signal.aborted) return;
      await sleep(retryMs, undefined, { signal: this.closing.signal }).catch(() => {}); // close() ends the wait
      const resumed = await this.authorized({ method: 'GET', headers: { ...this.headers(), Accept: 'text/event-stream', 'Last-Event-ID': lastEventId } });
      if (!resumed.ok) throw await httpError(resumed, this.url);
      const rest = eventStream(resumed);
      if (rest === undefined) {
        throw new Error(`the server closed the stream of request ${JSON.stringify(request)} and did not resume it: its GET answered ${resumed.headers.get('Content-Type')}`);
      }
      body = rest;
    }
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
  return httpErrorOf(response, url, parseJson(await response.text().catch(() => '')));
}

function httpErrorOf(response: Response, url: string, body: unknown): Error {
  const status = [response.status, response.statusText].filter(Boolean).join(' ');
  const detail = isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string' ? `: ${body.error.message}` : '';
  return new Error(`HTTP ${status} from ${url}${detail}`);
}

/** The text as JSON, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** How long to wait before resuming a stream the server closed, when it gave no `retry:`. */
const DEFAULT_RETRY_MS = 1000;

/** The JSON-RPC messages of a text/event-stream body, in order. An event's data is its `data:` lines
 *  joined with '\n'; an event without data (the priming event a stream may start with) carries no
 *  message, and data that is not JSON is skipped (reported on stderr). */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncIterable<unknown> {
  for await (const event of readEvents(body)) {
    const message = messageOf(event.data);
    if (message !== undefined) yield message;
  }
}

/** An event's message: undefined for no data, and for data that is not JSON (said on stderr). */
function messageOf(data: string): unknown {
  if (data === '') return undefined;
  try {
    return JSON.parse(data);
  } catch {
    console.error(`skipped an event whose data is not JSON: ${data}`);
    return undefined;
  }
}

/** The events of a text/event-stream body, each ended by a blank line: its data, and the `id:` and
 *  `retry:` it set (what a client needs to resume the stream). */
async function* readEvents(body: ReadableStream<Uint8Array>): AsyncIterable<{ data: string; id?: string; retry?: number }> {
  let event: { data: string[]; id?: string; retry?: number } = { data: [] };
  for await (const line of sseLines(body)) {
    if (line === '') {
      // a blank line ends the event
      const { data, ...fields } = event;
      event = { data: [] };
      yield { data: data.join('\n'), ...fields };
    } else if (!line.startsWith(':')) {
      // `field: value` (one space after the colon is not part of the value); ':' starts a comment (a keep-alive)
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') event.data.push(value);
      else if (field === 'id' && !value.includes('\0')) event.id = value;
      else if (field === 'retry' && /^\d+$/.test(value)) event.retry = Number(value);
      // event: names the kind of event; every event here is a message
    }
  }
  // an event the stream ended before its blank line is dropped, as the SSE spec says
}

/** A response's body when it is an event stream (Content-Type: text/event-stream). */
function eventStream(response: Response): ReadableStream<Uint8Array> | undefined {
  return (response.headers.get('Content-Type') ?? '').startsWith('text/event-stream') ? (response.body ?? undefined) : undefined;
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

// ---------------------------------------------------------------- stage 6: stateless

/** The protocol versions of the stateless era (no initialize, no session: `_meta` on every
 *  request) this client speaks, newest first: connect() offers the first. */
export const STATELESS_PROTOCOL_VERSIONS = ['2026-07-28'];

/** A request the server needs answered before it can complete one of the client's
 *  (`elicitation/create`, `sampling/createMessage`, `roots/list`), from an `input_required` result. */
export interface InputRequest {
  method: string;
  params?: Record<string, unknown>;
}

export interface McpClientOptions {
  /** The client capabilities it declares: in every request's `_meta` in the stateless era (a server
   *  asks only for the input they cover, such as `{ elicitation: { form: {} } }`). Default `{}`. */
  capabilities?: Record<string, unknown>;
  /** The answer to one input request of an `input_required` result (an ElicitResult for
   *  `elicitation/create`, ...). Without it, a request the server asks input for fails. */
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

/** What connect() found: a server of the stateless era (2026-07-28) and its discover result, or one
 *  of the 2025 era, with the initialize handshake done. */
export type Connection =
  | { era: 'modern'; protocolVersion: string; server: DiscoverResult }
  | { era: 'legacy'; protocolVersion: string; server: InitializeResult };

const PROTOCOL_VERSION_META = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_META = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_META = 'io.modelcontextprotocol/clientCapabilities';

/** The errors of the stateless era itself (header mismatch, missing client capability,
 *  unsupported protocol version): a server that answers one speaks the era. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;
const STATELESS_ERRORS = [-32020, -32021, UNSUPPORTED_PROTOCOL_VERSION];

/** The requests for input a server makes (embedded in input_required results in the stateless era). */
const INPUT_METHODS = ['elicitation/create', 'sampling/createMessage', 'roots/list'];

/** A server may ask for input again and again; this many rounds, then the request fails. */
const MAX_INPUT_ROUNDS = 10;

/** The protocol version a message of the stateless era says in its `_meta`; undefined for any other. */
function statelessVersionOf(msg: object): string | undefined {
  const params = isRecord(msg) && isRecord(msg.params) ? msg.params : undefined;
  const version = isRecord(params?._meta) ? params._meta[PROTOCOL_VERSION_META] : undefined;
  return typeof version === 'string' ? version : undefined;
}

/** The methods whose `params.name` goes in Mcp-Name (resources/read: `params.uri`). */
const NAMED_METHODS = ['tools/call', 'prompts/get'];

/** A value as a header carries it: as it is when it is plain visible ASCII (inner spaces allowed),
 *  else `=?base64?<UTF-8 in Base64>?=`: anything outside 0x20-0x7E (tabs, line ends, non-ASCII), a
 *  leading or trailing space, or a value that looks like that form itself. */
function headerValue(value: string): string {
  const plain = /^[\x20-\x7E]*$/.test(value) && value.trim() === value && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** An argument mirrored into `Mcp-Param-<header>`: where it is in the arguments. */
interface ParamHeader {
  header: string;
  path: string[];
}

/** An RFC 9110 token: what a header name is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_TYPES = ['string', 'integer', 'boolean'];
/** Keywords whose values are data, not schemas: an `x-mcp-header` key inside them annotates nothing. */
const DATA_KEYWORDS = ['const', 'default', 'enum', 'examples'];

/** The `x-mcp-header` annotations of a tool's input schema, or why they make the tool invalid: each
 *  must be a token, unique (case-insensitively), on a string, integer or boolean property reached
 *  from the root through `properties` alone. */
function paramHeadersOf(schema: unknown): ParamHeader[] | string {
  const found: ParamHeader[] = [];
  const problems: string[] = [];
  const walk = (node: unknown, path: string[], reachable: boolean): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, path, false));
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-mcp-header') {
        if (!reachable || path.length === 0) problems.push(`x-mcp-header ${JSON.stringify(value)} is not on a property reached through "properties" alone`);
        else if (typeof value !== 'string' || !TOKEN.test(value)) problems.push(`x-mcp-header ${JSON.stringify(value)} of ${path.join('.')} is not a header name`);
        else if (!HEADER_TYPES.includes(node.type as string)) problems.push(`x-mcp-header ${value} is on ${path.join('.')}, of type ${JSON.stringify(node.type)}`);
        else found.push({ header: value, path });
      } else if (key === 'properties' && isRecord(value)) {
        for (const [name, property] of Object.entries(value)) walk(property, [...path, name], reachable);
      } else if (!DATA_KEYWORDS.includes(key)) {
        walk(value, path, false);
      }
    }
  };
  walk(schema, [], true);
  const names = found.map(({ header }) => header.toLowerCase());
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) problems.push(`x-mcp-header ${twice} is given twice`);
  return problems.length > 0 ? problems.join('; ') : found;
}

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

/** The MCP spec's authorization (2025-11-25) for one client: discovery from the server's 401,
 *  registration, the authorization-code flow with PKCE (S256) and the token on every request. */
export class OAuthClient {
  found: AuthorizationFound | undefined;
  private tokens: { access: string; refresh?: string; scopes: string[] } | undefined;
  /** The client's id at each authorization server (by issuer): registered once there, again at another. */
  private readonly clients = new Map<string, Client>();
  private server: Record<string, unknown> | undefined;
  /** The resource the token is for, as its metadata names it (the `resource` of every request). */
  private resource: string | undefined;
  /** Whether a refresh gave the access token in use, and how many requests have carried it: one a
   *  refresh just gave, refused at its first request, calls for the flow; one that went through, and
   *  has expired since, for a refresh again. */
  private refreshed = false;
  private uses = 0;

  constructor(private readonly options: OAuthOptions) {}

  /** The Authorization header of a request, once there is a token. */
  headers(): Record<string, string> {
    if (!this.tokens) return {};
    this.uses += 1;
    return { Authorization: `Bearer ${this.tokens.access}` };
  }

  /** The MCP server at `url` refused a request: 401 (no token, or one no longer good: a refresh,
   *  once, then the flow again) or 403 insufficient_scope (the flow again, for the scopes it names). */
  async challenged(url: string, response: Response): Promise<void> {
    const challenge = parseChallenge(response.headers.get('WWW-Authenticate') ?? '');
    const refusedAtOnce = this.refreshed && this.uses <= 1;
    if (response.status === 401 && this.tokens?.refresh !== undefined && !refusedAtOnce && (await this.refresh(url))) return;
    const held = response.status === 403 ? (this.tokens?.scopes ?? []) : [];
    const asked = [...new Set([...held, ...words(challenge.scope)])];
    await this.authorize(url, challenge, asked);
  }

  private async authorize(url: string, challenge: Record<string, string>, asked: string[]): Promise<void> {
    const found = await this.discover(url, challenge);
    const { resource } = found;
    const server = this.server!;
    const scopes = asked.length > 0 ? asked : stringsOf(found.resourceScopes);
    if (!stringsOf(server.code_challenge_methods_supported).includes('S256'))
      throw new Error(`the authorization server ${found.issuer} does not advertise PKCE with S256: refusing to go on`);
    const client = await this.register(found.issuer, scopes);
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(16));
    const request = new URL(String(server.authorization_endpoint));
    const query = {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: this.options.redirectUri,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
      state,
      resource,
      ...(scopes.length > 0 && { scope: scopes.join(' ') }),
    };
    for (const [name, value] of Object.entries(query)) request.searchParams.set(name, value);
    const back = new URL(await this.options.signIn(request.href));
    // state and iss first: an error response that fails them is not acted on, nor shown (2026-07-28)
    if (back.searchParams.get('state') !== state) throw new Error("the authorization response's state is not the one sent: discarded");
    const iss = back.searchParams.get('iss');
    // simple string comparison (RFC 3986 6.2.1): no normalisation of either
    if (iss !== null ? iss !== found.issuer : server.authorization_response_iss_parameter_supported === true)
      throw new Error(`the authorization response names the issuer ${JSON.stringify(iss)}, not ${found.issuer}: discarded`);
    const error = back.searchParams.get('error');
    if (error !== null) throw new Error(`the authorization server refused: ${error}`);
    const code = back.searchParams.get('code');
    if (code === null) throw new Error('the authorization response has no code');
    await this.token(client, { grant_type: 'authorization_code', code, redirect_uri: this.options.redirectUri, code_verifier: verifier, resource }, scopes);
    this.resource = resource;
    this.found = {
      resourceMetadata: found.resourceMetadata,
      issuer: found.issuer,
      serverMetadata: found.serverMetadata,
      registration: client.kind,
      scopes: this.tokens!.scopes,
      authorizations: (this.found?.authorizations ?? 0) + 1,
      refreshes: this.found?.refreshes ?? 0,
    };
    this.refreshed = false;
  }

  /** The resource's metadata (the challenge's resource_metadata, else its well-known URLs), then
   *  its first authorization server's, at the well-known URLs the spec lists in order. */
  private async discover(url: string, challenge: Record<string, string>) {
    const target = new URL(url);
    const path = target.pathname.replace(/\/$/, '');
    const resourceUrls = challenge.resource_metadata
      ? [challenge.resource_metadata]
      : [...(path ? [`${target.origin}/.well-known/oauth-protected-resource${path}`] : []), `${target.origin}/.well-known/oauth-protected-resource`];
    const resourceRead = await firstJson(resourceUrls);
    if (resourceRead === undefined) throw new Error(`no protected resource metadata at ${resourceUrls.join(' or ')}`);
    const metadata = resourceRead.json;
    // RFC 9728 3.3: the resource is the one whose well-known URL was read (the one asked, for a URL the 401 gave)
    const identity = challenge.resource_metadata ? canonicalResource(url) : resourceRead.url.replace('/.well-known/oauth-protected-resource', '');
    const resource = typeof metadata.resource === 'string' ? metadata.resource : canonicalResource(url);
    if (metadata.resource !== undefined && metadata.resource !== identity && metadata.resource !== `${identity}/`)
      throw new Error(`the protected resource metadata is for ${JSON.stringify(metadata.resource)}, not ${identity}`);
    const [issuer] = stringsOf(metadata.authorization_servers);
    if (issuer === undefined) throw new Error('the protected resource metadata names no authorization server');
    const at = new URL(issuer);
    const issuerPath = at.pathname.replace(/\/$/, '');
    const serverUrls = issuerPath
      ? [
          `${at.origin}/.well-known/oauth-authorization-server${issuerPath}`,
          `${at.origin}/.well-known/openid-configuration${issuerPath}`,
          `${at.origin}${issuerPath}/.well-known/openid-configuration`,
        ]
      : [`${at.origin}/.well-known/oauth-authorization-server`, `${at.origin}/.well-known/openid-configuration`];
    const serverRead = await firstJson(serverUrls);
    if (serverRead === undefined) throw new Error(`no authorization server metadata at ${serverUrls.join(', ')}`);
    if (serverRead.json.issuer !== issuer) throw new Error(`the authorization server's metadata names the issuer ${JSON.stringify(serverRead.json.issuer)}, not ${issuer}`);
    this.server = serverRead.json;
    return { resource, resourceMetadata: resourceRead.url, issuer, serverMetadata: serverRead.url, resourceScopes: metadata.scopes_supported };
  }

  /** The client's id at `issuer`, in the spec's order: one given, the registration kept for that issuer,
   *  its metadata document's URL where the server takes one, else registered (RFC 7591) and kept;
   *  held, so that a second flow there registers nothing. */
  private async register(issuer: string, scopes: string[]): Promise<Client> {
    const known = this.clients.get(issuer);
    if (known) return known;
    const client = await this.newClient(issuer, scopes);
    this.clients.set(issuer, client);
    return client;
  }

  private async newClient(issuer: string, scopes: string[]): Promise<Client> {
    if (this.options.clientId !== undefined) {
      const secret = this.options.clientSecret;
      const methods = stringsOf(this.server?.token_endpoint_auth_methods_supported);
      // a secret goes in the Basic header unless the server takes only the form (RFC 6749 2.3.1: Basic MUST be supported)
      const method = secret === undefined ? 'none' : methods.includes('client_secret_basic') || methods.length === 0 ? 'client_secret_basic' : 'client_secret_post';
      return { id: this.options.clientId, secret, method, kind: 'pre-registered' };
    }
    const kept = this.options.registrations?.get(issuer);
    if (typeof kept?.client_id === 'string') return clientOf(kept, 'stored');
    if (this.options.clientMetadataUrl !== undefined && this.server?.client_id_metadata_document_supported === true)
      return { id: this.options.clientMetadataUrl, method: 'none', kind: 'metadata-document' };
    const endpoint = this.server?.registration_endpoint;
    if (typeof endpoint !== 'string') throw new Error('the authorization server offers no registration, and the client has no client_id');
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({
        client_name: this.options.clientName ?? 'MCP client',
        redirect_uris: [this.options.redirectUri],
        application_type: 'native', // a client on the user's machine, its redirect on localhost
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
        ...(scopes.length > 0 && { scope: scopes.join(' ') }),
      }),
    });
    const registered = (await response.json().catch(() => undefined)) as ClientRegistration | undefined;
    if (!response.ok || typeof registered?.client_id !== 'string') throw new Error(`the authorization server refused the registration: HTTP ${response.status}${oauthError(registered)}`);
    this.options.registrations?.set(issuer, registered);
    return clientOf(registered, 'dynamic');
  }

  /** A token request (RFC 6749 3.2), the client authenticated as it registered. */
  private async token(client: Client, grant: Record<string, string>, asked: string[]): Promise<void> {
    const form = new URLSearchParams(grant);
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    if (client.method === 'client_secret_basic' && client.secret !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.id)}:${encodeURIComponent(client.secret)}`).toString('base64')}`;
    } else {
      form.set('client_id', client.id);
      if (client.secret !== undefined) form.set('client_secret', client.secret);
    }
    const response = await fetch(String(this.server!.token_endpoint), { method: 'POST', headers, body: form.toString() });
    const tokens = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    if (!response.ok || typeof tokens?.access_token !== 'string') throw new Error(`the token request failed: HTTP ${response.status} ${String(tokens?.error ?? '')}`);
    if (typeof tokens.token_type !== 'string' || tokens.token_type.toLowerCase() !== 'bearer') throw new Error(`the token is of type ${JSON.stringify(tokens.token_type)}, not Bearer`);
    this.tokens = {
      access: tokens.access_token,
      refresh: typeof tokens.refresh_token === 'string' ? tokens.refresh_token : this.tokens?.refresh,
      scopes: typeof tokens.scope === 'string' ? words(tokens.scope) : asked,
    };
  }

  /** A new access token from the refresh token; false when the server refuses it. */
  private async refresh(url: string): Promise<boolean> {
    try {
      const client = this.clients.get(this.found?.issuer ?? '');
      if (client === undefined) return false;
      await this.token(client, { grant_type: 'refresh_token', refresh_token: this.tokens!.refresh!, resource: this.resource ?? canonicalResource(url) }, this.tokens!.scopes);
    } catch {
      return false;
    }
    if (this.found) this.found.refreshes += 1;
    this.refreshed = true;
    this.uses = 0;
    return true;
  }
}

/** A client id at one authorization server, how it authenticates at the token endpoint, and how it was got. */
interface Client {
  id: string;
  secret?: string;
  method: string;
  kind: AuthorizationFound['registration'];
}

/** The client a registration made: it authenticates as the registration says (RFC 7591 2: client_secret_basic when it does not say, with a secret). */
function clientOf(registration: ClientRegistration, kind: Client['kind']): Client {
  const secret = typeof registration.client_secret === 'string' ? registration.client_secret : undefined;
  const method = typeof registration.token_endpoint_auth_method === 'string' ? registration.token_endpoint_auth_method : secret ? 'client_secret_basic' : 'none';
  return { id: registration.client_id, secret, method, kind };
}

/** A 403 whose challenge says the token lacks a scope (RFC 6750 3.1). */
function insufficientScope(response: Response): boolean {
  return response.status === 403 && parseChallenge(response.headers.get('WWW-Authenticate') ?? '').error === 'insufficient_scope';
}

/** A Bearer challenge's parameters (RFC 6750 3): name="value" or name=token, comma-separated. */
function parseChallenge(header: string): Record<string, string> {
  const parameters: Record<string, string> = {};
  const body = header.replace(/^\s*Bearer\b/i, '');
  for (const [, name, quoted, token] of body.matchAll(/([A-Za-z_][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]+))/g))
    parameters[name!.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : token!;
  return parameters;
}

/** The first of the URLs that answers JSON, and which it was. */
async function firstJson(urls: string[]): Promise<{ url: string; json: Record<string, unknown> } | undefined> {
  for (const url of urls) {
    const response = await fetch(url, { headers: { Accept: 'application/json' } }).catch(() => undefined);
    if (!response?.ok) {
      await response?.body?.cancel();
      continue;
    }
    const json = await response.json().catch(() => undefined);
    if (isRecord(json)) return { url, json };
  }
  return undefined;
}

/** The MCP server's canonical URI (RFC 8707, the spec's "Canonical Server URI"): no fragment. */
function canonicalResource(url: string): string {
  const resource = new URL(url);
  resource.hash = '';
  return resource.href;
}

function base64url(bytes: Buffer): string {
  return bytes.toString('base64url');
}

function words(text: string | undefined): string[] {
  return (text ?? '').split(' ').filter(Boolean);
}

function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** An OAuth error response's error and description (RFC 6749 5.2, RFC 7591 3.2.2), for a message; empty when it has none. */
function oauthError(body: Record<string, unknown> | undefined): string {
  if (typeof body?.error !== 'string') return '';
  return typeof body.error_description === 'string' ? ` ${body.error} (${body.error_description})` : ` ${body.error}`;
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

const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Base64 (RFC 4648 section 4, the alphabet with + and /, padded with =) to its bytes; throws on
 *  anything else. */
export function decodeBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error(`not Base64: ${JSON.stringify(text.slice(0, 40))}`);
  const digits = text.replace(/=+$/, '');
  const bytes = new Uint8Array(Math.floor((digits.length * 6) / 8));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const digit of digits) {
    value = (value << 6) | BASE64_ALPHABET.indexOf(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  return bytes;
}

/** The operators of RFC 6570 (level 2 and 3, and 4's modifiers): what starts the expansion, what
 *  joins its values, whether names are written (and how an empty value is), and which characters pass
 *  unencoded (unreserved only, or reserved too). */
const OPERATORS: Record<string, { first: string; separator: string; named: boolean; ifEmpty: string; reserved: boolean }> = {
  '': { first: '', separator: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', separator: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', separator: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', separator: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', separator: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', separator: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', separator: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', separator: '&', named: true, ifEmpty: '=', reserved: false },
};

export type TemplateValue = string | string[] | Record<string, string>;

/** A URI template (RFC 6570, levels 1 to 4) expanded with the values given; a variable without a value
 *  (undefined, an empty list or map) is left out. Characters outside those the operator lets through are
 *  percent-encoded as UTF-8; a `%XX` already in a value passes as it is under `+` and `#`. */
export function expandTemplate(template: string, values: Record<string, TemplateValue | undefined>): string {
  return template.replace(/\{([^{}]*)\}/g, (_whole, expression: string) => {
    const operator = /^[+#./;?&]/.test(expression) ? expression[0]! : '';
    const spec = OPERATORS[operator];
    if (spec === undefined) throw new Error(`unknown operator in {${expression}}`);
    const parts: string[] = [];
    for (const variable of expression.slice(operator.length).split(',')) {
      const match = /^([A-Za-z0-9_.%]+)(?::([1-9][0-9]{0,3})|(\*))?$/.exec(variable);
      if (match === null) throw new Error(`not a variable: ${JSON.stringify(variable)} in {${expression}}`);
      const [, name, prefix, explode] = match as unknown as [string, string, string | undefined, string | undefined];
      const value = Object.hasOwn(values, name) ? values[name] : undefined;
      if (value === undefined) continue;
      const encode = (text: string) => encodeTemplateText(text, spec.reserved);
      if (typeof value === 'string') {
        const text = encode(prefix === undefined ? value : [...value].slice(0, Number(prefix)).join(''));
        parts.push(spec.named ? `${name}${text === '' ? spec.ifEmpty : `=${text}`}` : text);
        continue;
      }
      const pairs: [string, string][] = Array.isArray(value) ? value.map((item) => ['', item]) : Object.entries(value);
      if (pairs.length === 0) continue;
      if (explode) {
        for (const [key, item] of pairs) {
          const itemName = Array.isArray(value) ? name : encode(key);
          const text = encode(item);
          parts.push(spec.named ? `${itemName}${text === '' ? spec.ifEmpty : `=${text}`}` : Array.isArray(value) ? text : `${itemName}=${text}`);
        }
        continue;
      }
      const joined = (Array.isArray(value) ? value.map(encode) : pairs.flatMap(([key, item]) => [encode(key), encode(item)])).join(',');
      parts.push(spec.named ? `${name}=${joined}` : joined);
    }
    return parts.length === 0 ? '' : spec.first + parts.join(spec.separator);
  });
}

/** Percent-encodes (UTF-8) all but the unreserved characters (RFC 3986), and with `reserved` the
 *  reserved ones and a `%XX` already there too. */
function encodeTemplateText(text: string, reserved: boolean): string {
  const pass = reserved ? /[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]/ : /[A-Za-z0-9\-._~]/;
  let out = '';
  for (let at = 0; at < text.length; ) {
    if (reserved && /^%[0-9A-Fa-f]{2}/.test(text.slice(at, at + 3))) {
      out += text.slice(at, at + 3);
      at += 3;
      continue;
    }
    const char = String.fromCodePoint(text.codePointAt(at)!);
    at += char.length;
    out += pass.test(char) ? char : [...new TextEncoder().encode(char)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}
