// A small MCP server of the 2025-11-25 revision whose long tool closes its stream before the result
// (the spec's polling: the server "MAY close the connection (without terminating the SSE stream)"),
// written with the official TypeScript SDK (`@modelcontextprotocol/sdk` 1.x): its Streamable HTTP
// transport with an event store (one of its own, below), so that every stream opens with a priming
// event (an id, `retry:`) and a GET with Last-Event-ID replays what the closed stream missed. It is
// what cassettes/resumable-http.yaml was recorded from (scripts/record-http-cassettes.ts).
//
//   PORT=3003 node --import tsx scripts/resumable-server.ts
//
// `count` ({ to }) logs each step (notifications/message on the call's stream), closes the stream
// after the first, logs the others and answers: a client that does not resume never gets them.
// It prints `listening on <port>` when ready.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport, type EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, isInitializeRequest, ListToolsRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** How long the server asks a client to wait before it reconnects: short, so that a case stays quick. */
export const RETRY_MS = 500;

/** Every event of a session in the order it was stored; a replay sends a stream's events after the one
 *  named. (The SDK's example store sorts its ids, made of a time in ms and a random suffix, as text:
 *  two events of the same millisecond replay in either order, or not at all.) */
class OrderedEventStore implements EventStore {
  private readonly events: { id: string; streamId: string; message: JSONRPCMessage }[] = [];

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${this.events.length + 1}`;
    this.events.push({ id, streamId, message });
    return id;
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (id: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const at = this.events.findIndex((event) => event.id === lastEventId);
    if (at < 0) return '';
    const { streamId } = this.events[at]!;
    for (const event of this.events.slice(at + 1)) if (event.streamId === streamId) await send(event.id, event.message);
    return streamId;
  }
}

const COUNT = {
  name: 'count',
  description: 'Counts to `to`, logging each step; closes its stream after the first step (the client polls)',
  inputSchema: { type: 'object', properties: { to: { type: 'integer', minimum: 1 } }, required: ['to'] },
};

function mcpServer(): Server {
  const server = new Server({ name: 'resumable-server', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [COUNT] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const to = Number(request.params.arguments?.to);
    if (request.params.name !== COUNT.name || !(Number.isInteger(to) && to >= 1)) {
      return { content: [{ type: 'text', text: `unknown tool or arguments: ${JSON.stringify(request.params)}` }], isError: true };
    }
    for (let step = 1; step <= to; step++) {
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `counted ${step} of ${to}` } });
      if (step === 1) extra.closeSSEStream?.();
    }
    return { content: [{ type: 'text', text: `counted to ${to}` }] };
  });
  return server;
}

const transports = new Map<string, StreamableHTTPServerTransport>();

const http = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
  const sessionId = request.headers['mcp-session-id'];
  let transport = typeof sessionId === 'string' ? transports.get(sessionId) : undefined;
  if (transport === undefined && request.method === 'POST' && sessionId === undefined && isInitializeRequest(body)) {
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: new OrderedEventStore(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => void transports.set(id, created),
    });
    created.onclose = () => created.sessionId && transports.delete(created.sessionId);
    await mcpServer().connect(created);
    transport = created;
  }
  if (transport === undefined) {
    response.writeHead(sessionId === undefined ? 400 : 404, { 'content-type': 'application/json' });
    return void response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
  }
  await transport.handleRequest(request, response, body);
});

const port = Number(process.env.PORT ?? 3003);
http.listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
