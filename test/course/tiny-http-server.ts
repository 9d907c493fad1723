// A small Streamable HTTP server on node:http (127.0.0.1, a port the OS picks), for the transport
// tests that no real server can stage on demand: every request is kept (method, headers, body) for
// the test to look at, and `mcpServer` plays an MCP server that can lose a session when told to.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  /** The POSTed JSON, parsed. */
  body?: Record<string, unknown>;
}

export interface TinyServer {
  /** http://127.0.0.1:<port>/mcp */
  url: string;
  /** Every request, in the order they came. */
  requests: Seen[];
  close(): Promise<void>;
}

export type Handler = (request: Seen, response: ServerResponse) => void | Promise<void>;

export async function tinyServer(handle: Handler): Promise<TinyServer> {
  const requests: Seen[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const seen: Seen = { method: request.method ?? '', headers: request.headers, ...(text !== '' && { body: JSON.parse(text) }) };
      requests.push(seen);
      void Promise.resolve(handle(seen, response)).catch((error: Error) => response.writeHead(500).end(error.message));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function json(response: ServerResponse, message: unknown, headers: Record<string, string> = {}, status = 200): void {
  response.writeHead(status, { ...headers, 'content-type': 'application/json' }).end(JSON.stringify(message));
}

/** An event stream of these messages, each as server-everything sends one (`event: message`). */
export function sse(response: ServerResponse, messages: unknown[], headers: Record<string, string> = {}): void {
  response.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const message of messages) response.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  response.end();
}

export function accepted(response: ServerResponse): void {
  response.writeHead(202).end();
}

export interface McpServerOptions {
  /** Give a session id with each initialize result (session-1, session-2, ...). */
  sessions?: boolean;
  /** The version the initialize result agrees (default: the one the client asked for). */
  version?: string;
  /** Answer requests with an event stream instead of a JSON body. */
  stream?: boolean;
  /** The server forgets the session of a request this says yes to, before it answers it. */
  loseSessionOn?: (message: Record<string, unknown>) => boolean;
  /** What a request with a session id the server does not know gets: 404 (the spec) or 400 (server-everything). */
  lostStatus?: 404 | 400;
}

/** An MCP server with one tool, echo: initialize, tools/list, tools/call, ping; 202 for what is
 *  not a request; GET 405 (no GET stream); DELETE ends the session. forget(): it loses every
 *  session (as a server that restarted). */
export function mcpServer(options: McpServerOptions = {}): Handler & { forget(): void } {
  const live = new Set<string>();
  let sessions = 0;
  const handler: Handler = (request, response) => {
    const session = request.headers['mcp-session-id'] as string | undefined;
    if (request.method === 'GET') return void response.writeHead(405, { allow: 'POST, DELETE' }).end();
    if (request.method === 'DELETE') {
      live.delete(session ?? '');
      return void response.writeHead(200).end();
    }
    const message = request.body!;
    if (session !== undefined && options.loseSessionOn?.(message)) live.delete(session);
    if (options.sessions && message.method !== 'initialize' && !live.has(session ?? '')) {
      const status = options.lostStatus ?? 404;
      return json(
        response,
        { jsonrpc: '2.0', id: null, error: { code: -32001, message: status === 404 ? 'Session not found' : 'Bad Request: No valid session ID provided' } },
        {},
        status,
      );
    }
    if (!('method' in message) || !('id' in message)) return accepted(response);
    const params = (message.params ?? {}) as Record<string, unknown>;
    const headers: Record<string, string> = {};
    if (message.method === 'initialize' && options.sessions) {
      headers['mcp-session-id'] = `session-${++sessions}`;
      live.add(headers['mcp-session-id']);
    }
    const result = {
      initialize: () => ({
        protocolVersion: options.version ?? params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: 'tiny', version: '1.0.0' },
      }),
      'tools/list': () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } }] }),
      'tools/call': () => ({ content: [{ type: 'text', text: `Echo: ${(params.arguments as { message?: string } | undefined)?.message}` }] }),
      ping: () => ({}),
    }[String(message.method)];
    const reply = result
      ? { jsonrpc: '2.0', id: message.id, result: result() }
      : { jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } };
    if (options.stream) sse(response, [reply], headers);
    else json(response, reply, headers);
  };
  return Object.assign(handler, { forget: () => live.clear() });
}
