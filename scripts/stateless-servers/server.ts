// Small MCP servers of the 2026-07-28 revision (stateless: no session, no initialize, `_meta` on
// every request), written with the TypeScript SDK v2 (`@modelcontextprotocol/server`) and served
// over its Streamable HTTP handler on 127.0.0.1. They are what cassettes/stateless-*.yaml were
// recorded from, and what the tests check the player against.
//
//   PORT=3001 node --import tsx scripts/stateless-servers/server.ts tools
//   PORT=3002 node --import tsx scripts/stateless-servers/server.ts versions
//
// `tools`: tools/list in three pages (the first page's nextCursor is the empty string, which is a
// cursor, not the end), a text tool, a structured one, one that answers isError, one whose
// argument is mirrored into an Mcp-Param header, and one that asks for input (input_required,
// then the result on the retry that carries inputResponses and echoes requestState).
// `versions`: the same server, declaring only 2026-07-28: a client that offers another version
// first is answered -32022 with the versions it supports.
//
// Both answer only the modern revision (`legacy: 'reject'`): an initialize is refused, as a
// server that supports only 2026-07-28 refuses it. It prints `listening on <port>` when ready.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createMcpHandler, fromJsonSchema, inputRequired, inputResponse, McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { JsonSchemaType } from '@modelcontextprotocol/server';

export const SERVER_VERSION = '1.0.0';
export const VARIANTS = ['tools', 'versions'] as const;
export type Variant = (typeof VARIANTS)[number];

/** Tools per page of tools/list. */
const PAGE_SIZE = 2;
/** The cursor of each page after the first, in order: the first is the empty string. */
const CURSORS = ['', 'page-3'];

/** An argument's schema; `x-mcp-header` (2026-07-28) mirrors the argument into an `Mcp-Param-*` header. */
type Property = JsonSchemaType & { 'x-mcp-header'?: string };

const object = (properties: Record<string, Property>, required: string[]) => ({ type: 'object' as const, properties, required });

/** The tools, as tools/list lists them, in order. */
const TOOLS = [
  { name: 'echo', description: 'Echoes the message back', inputSchema: object({ message: { type: 'string' } }, ['message']) },
  {
    name: 'add',
    description: 'Adds two integers; the sum is structured content',
    inputSchema: object({ a: { type: 'integer' }, b: { type: 'integer' } }, ['a', 'b']),
    outputSchema: object({ sum: { type: 'integer' } }, ['sum']),
  },
  {
    name: 'divide',
    description: 'Divides a by b; dividing by zero is a tool error',
    inputSchema: object({ a: { type: 'number' }, b: { type: 'number' } }, ['a', 'b']),
  },
  {
    name: 'weather',
    description: 'The weather in a city; the region is mirrored into the Mcp-Param-Region header',
    inputSchema: object({ region: { type: 'string', 'x-mcp-header': 'Region' }, city: { type: 'string' } }, ['region', 'city']),
  },
  { name: 'deploy', description: 'Deploys to an environment once the user confirms', inputSchema: object({ env: { type: 'string' } }, ['env']) },
];

type Content = { content: { type: 'text'; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };
type Handler = (args: never, ctx: Parameters<Parameters<McpServer['registerTool']>[2]>[1]) => Promise<unknown>;

const text = (value: string, extra: Partial<Content> = {}): Content => ({ content: [{ type: 'text', text: value }], ...extra });

/** The state a deploy's input request carries to its retry: what it was asked about, as the
 *  server alone reads it (opaque to the client, the same every run). */
function deployState(env: string): string {
  return Buffer.from(JSON.stringify({ tool: 'deploy', env })).toString('base64url');
}

const HANDLERS: Record<string, Handler> = {
  echo: async ({ message }: { message: string }) => text(`Echo: ${message}`),
  add: async ({ a, b }: { a: number; b: number }) => text(JSON.stringify({ sum: a + b }), { structuredContent: { sum: a + b } }),
  divide: async ({ a, b }: { a: number; b: number }) => (b === 0 ? text('cannot divide by zero', { isError: true }) : text(String(a / b))),
  weather: async ({ region, city }: { region: string; city: string }) => text(`Sunny in ${city} (${region})`),
  deploy: async ({ env }: { env: string }, ctx) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
    // Without the state this request was given (absent, or another request's), the server has
    // nothing to continue from: it asks again.
    if (ctx.mcpReq.requestState() !== deployState(env) || answer.kind !== 'elicit') {
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({
            message: `Deploy to ${env}?`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
          }),
        },
        requestState: deployState(env),
      });
    }
    const confirmed = answer.action === 'accept' && answer.content?.confirm === true;
    return text(confirmed ? `deployed to ${env}` : `deployment to ${env} cancelled`);
  },
};

function build(variant: Variant): McpServer {
  const server = new McpServer(
    { name: `stateless-${variant}`, version: SERVER_VERSION },
    { capabilities: { tools: {} }, ...(variant === 'versions' && { supportedProtocolVersions: ['2026-07-28'] }) },
  );
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      {
        description: tool.description,
        inputSchema: fromJsonSchema(tool.inputSchema),
        ...(tool.outputSchema && { outputSchema: fromJsonSchema(tool.outputSchema) }),
      },
      HANDLERS[tool.name] as never,
    );
  }
  // tools/list in pages of PAGE_SIZE, the first page's nextCursor the empty string
  server.server.setRequestHandler('tools/list', async (request) => {
    const cursor = request.params?.cursor;
    const page = cursor === undefined ? 0 : CURSORS.indexOf(cursor) + 1;
    if (page === 0 && cursor !== undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
    const tools = TOOLS.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE);
    const nextCursor = (page + 1) * PAGE_SIZE < TOOLS.length ? CURSORS[page] : undefined;
    return { tools, ...(nextCursor !== undefined && { nextCursor }) } as never;
  });
  return server;
}

function factory(variant: Variant): () => McpServer {
  return () => build(variant);
}

/** One Node request as the web-standard Request the SDK's handler takes, and its Response back. */
async function bridge(handler: ReturnType<typeof createMcpHandler>, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'DELETE';
  const answer = await handler.fetch(
    new Request(`http://127.0.0.1${request.url ?? '/'}`, { method: request.method, headers, ...(hasBody && { body: Buffer.concat(chunks) }) }),
  );
  response.writeHead(answer.status, Object.fromEntries(answer.headers));
  if (answer.body) for await (const chunk of answer.body) response.write(chunk);
  response.end();
}

/** Starts one server on 127.0.0.1:port; resolves with its URL once it listens. */
export async function serve(variant: Variant, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createMcpHandler(factory(variant), { legacy: 'reject', keepAliveMs: 0 });
  const http = createServer((request, response) => {
    bridge(handler, request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  const { port: bound } = http.address() as { port: number };
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    close: async () => {
      await handler.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const variant = process.argv[2] as Variant;
  if (!VARIANTS.includes(variant)) {
    process.stderr.write(`usage: server.ts ${VARIANTS.join('|')} (port in PORT)\n`);
    process.exit(2);
  }
  const { url } = await serve(variant, Number(process.env.PORT ?? 0));
  process.stdout.write(`listening on ${new URL(url).port}\n`);
}
