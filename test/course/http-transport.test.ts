// Stage 4 of the course API, streamable-http: HttpTransport and readSse, in the reference solution
// (src/), the SDK-based second client (test/sdk-client/, built on the SDK's
// StreamableHTTPClientTransport and the eventsource-parser package) and the starter (which says it
// is not implemented yet). Real sockets only: server-everything's Streamable HTTP transport, the
// committed HTTP cassettes replayed by the grader's HTTP face, and a small node:http server for
// what neither can stage on demand (tiny-http-server.ts). readSse on hand-made streams whose
// chunks end where a careless reader breaks.
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { serveCassette } from '../../harness/transports/http/serve.ts';
import { ROOT, startEverythingHttp, type Running } from '../../scripts/record-http-cassettes.ts';
import * as sdkClient from '../sdk-client/src/mcp.ts';
import * as reference from '../../src/mcp.ts';
import * as starter from '../../starter/src/mcp.ts';
import { accepted, json, mcpServer, sse, tinyServer, type Seen, type TinyServer } from './tiny-http-server.ts';

/** What these tests use of an implementation; the SDK-based client's McpClient returns the SDK's own
 *  (wider) result types, the same shape at run time. */
interface Implementation {
  HttpTransport: typeof reference.HttpTransport;
  McpClient: typeof reference.McpClient;
  readSse: typeof reference.readSse;
}

const IMPLEMENTATIONS: [string, Implementation][] = [
  ['the reference solution', reference],
  ['the SDK-based client', sdkClient as unknown as Implementation],
];

// ---------------------------------------------------------------- hand-made streams

/** A body whose reads give exactly these chunks, one per read. */
function body(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  const left = [...chunks];
  return new ReadableStream({
    pull(controller) {
      const next = left.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(next);
    },
  });
}

/** The text's UTF-8 bytes cut into chunks before each of the byte offsets. */
function cut(text: string, ...offsets: number[]): Uint8Array[] {
  const bytes = Buffer.from(text, 'utf8');
  const ends = [...offsets, bytes.length];
  return ends.map((end, i) => new Uint8Array(bytes.subarray(i === 0 ? 0 : ends[i - 1], end)));
}

/** The byte offset of `marker` in the text's UTF-8 bytes (the first one at or after `from`), plus `plus`. */
function at(text: string, marker: string, plus = 0, from = 0): number {
  const offset = Buffer.from(text, 'utf8').indexOf(marker, from, 'utf8');
  if (offset < 0) throw new Error(`no ${JSON.stringify(marker)} in the test's own text`);
  return offset + plus;
}

async function collect(messages: AsyncIterable<unknown>): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const message of messages) all.push(message);
  return all;
}

const PROGRESS = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1, total: 2 } };
const PING = { jsonrpc: '2.0', id: 7, method: 'ping' };
const RESULT = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'Echo: caf\u00e9 \u{1F389}' }] } };
const event = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

