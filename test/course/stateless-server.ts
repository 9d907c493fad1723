// A tiny server of the 2026-07-28 revision for the stage 6 tests: the TypeScript SDK v2's McpServer
// behind its web-standard handler (createMcpHandler, 2025 clients refused), on 127.0.0.1 at a port
// the OS picks. Each HTTP request is kept (method, headers, body) for the test to look at.
//
// Its tools: `greet` (text), `forecast` (its `zone` argument mirrored into Mcp-Param-Zone, which the
// SDK checks against the body), `confirm` (asks for input: an elicitation, then the result once a
// retry brings the answer and the requestState it gave). tools/list answers three pages, the first
// with the empty string as nextCursor; the second page also lists `broken`, whose x-mcp-header is on
// an array (a tool a client must leave out).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, fromJsonSchema, inputRequired, inputResponse, McpServer, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

export interface Request {
  method: string;
  headers: IncomingHttpHeaders;
  body?: { id?: unknown; method?: string; params?: Record<string, unknown> };
  /** The HTTP status the server answered. */
  status?: number;
}

export interface StatelessServer {
  url: string;
  requests: Request[];
  close(): Promise<void>;
}

const schema = (properties: Record<string, unknown>, required: string[]) => ({ type: 'object' as const, properties, required });

const TOOLS = [
  { name: 'greet', description: 'Says hello', inputSchema: schema({ who: { type: 'string' } }, ['who']) },
  {
    name: 'forecast',
    description: 'The forecast of a zone',
    inputSchema: schema({ zone: { type: 'string', 'x-mcp-header': 'Zone' }, day: { type: 'integer' } }, ['zone']),
  },
  { name: 'confirm', description: 'Asks before it acts', inputSchema: schema({ action: { type: 'string' } }, ['action']) },
];
const BROKEN = {
  name: 'broken',
  description: 'x-mcp-header on an array',
  inputSchema: schema({ tags: { type: 'array', items: { type: 'string' }, 'x-mcp-header': 'Tags' } }, []),
};
/** tools/list's pages, each with the cursor that asks for it (the first: none) and the next one. */
const PAGES: { cursor: string | undefined; tools: object[]; next?: string }[] = [
  { cursor: undefined, tools: [TOOLS[0]!], next: '' },
  { cursor: '', tools: [TOOLS[1]!, BROKEN], next: 'last' },
  { cursor: 'last', tools: [TOOLS[2]!] },
];

/** The state confirm's question carries to its retry: what it asked about. */
const stateOf = (action: string) => `asked:${action}`;

function build(supportedProtocolVersions?: string[]): McpServer {
  const server = new McpServer(
    { name: 'tiny-stateless', version: '0.1.0' },
    { capabilities: { tools: {} }, ...(supportedProtocolVersions && { supportedProtocolVersions }) },
  );
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
  const register = (name: string, handler: (args: Record<string, unknown>, ctx: never) => unknown) => {
    const tool = TOOLS.find((t) => t.name === name)!;
    server.registerTool(name, { description: tool.description, inputSchema: fromJsonSchema(tool.inputSchema as never) }, handler as never);
  };
  register('greet', async ({ who }) => text(`Hello, ${who}!`));
  register('forecast', async ({ zone, day }) => text(`Clear over ${zone}${day === undefined ? '' : ` on day ${day}`}`));
  register('confirm', async ({ action }, ctx: { mcpReq: { inputResponses: never; requestState(): string | undefined } }) => {
    const answer = inputResponse(ctx.mcpReq.inputResponses, 'ok');
    if (ctx.mcpReq.requestState() !== stateOf(String(action)) || answer.kind !== 'elicit') {
      return inputRequired({
        inputRequests: {
          ok: inputRequired.elicit({
            message: `Really ${action}?`,
            requestedSchema: { type: 'object', properties: { sure: { type: 'boolean' } }, required: ['sure'] },
          }),
        },
        requestState: stateOf(String(action)),
      });
    }
    return text(answer.action === 'accept' && answer.content?.sure === true ? `done: ${action}` : `not done: ${action}`);
  });
  server.server.setRequestHandler('tools/list', async (request) => {
    const page = PAGES.find((p) => p.cursor === request.params?.cursor);
    if (!page) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `no page at cursor ${JSON.stringify(request.params?.cursor)}`);
    return { tools: page.tools, ...(page.next !== undefined && { nextCursor: page.next }) } as never;
  });
  return server;
}

/** The server, listening; `supportedProtocolVersions`: the versions it accepts (the SDK's by default). */
export async function statelessServer(options: { supportedProtocolVersions?: string[] } = {}): Promise<StatelessServer> {
  const handler = createMcpHandler(() => build(options.supportedProtocolVersions), { legacy: 'reject', keepAliveMs: 0 });
  return recordingHttpServer(
    (request) => handler.fetch(request),
    () => handler.close(),
  );
}

/** Headers a body that fetch has already decoded and re-chunked no longer matches. */
const BODY_FRAMING = ['content-length', 'transfer-encoding', 'content-encoding', 'connection'];

/** An HTTP server on 127.0.0.1 at a port the OS picks, at /mcp, that hands each request to `answer` as a
 *  web-standard Request and keeps it (method, headers, body, and the status it got). */
export async function recordingHttpServer(answer: (request: globalThis.Request) => Promise<Response>, onClose = async () => {}): Promise<StatelessServer> {
  const requests: Request[] = [];
  const http = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const seen: Request = { method: incoming.method ?? '', headers: incoming.headers, ...(text !== '' && { body: JSON.parse(text) }) };
      requests.push(seen);
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      const withBody = !['GET', 'HEAD', 'DELETE'].includes(incoming.method ?? '');
      const response = await answer(new Request(`http://127.0.0.1${incoming.url}`, { method: incoming.method, headers, ...(withBody && { body: text }) }));
      seen.status = response.status;
      outgoing.writeHead(response.status, Object.fromEntries([...response.headers].filter(([name]) => !BODY_FRAMING.includes(name))));
      if (response.body) for await (const chunk of response.body) outgoing.write(chunk);
      outgoing.end();
    } catch (error) {
      outgoing.writeHead(502).end(String(error));
    }
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    requests,
    close: async () => {
      await onClose();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
