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
  inputSchema: Record<string, unknown>;
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
    return this.transport.send({ jsonrpc: '2.0', id, method, ...(params && { params }) }).then(() => response);
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
    } while (false);
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