describe.each(IMPLEMENTATIONS)('readSse, in %s', (_name, { readSse }) => {
  const read = (chunks: Uint8Array[]) => collect(readSse(body(chunks)));

  it('reads one event in one chunk, and several messages on one stream in order', async () => {
    expect(await read(cut(event(RESULT)))).toEqual([RESULT]);
    expect(await read(cut(event(PROGRESS) + event(PING) + event(RESULT)))).toEqual([PROGRESS, PING, RESULT]);
  });

  it('skips comments (keep-alives) and the event:, id: and retry: fields', async () => {
    const text = `: keepalive\n\n:\nid: 41\nevent: message\nretry: 3000\ndata: ${JSON.stringify(PROGRESS)}\n\n: another\n\nid: 42\ndata: ${JSON.stringify(RESULT)}\n\n`;
    expect(await read(cut(text))).toEqual([PROGRESS, RESULT]);
  });

  it('skips an event with empty data (the priming event every server-everything stream starts with), quietly', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const text = `id: 1a2b\ndata: \n\nid: 1a2c\ndata:\n\n${event(RESULT)}`;
      expect(await read(cut(text))).toEqual([RESULT]);
      expect(stderr).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
    }
  });

  it('joins multi-line data with "\\n"', async () => {
    const text = 'data: {"jsonrpc": "2.0",\ndata:  "id": 1,\ndata: "result": {"text": "two\\nlines"}}\n\n';
    expect(await read(cut(text))).toEqual([{ jsonrpc: '2.0', id: 1, result: { text: 'two\nlines' } }]);
  });

  it('takes lines ended by CRLF, by a lone CR, or by LF, mixed on one stream', async () => {
    const crlf = `event: message\r\ndata: ${JSON.stringify(PROGRESS)}\r\n\r\n`;
    const cr = `: keepalive\r\rdata: ${JSON.stringify(PING)}\r\r`;
    expect(await read(cut(crlf + cr + event(RESULT)))).toEqual([PROGRESS, PING, RESULT]);
  });

  it('keeps a CRLF split across two chunks one line end (a CR at the end of a chunk is not a line of its own)', async () => {
    // two data lines of one message: read as two line ends, the CR and the LF would cut it into two events
    const text = 'data: {"jsonrpc":"2.0",\r\ndata: "id":1,"result":{}}\r\n\r\n';
    expect(await read(cut(text, at(text, '\r\n', 1)))).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
    // the blank line's CRLF split, and the data line's, with a comment between
    const two = `data: ${JSON.stringify(PROGRESS)}\r\n\r\n: keepalive\r\ndata: ${JSON.stringify(RESULT)}\r\n\r\n`;
    const split = cut(two, at(two, '\r\n\r\n', 3), at(two, ': keepalive\r', 12), at(two, '}}\r\n', 3, at(two, ': keepalive')));
    expect(await read(split)).toEqual([PROGRESS, RESULT]);
  });

  it('puts a multi-byte character split across chunks back together (after each byte of a 4-byte emoji, inside a 2-byte é)', async () => {
    const text = event(RESULT);
    const emoji = at(text, '\u{1F389}');
    for (const inside of [1, 2, 3]) expect(await read(cut(text, emoji + inside))).toEqual([RESULT]);
    expect(await read(cut(text, emoji + 1, emoji + 2, emoji + 3))).toEqual([RESULT]);
    expect(await read(cut(text, at(text, '\u00e9', 1)))).toEqual([RESULT]);
  });

  it('waits for the rest of an event cut at a chunk end: inside a field name, inside data, before the blank line', async () => {
    const text = `: ok\n\n${event(PROGRESS)}${event(RESULT)}`;
    const splits = cut(text, at(text, 'ev', 2), at(text, 'da', 2), at(text, '"progress"'), at(text, '\n\n', 1, at(text, 'progress')), at(text, 'result', 3));
    expect(await read(splits)).toEqual([PROGRESS, RESULT]);
  });

  it('reads the same when every byte is its own chunk', async () => {
    const text = `: keepalive\r\n\r\nid: 0\r\ndata:\r\n\r\n${event(PROGRESS)}event: message\r\ndata: ${JSON.stringify(RESULT)}\r\n\r\n`;
    const bytes = Buffer.from(text, 'utf8');
    expect(await read([...bytes].map((byte) => new Uint8Array([byte])))).toEqual([PROGRESS, RESULT]);
  });

  it('drops a final event the stream ended without its blank line, as the SSE spec says', async () => {
    expect(await read(cut(`${event(PROGRESS)}data: ${JSON.stringify(RESULT)}\n`))).toEqual([PROGRESS]);
    expect(await read(cut(`${event(PROGRESS)}data: ${JSON.stringify(RESULT)}`))).toEqual([PROGRESS]);
    expect(await read([])).toEqual([]);
  });

  it('skips data that is not JSON, with a note on stderr, and goes on', async () => {
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await read(cut(`data: not json at all\n\n${event(RESULT)}`))).toEqual([RESULT]);
      expect(stderr.mock.calls.flat().join('\n')).toContain('not json at all');
    } finally {
      stderr.mockRestore();
    }
  });
});

// ---------------------------------------------------------------- the live server

