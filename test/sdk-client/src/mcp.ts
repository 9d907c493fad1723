// A second, independent correct client for stages 2 and 3: the official SDK's Client behind a thin
// adapter to the course API. The test suite grades it on every handshake and tools case, to prove
// that the cases ask for what the protocol asks and nothing more (no ids, key orders or wording).
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError as SdkMcpError, ResultSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export interface Wire {
  write(data: string): void;
  readonly chunks: AsyncIterable<string>;
  close(): void;
}

export type ServerConfig =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; type: 'http'; url: string; headers: Record<string, string> };

/** Enough of stage 1 for the cases that start their server from a .mcp.json: its stdio entries. */
export function parseConfig(text: string): ServerConfig[] {
  const servers = (JSON.parse(text) as { mcpServers: Record<string, { command: string; args?: string[]; env?: Record<string, string> }> }).mcpServers;
  return Object.entries(servers).map(([name, entry]) => ({ name, type: 'stdio', command: entry.command, args: entry.args ?? [], env: entry.env ?? {} }));
}

/** The server as the SDK's stdio transport starts one: in its default environment, which keeps only a
 *  few of the parent's variables (PATH among them), with the entry's env on top. */
export function spawnWire(server: Extract<ServerConfig, { type: 'stdio' }>): Wire {
  const child = spawn(server.command, server.args, { env: { ...getDefaultEnvironment(), ...server.env }, stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  return { write: (data) => void child.stdin.write(data), chunks: child.stdout, close: () => child.stdin.end() };
}

export interface Transport {
  send(msg: object): Promise<void>;
  readonly messages: AsyncIterable<unknown>;
  close(): Promise<void>;
}

/** The SDK's own line buffer over the wire; a line it cannot read is dropped, as its stdio transport does. */
export class StdioTransport implements Transport {
  readonly messages: AsyncIterable<unknown>;

  constructor(private readonly wire: Wire) {
    this.messages = (async function* () {
      const buffer = new ReadBuffer();
      for await (const chunk of wire.chunks) {
        buffer.append(Buffer.from(chunk, 'utf8'));
        for (;;) {
          try {
            const message = buffer.readMessage();
            if (message === null) break;
            yield message;
          } catch {
            // not JSON-RPC: skipped
          }
        }
      }
    })();
  }

  async send(msg: object): Promise<void> {
    this.wire.write(serializeMessage(msg as JSONRPCMessage));
  }

  async close(): Promise<void> {
    this.wire.close();
  }
}

export class McpError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** The course Transport as the SDK wants one; it also learns the negotiated protocol version. */
class Bridge implements SdkTransport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  protocolVersion?: string;

  constructor(private readonly transport: Transport) {}

  async start(): Promise<void> {
    void (async () => {
      for await (const message of this.transport.messages) this.onmessage?.(message as JSONRPCMessage);
      this.onclose?.();
    })();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.transport.send(message);
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  setProtocolVersion(version: string): void {
    this.protocolVersion = version;
  }
}

/** The SDK's McpError becomes the course's; anything else passes as it is. */
async function courseErrors<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw error instanceof SdkMcpError ? new McpError(error.code, error.message, error.data) : error;
  }
}

export class McpClient {
  private readonly sdk: Client;
  private readonly bridge: Bridge;

  constructor(transport: Transport, clientInfo = { name: 'sdk-adapter', version: '1.0.0' }) {
    this.sdk = new Client(clientInfo);
    this.bridge = new Bridge(transport);
  }

  // biome-ignore lint/suspicious/noExplicitAny: the course API's request() returns any, as the reference's does
  request(method: string, params?: object): Promise<any> {
    return courseErrors(this.sdk.request({ method, params: params as Record<string, unknown> }, ResultSchema));
  }

  notify(method: string, params?: object): Promise<void> {
    return this.sdk.notification({ method, params: params as Record<string, unknown> });
  }

  async initialize() {
    await courseErrors(this.sdk.connect(this.bridge));
    const instructions = this.sdk.getInstructions();
    return {
      protocolVersion: this.bridge.protocolVersion!,
      capabilities: this.sdk.getServerCapabilities()!,
      serverInfo: this.sdk.getServerVersion()!,
      ...(instructions !== undefined && { instructions }),
    };
  }

  async listTools() {
    const tools = [];
    let cursor: string | undefined;
    do {
      const page = await courseErrors(this.sdk.listTools(cursor === undefined ? undefined : { cursor }));
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  }

  callTool(name: string, args: object = {}) {
    return courseErrors(this.sdk.callTool({ name, arguments: args as Record<string, unknown> }));
  }

  close(): Promise<void> {
    return this.sdk.close();
  }
}