describe('against server-everything streamableHttp', () => {
  let live: Running;
  let said = '';
  beforeAll(async () => {
    live = await startEverythingHttp();
    live.child.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  });
  afterAll(() => live?.stop());

  /** Resolves when the server has printed a line matching `pattern` (the test's timeout is the limit). */
  const whenSaid = (child: ChildProcess, pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve) => {
      const look = () => {
        const match = pattern.exec(said);
        if (match) {
          child.stdout!.off('data', look);
          resolve(match);
        }
      };
      child.stdout!.on('data', look);
      look();
    });

  describe.each(IMPLEMENTATIONS)('%s', (_name, { HttpTransport, McpClient }) => {
    it('initializes, lists the tools, calls echo, and ends the session with DELETE', async () => {
      said = '';
      const client = new McpClient(new HttpTransport(live.url));
      const initialize = await client.initialize();
      expect(initialize.protocolVersion).toBe('2025-11-25');
      expect(initialize.serverInfo.name).toBe('mcp-servers/everything');
      const [, session] = await whenSaid(live.child, /Session initialized with ID: (\S+)/);
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      expect(await client.callTool('echo', { message: 'caf\u00e9 \u{1F389}' })).toEqual({ content: [{ type: 'text', text: 'Echo: caf\u00e9 \u{1F389}' }] });
      await client.close();
      await whenSaid(live.child, new RegExp(`Received session termination request for session ${session}`));
    });

    it('starts a new session, once, when the server no longer knows its own (server-everything answers 400), and retries the call', async () => {
      said = '';
      const client = new McpClient(new HttpTransport(live.url));
      await client.initialize();
      const [, first] = await whenSaid(live.child, /Session initialized with ID: (\S+)/);
      // someone else ends the session on the server
      const ended = await fetch(live.url, { method: 'DELETE', headers: { 'mcp-session-id': first! } });
      expect(ended.status).toBe(200);
      said = '';
      expect(await client.callTool('echo', { message: 'again' })).toEqual({ content: [{ type: 'text', text: 'Echo: again' }] });
      const [, second] = await whenSaid(live.child, /Session initialized with ID: (\S+)/);
      expect(second).not.toBe(first);
      await client.close();
      await whenSaid(live.child, new RegExp(`Received session termination request for session ${second}`));
    });
  });
});

// ---------------------------------------------------------------- the committed HTTP cassettes, replayed

/** A committed HTTP cassette served, `session` run against its URL, and the player's report: no diagnosis. */
async function withoutDiagnosis(file: string, session: (url: string) => Promise<void>): Promise<void> {
  const player = await serveCassette(loadCassette(join(ROOT, 'cassettes', file)));
  try {
    await session(player.url);
    const report = await player.done;
    expect(report.diagnoses).toEqual([]);
    expect(report.ok).toBe(true);
  } finally {
    await player.close();
  }
}

describe.each(IMPLEMENTATIONS)('replaying the committed HTTP cassettes to %s', (_name, { HttpTransport, McpClient }) => {
  it('everything-http-handshake: initialize, initialized, ping, DELETE, with no diagnosis', () =>
    withoutDiagnosis('everything-http-handshake.yaml', async (url) => {
      const client = new McpClient(new HttpTransport(url));
      expect((await client.initialize()).serverInfo.name).toBe('mcp-servers/everything');
      expect(await client.request('ping')).toEqual({});
      await client.close();
    }));

  it('everything-http-tools: the recorded calls (tools/list, echo, the long-running operation), with no diagnosis', () =>
    withoutDiagnosis('everything-http-tools.yaml', async (url) => {
      const client = new McpClient(new HttpTransport(url));
      await client.initialize();
      expect((await client.listTools()).map((tool) => tool.name)).toContain('trigger-long-running-operation');
      expect(await client.callTool('echo', { message: 'hello, http cassette' })).toEqual({ content: [{ type: 'text', text: 'Echo: hello, http cassette' }] });
      // recorded with a progress token (the SDK client asked for progress): _meta is the client's choice
      expect(await client.callTool('trigger-long-running-operation', { duration: 1, steps: 2 })).toEqual({
        content: [{ type: 'text', text: 'Long running operation completed. Duration: 1 seconds, Steps: 2.' }],
      });
      await client.close();
    }));
});

// ---------------------------------------------------------------- a small node:http server

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '1.0.0' } },
};

describe.each(IMPLEMENTATIONS)('HttpTransport of %s, against a small node:http server', (_name, { HttpTransport, McpClient }) => {
  const servers: TinyServer[] = [];
  const serve = async (handler: Parameters<typeof tinyServer>[0]) => {
    const server = await tinyServer(handler);
    servers.push(server);
    return server;
  };
  afterAll(() => Promise.all(servers.map((server) => server.close())));
  const posts = (server: TinyServer) => server.requests.filter((request) => request.method === 'POST');
  const methodOf = (request: Seen) => request.body?.method ?? ('result' in (request.body ?? {}) ? 'response' : undefined);

  it('POSTs each message as JSON, accepting both JSON and an event stream, and hands on a JSON reply', async () => {
    const server = await serve(mcpServer());
    const transport = new HttpTransport(server.url);
    const messages = transport.messages[Symbol.asyncIterator]();
    await transport.send(INITIALIZE);
    expect((await messages.next()).value).toEqual({ jsonrpc: '2.0', id: 1, result: expect.objectContaining({ protocolVersion: '2025-11-25' }) });
    const [post] = posts(server);
    expect(post!.headers['content-type']).toMatch(/^application\/json/);
    expect(post!.headers.accept).toContain('application/json');
    expect(post!.headers.accept).toContain('text/event-stream');
    expect(post!.body).toEqual(INITIALIZE);
    await transport.close();
    expect(await messages.next()).toEqual({ value: undefined, done: true });
  });

  it('takes 202 with no body for a notification: nothing is handed on for it', async () => {
    const server = await serve(mcpServer({ stream: true }));
    const transport = new HttpTransport(server.url);
    const messages = transport.messages[Symbol.asyncIterator]();
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send({ jsonrpc: '2.0', id: 5, method: 'ping' });
    expect((await messages.next()).value).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    await transport.close();
  });

  it('hands on every message of an event-stream reply in order: notifications and server requests before the response', async () => {
    const server = await serve((request, response) => {
      if (request.method !== 'POST') return void response.writeHead(405).end();
      if (request.body?.id === undefined || !('method' in request.body)) return accepted(response);
      sse(response, [PROGRESS, PING, { ...RESULT, id: request.body.id }]);
    });
    const transport = new HttpTransport(server.url);
    const messages = transport.messages[Symbol.asyncIterator]();
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    const three = [await messages.next(), await messages.next(), await messages.next()].map((next) => next.value);
    expect(three).toEqual([PROGRESS, PING, RESULT]);
    await transport.close();
  });

  it('answers a server request that comes on the stream of a call, while the call waits for its response', async () => {
    // the server holds the call's response until the client has answered its ping
    let answered: () => void;
    const pingAnswered = new Promise<void>((resolve) => (answered = resolve));
    const server = await serve(async (request, response) => {
      const message = request.body;
      if (request.method !== 'POST') return void response.writeHead(405).end();
      if (message?.method === 'initialize')
        return json(response, {
          jsonrpc: '2.0',
          id: message.id,
          result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'tiny', version: '1' } },
        });
      if (message?.method === 'tools/call') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write(`: keepalive\n\n${event(PING)}`);
        await pingAnswered;
        response.end(event({ ...RESULT, id: message.id }));
        return;
      }
      if (message?.id === PING.id && 'result' in message) answered!();
      accepted(response);
    });
    const client = new McpClient(new HttpTransport(server.url));
    await client.initialize();
    expect(await client.callTool('echo', {})).toEqual(RESULT.result);
    expect(posts(server).map((post) => post.body)).toContainEqual({ jsonrpc: '2.0', id: PING.id, result: {} });
    await client.close();
  });

  it('rejects on an HTTP error with the status, the URL and the JSON-RPC error message of the body (406 for a wrong Accept)', async () => {
    const server = await serve((_request, response) =>
      json(
        response,
        { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Not Acceptable: Client must accept both application/json and text/event-stream' } },
        {},
        406,
      ),
    );
    const transport = new HttpTransport(server.url);
    const sent = transport.send(INITIALIZE);
    await expect(sent).rejects.toThrow('406');
    await expect(sent).rejects.toThrow(server.url);
    await expect(sent).rejects.toThrow('Client must accept both application/json and text/event-stream');
    await transport.close();
  });

  it('sends the configured headers (a bearer token) on every request: POST, GET if any, DELETE', async () => {
    const server = await serve(mcpServer({ sessions: true }));
    const client = new McpClient(new HttpTransport(server.url, { headers: { Authorization: 'Bearer s3cret' } }));
    await client.initialize();
    await client.listTools();
    await client.close();
    expect(server.requests.map((request) => request.method)).toContain('DELETE');
    for (const request of server.requests)
      expect({ method: request.method, auth: request.headers.authorization }).toEqual({ method: request.method, auth: 'Bearer s3cret' });
  });

  it('sends the session id the initialize response gave, and the protocol version it agreed, on every later request', async () => {
    // the server counter-offers 2025-06-18: the header says the version agreed, not the one asked for
    const server = await serve(mcpServer({ sessions: true, version: '2025-06-18', stream: true }));
    const client = new McpClient(new HttpTransport(server.url));
    expect((await client.initialize()).protocolVersion).toBe('2025-06-18');
    await client.listTools();
    await client.callTool('echo', { message: 'hi' });
    await client.close();
    const [initialize, ...later] = server.requests;
    expect(initialize!.body?.method).toBe('initialize');
    expect(initialize!.headers['mcp-session-id']).toBeUndefined();
    expect(initialize!.headers['mcp-protocol-version']).toBeUndefined();
    expect(later.map(methodOf)).toEqual(expect.arrayContaining(['notifications/initialized', 'tools/list', 'tools/call']));
    for (const request of later) {
      expect({
        what: methodOf(request) ?? request.method,
        session: request.headers['mcp-session-id'],
        version: request.headers['mcp-protocol-version'],
      }).toEqual({
        what: methodOf(request) ?? request.method,
        session: 'session-1',
        version: '2025-06-18',
      });
    }
  });

  it.each([404, 400] as const)('on %i to a session id: initializes again, once, under an id of its own, and retries the message', async (lostStatus) => {
    let lost = 0;
    const server = await serve(mcpServer({ sessions: true, lostStatus, loseSessionOn: (message) => message.method === 'tools/list' && lost++ === 0 }));
    const client = new McpClient(new HttpTransport(server.url));
    await client.initialize();
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(['echo']);
    await client.close();
    const seen = posts(server).map((post) => [methodOf(post), post.headers['mcp-session-id'] ?? null]);
    expect(seen).toEqual([
      ['initialize', null],
      ['notifications/initialized', 'session-1'],
      ['tools/list', 'session-1'],
      ['initialize', null],
      ['notifications/initialized', 'session-2'],
      ['tools/list', 'session-2'],
    ]);
    const [first, , list, again, , retried] = posts(server).map((post) => post.body!);
    // the same initialize, under an id the client never used (its response is the transport's own)
    const { id: firstId, ...firstRest } = first!;
    const { id: againId, ...againRest } = again!;
    expect(againRest).toEqual(firstRest);
    expect(againId).not.toEqual(firstId);
    expect(againId).not.toEqual(list!.id);
    expect(retried).toEqual(list);
    // the new initialize goes without the old version header; later requests have it again
    expect(posts(server)[3]!.headers['mcp-protocol-version']).toBeUndefined();
    expect(posts(server)[5]!.headers['mcp-protocol-version']).toBe('2025-11-25');
    expect(server.requests.at(-1)).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': 'session-2' } });
  });

  it('starts one new session for calls that lost the old one together, and retries each', async () => {
    const fake = mcpServer({ sessions: true });
    const server = await serve(fake);
    const client = new McpClient(new HttpTransport(server.url));
    await client.initialize();
    fake.forget();
    const results = await Promise.all(['one', 'two', 'three'].map((message) => client.callTool('echo', { message })));
    expect(results.map((result) => result.content)).toEqual([
      [{ type: 'text', text: 'Echo: one' }],
      [{ type: 'text', text: 'Echo: two' }],
      [{ type: 'text', text: 'Echo: three' }],
    ]);
    expect(posts(server).filter((post) => post.body?.method === 'initialize')).toHaveLength(2);
    await client.close();
  });

  it('initializes again only once: a session lost again rejects the call with the HTTP error', async () => {
    const server = await serve(mcpServer({ sessions: true, loseSessionOn: (message) => message.method === 'tools/list' }));
    const client = new McpClient(new HttpTransport(server.url));
    await client.initialize();
    const listed = client.listTools();
    await expect(listed).rejects.toThrow('404');
    await expect(listed).rejects.toThrow(server.url);
    expect(posts(server).map(methodOf)).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'initialize',
      'notifications/initialized',
      'tools/list',
    ]);
    await client.close();
  });

  it('close() sends DELETE with the session id when there is a session, and nothing when there is none', async () => {
    const withSessions = await serve(mcpServer({ sessions: true }));
    const withClient = new McpClient(new HttpTransport(withSessions.url));
    await withClient.initialize();
    await withClient.close();
    const deletes = withSessions.requests.filter((request) => request.method === 'DELETE');
    expect(deletes.map((request) => request.headers['mcp-session-id'])).toEqual(['session-1']);

    const without = await serve(mcpServer());
    const withoutClient = new McpClient(new HttpTransport(without.url));
    await withoutClient.initialize();
    await withoutClient.close();
    expect(without.requests.filter((request) => request.method === 'DELETE')).toEqual([]);
    // a transport that never sent anything has no session either
    const idle = await serve(mcpServer());
    await new HttpTransport(idle.url).close();
    expect(idle.requests).toEqual([]);
  });
});

describe('the starter', () => {
  it('says HttpTransport and readSse are not implemented yet', () => {
    expect(() => new starter.HttpTransport('http://127.0.0.1:1/mcp')).toThrow('not implemented yet: HttpTransport');
    expect(() => starter.readSse(body([]))).toThrow('not implemented yet: readSse');
  });
});
