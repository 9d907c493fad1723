// The player served over Streamable HTTP: the official SDK client sees the same session from a
// replayed cassette as from the live server-everything it was recorded from; a fetch client sees
// the same replies (status, headers that matter, body) for each kind of request; and every header
// mistake the transport rules out is answered as a server would and diagnosed.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { serveCassette, type HttpPlayerSession } from '../../harness/transports/http/serve.ts';
import { verifyHttpCassette } from '../../harness/transports/http/verify-link.ts';
import type { Cassette, Frame } from '../../harness/cassette/format/model.ts';
import { parseSse } from '../../harness/transports/http/sse.ts';
import { ROOT, runHttpSession, startEverythingHttp, startRecorder, TOOLS_STEPS, waitForOutput, type Running } from '../../scripts/record-http-cassettes.ts';
import { cassetteCommand, runSession } from './sdk-session.ts';

const TOOLS = join(ROOT, 'cassettes', 'everything-http-tools.yaml');
const HANDSHAKE = join(ROOT, 'cassettes', 'everything-http-handshake.yaml');

let live: Running;
const scratch = mkdtempSync(join(tmpdir(), 'theinference-http-face-'));
beforeAll(async () => {
  live = await startEverythingHttp();
});
afterAll(async () => {
  await live?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function replaying<T>(
  file: string,
  use: (player: HttpPlayerSession) => Promise<T>,
  options: Parameters<typeof serveCassette>[1] = {},
): Promise<{ value: T; player: HttpPlayerSession }> {
  const player = await serveCassette(loadCassette(file), options);
  try {
    return { value: await use(player), player };
  } finally {
    await player.close();
  }
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'http-recorder-test', version: '1.0.0' } },
};
const BOTH = 'application/json, text/event-stream';

function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: BOTH, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** What a client can rely on in a reply: the status, the headers that matter, the body (SSE events
 *  parsed, with the event ids and session ids a server makes up fresh each time masked). */
async function reply(response: Response): Promise<unknown> {
  const type = response.headers.get('content-type') ?? '';
  const text = await response.text();
  const body = type.startsWith('text/event-stream') ? parseSse(text).map((event) => ({ ...event, ...(event.id && { id: '<id>' }) })) : text;
  return { status: response.status, type, session: response.headers.has('mcp-session-id'), body };
}

describe('the HTTP player face', () => {
  it('gives the SDK client the same session as the live server, progress notifications before the result included', async () => {
    const liveSession = await runHttpSession(live.url, TOOLS_STEPS);
    const { value: replayed, player } = await replaying(TOOLS, (player) => runHttpSession(player.url, TOOLS_STEPS));
    expect(replayed).toEqual(liveSession);
    expect(replayed.progress).toHaveLength(2);
    const report = await player.done;
    expect(report.diagnoses).toEqual([]);
    expect(report.complete).toBe(true);
  });

  it('answers a fetch client as the live server does: an SSE reply with its priming event, a 202, a held GET stream, a DELETE', async () => {
    const session = async (url: string) => {
      const initialize = await post(url, INITIALIZE);
      const id = initialize.headers.get('mcp-session-id')!;
      const headers = { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
      const steps = [await reply(initialize)];
      steps.push(await reply(await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)));
      const get = await fetch(url, { headers: { accept: 'text/event-stream', ...headers } });
      steps.push({ status: get.status, type: get.headers.get('content-type') });
      await get.body?.cancel();
      steps.push(await reply(await post(url, { jsonrpc: '2.0', id: 1, method: 'ping' }, headers)));
      steps.push(await reply(await fetch(url, { method: 'DELETE', headers })));
      return steps;
    };
    const liveSteps = await session(live.url);
    const { value: replayed, player } = await replaying(HANDSHAKE, (player) => session(player.url));
    expect(replayed).toEqual(liveSteps);
    expect((liveSteps[0] as { body: { data?: string }[] }).body[0]).toEqual({ id: '<id>', data: '' }); // the priming event
    expect((await player.done).diagnoses).toEqual([]);
  });

  it('answers an Accept without both types with 406 and a Content-Type that is not JSON with 415, worded as the live server words them, and says so', async () => {
    const mistakes = async (url: string) => [
      await reply(await post(url, INITIALIZE, { accept: 'application/json' })),
      await reply(await post(url, INITIALIZE, { 'content-type': 'text/plain' })),
    ];
    const liveReplies = await mistakes(live.url);
    const { value: replayed, player } = await replaying(HANDSHAKE, (player) => mistakes(player.url));
    expect(replayed).toEqual(liveReplies);
    // and the session ended there, with the recording's messages unused
    expect(player.diagnoses.map((diagnosis) => diagnosis.kind)).toEqual(['http-accept', 'http-content-type', 'unused']);
    expect(player.diagnoses[0]!.message).toBe(
      'your client\'s POST says Accept: "application/json"; it must accept both application/json and text/event-stream',
    );
    // drawn in the exchange as they went: each refused POST (its request line and the headers that
    // decided it) with its mistake, and the refusal, worded as the live server's
    const refusal = (answer: unknown) => {
      const { status, body } = answer as { status: number; body: string };
      return `${status} ${(JSON.parse(body) as { error: { message: string } }).error.message}`;
    };
    const { exchange } = await player.done;
    expect(exchange.steps).toEqual([
      {
        from: 'client',
        kind: 'transport',
        message: 'POST /mcp\naccept: application/json\ncontent-type: application/json',
        diagnosis: { kind: 'http-accept', message: player.diagnoses[0]!.message },
      },
      { from: 'server', kind: 'transport', message: refusal(liveReplies[0]) },
      {
        from: 'client',
        kind: 'transport',
        message: `POST /mcp\naccept: ${BOTH}\ncontent-type: text/plain`,
        diagnosis: { kind: 'http-content-type', message: player.diagnoses[1]!.message },
      },
      { from: 'server', kind: 'transport', message: refusal(liveReplies[1]) },
    ]);
  });

  it('gives a fresh session id each replay, and says when a request comes without it, with another, or without MCP-Protocol-Version', async () => {
    const { value, player } = await replaying(HANDSHAKE, async (player) => {
      const initialize = await post(player.url, INITIALIZE);
      await initialize.text();
      const id = initialize.headers.get('mcp-session-id')!;
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
      return {
        id,
        missing: (await post(player.url, initialized)).status,
        wrong: (await post(player.url, initialized, { 'mcp-session-id': 'remembered' })).status,
        noVersion: (await post(player.url, initialized, { 'mcp-session-id': id })).status,
      };
    });
    const recorded = loadCassette(HANDSHAKE).frames[0]!;
    expect(value.id).not.toBe(recorded.from === 'client' && recorded.http?.reply?.headers?.['mcp-session-id']);
    expect(value).toMatchObject({ missing: 400, wrong: 404, noVersion: 202 });
    // and the session ended there, with the recording's messages unused; without its DELETE, which is advice
    expect(player.diagnoses.map((diagnosis) => diagnosis.kind)).toEqual(['http-session', 'http-session', 'http-protocol-version', 'unused']);
    expect((await player.done).advice.map((advice) => advice.kind)).toEqual(['http-session-left-open']);
    expect(player.diagnoses[2]!.message).toBe(
      'your client sent POST /mcp without the MCP-Protocol-Version header: after initialize, every request says the version agreed (2025-11-25)',
    );
  });

  it('says a request after initialize without MCP-Protocol-Version where the server gave no session too', async () => {
    const { player } = await replaying(join(ROOT, 'cassettes', 'everything-handshake.yaml'), async (player) => {
      const initialize = await post(player.url, INITIALIZE);
      expect(initialize.headers.get('mcp-session-id')).toBeNull();
      await initialize.text();
      await (await post(player.url, { jsonrpc: '2.0', method: 'notifications/initialized' })).text();
    });
    expect(player.diagnoses.map((diagnosis) => diagnosis.kind)).toContain('http-protocol-version');
  });

  it('plays a stdio recording over HTTP: its responses as JSON bodies, to the SDK client', async () => {
    const { value, player } = await replaying(join(ROOT, 'cassettes', 'everything-handshake.yaml'), (player) =>
      runHttpSession(player.url, [(client) => client.ping()]),
    );
    expect(value.results).toEqual([{}]);
    expect((value.server as { version: { name: string } }).version.name).toBe('mcp-servers/everything');
    expect((await player.done).diagnoses).toEqual([]);
  });

  it('theinference replay serves an HTTP cassette on 127.0.0.1, prints its URL, and ends when the client ends the session', async () => {
    const [command, ...args] = cassetteCommand('replay', HANDSHAKE);
    const child = spawn(command!, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [url] = await waitForOutput(child, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m, 'replay');
    const session = await runHttpSession(url, [(client) => client.ping()]);
    const [code] = await once(child, 'close');
    expect(session.results).toEqual([{}]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('theinference replay refuses a port in use in one line, and --port without HTTP', () => {
    const taken = new URL(live.url).port;
    const run = (...args: string[]) => {
      const [command, ...rest] = cassetteCommand('replay', ...args);
      return spawnSync(command!, rest, { cwd: ROOT, encoding: 'utf8' });
    };
    const inUse = run(HANDSHAKE, '--port', taken);
    expect({ status: inUse.status, stderr: inUse.stderr }).toEqual({
      status: 2,
      stderr: `theinference replay: port ${taken} on 127.0.0.1 is in use: pick another with --port, or 0 for a free one\n`,
    });
    const stdio = run(join(ROOT, 'cassettes', 'everything-handshake.yaml'), '--port', '0');
    expect({ status: stdio.status, stderr: stdio.stderr }).toEqual({
      status: 2,
      stderr: 'theinference replay: --port is for a replay over HTTP (an HTTP cassette, or --http)\nrun `theinference help` for the commands and options\n',
    });
  });

  it("answers a client's own ids: string ids and a progress token of its choosing come back on every event of the stream", async () => {
    const { value: events, player } = await replaying(TOOLS, async (player) => {
      const initialize = await post(player.url, { ...INITIALIZE, id: 'start' });
      await initialize.text();
      const headers = { 'mcp-session-id': initialize.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      const messages = async (response: Response) => parseSse(await response.text()).flatMap((event) => (event.data ? [JSON.parse(event.data)] : []));
      await post(player.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      await messages(await post(player.url, { jsonrpc: '2.0', id: 'list', method: 'tools/list' }, headers));
      const echo = { name: 'echo', arguments: { message: 'hello, http cassette' } };
      await messages(await post(player.url, { jsonrpc: '2.0', id: 'echo', method: 'tools/call', params: echo }, headers));
      const long = { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 }, _meta: { progressToken: 'mine' } };
      const stream = await messages(await post(player.url, { jsonrpc: '2.0', id: 'long', method: 'tools/call', params: long }, headers));
      await fetch(player.url, { method: 'DELETE', headers });
      return stream;
    });
    expect(events.map((message) => message.params?.progressToken ?? message.id)).toEqual(['mine', 'mine', 'long']);
    expect((await player.done).diagnoses).toEqual([]);
  });

  it('plays an HTTP recording over stdio, its messages as lines, to the SDK client', async () => {
    const session = await runSession(cassetteCommand('replay', '--stdio', HANDSHAKE), [(client) => client.ping()]);
    expect(session.results).toEqual([{}]);
    expect((session.server as { version: { name: string } }).version.name).toBe('mcp-servers/everything');
  });

  it('holds a server request on its stream until the client has answered it: a sampling session, live, recorded and replayed alike', async () => {
    /** The SDK client with sampling: the server asks it for a message in the middle of a tool call. */
    const sampling = async (url: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(url));
      const client = new Client({ name: 'http-recorder-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
        model: 'test-model',
        role: 'assistant' as const,
        content: { type: 'text' as const, text: `sampled with at most ${request.params.maxTokens} tokens` },
      }));
      await client.connect(transport);
      const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hi', maxTokens: 5 } });
      await transport.terminateSession();
      await client.close();
      return result;
    };
    const out = join(scratch, 'sampling.yaml');
    const recorder = await startRecorder(['--out', out, '--http', live.url]);
    const recorded = await sampling(recorder.url);
    expect((await recorder.exited).code).toBe(0);
    const frames = loadCassette(out).frames;
    const ask = frames.findIndex((frame) => frame.from === 'server' && frame.message.method === 'sampling/createMessage');
    expect(frames[ask]).toMatchObject({ http: { request: 1 } }); // on the stream of the tool call
    expect(frames[ask + 1]).toMatchObject({ from: 'client', message: { result: { model: 'test-model' } }, http: { reply: { status: 202 } } });
    expect(frames[ask + 2]).toMatchObject({ from: 'server', message: { id: 1 } }); // and only then, the tool's result

    const { value: replayed, player } = await replaying(out, (player) => sampling(player.url));
    expect(replayed).toEqual(recorded);
    expect(replayed).toEqual(await sampling(live.url));
    expect((await player.done).diagnoses).toEqual([]);
  });

  it('--pace recorded keeps the gaps between the events of a stream: the long operation takes its recorded second again', async () => {
    const started = performance.now();
    const { value, player } = await replaying(TOOLS, (player) => runHttpSession(player.url, TOOLS_STEPS), { pace: 'recorded' });
    // a lower bound only: a busy machine makes it slower, never faster
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(value.progress).toHaveLength(2);
    expect((await player.done).diagnoses).toEqual([]);
  });

  it('a client that leaves in the middle of a stream leaves the player standing: the rest of the session is played', async () => {
    const { value, player } = await replaying(
      TOOLS,
      async (player) => {
        const initialize = await post(player.url, INITIALIZE);
        await initialize.text();
        const headers = { 'mcp-session-id': initialize.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
        await post(player.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
        await (await post(player.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)).text();
        const echo = { name: 'echo', arguments: { message: 'hello, http cassette' } };
        await (await post(player.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: echo }, headers)).text();
        const long = { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 }, _meta: { progressToken: 3 } };
        const stream = await post(player.url, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: long }, headers);
        const reader = stream.body!.getReader();
        let seen = '';
        while (!seen.includes('notifications/progress')) seen += new TextDecoder().decode((await reader.read()).value);
        await reader.cancel(); // gone, before the second progress notification and the result
        return (await fetch(player.url, { method: 'DELETE', headers })).status;
      },
      { pace: 'recorded' },
    );
    expect(value).toBe(200);
    const report = await player.done;
    expect(report.diagnoses).toEqual([]);
    expect(report.complete).toBe(true);
  });

  it('a client that goes on without waiting for the initialize result is told: it lacks the session id the result gives', async () => {
    const { value, player } = await replaying(HANDSHAKE, async (player) => {
      const initialize = await post(player.url, INITIALIZE); // the reply's head is in: its body (the result) not read
      const initialized = await post(player.url, { jsonrpc: '2.0', method: 'notifications/initialized' });
      await initialize.text();
      return initialized.status;
    });
    expect(value).toBe(400);
    expect(player.diagnoses[0]!.kind).toBe('http-session');
  });

  it('plays a long stream as fast as the client reads it: 20,000 events to a client that stops reading a while, all there, in order', async () => {
    const recorded = loadCassette(HANDSHAKE);
    const handshake = recorded.frames.slice(
      0,
      recorded.frames.findIndex((frame) => frame.from === 'client' && frame.message.method === 'ping'),
    );
    const count = 20_000;
    const cassette: Cassette = {
      ...recorded,
      frames: [
        ...handshake,
        {
          from: 'client',
          message: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { progressToken: 9 } } },
          http: { path: '/mcp', reply: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'sse' } },
        },
        ...Array.from(
          { length: count },
          (_, index): Frame => ({
            from: 'server',
            message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 9, progress: index + 1, message: 'x'.repeat(100) } },
            http: { request: 9, event: 'message' },
          }),
        ),
        { from: 'server', message: { jsonrpc: '2.0', id: 9, result: { content: [] } }, http: { request: 9, event: 'message' } },
      ],
    };
    const player = await serveCassette(cassette);
    try {
      const initialize = await post(player.url, INITIALIZE);
      await initialize.text();
      const headers = { 'mcp-session-id': initialize.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
      await post(player.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
      const call = { jsonrpc: '2.0', id: 'long', method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { progressToken: 'p' } } };
      const reader = (await post(player.url, call, headers)).body!.getReader();
      const first = await reader.read();
      await new Promise((resolve) => setTimeout(resolve, 300)); // the buffers fill up meanwhile
      let text = new TextDecoder().decode(first.value);
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
      const messages = parseSse(text).map((event) => JSON.parse(event.data!));
      expect(messages).toHaveLength(count + 1);
      expect(messages.slice(0, count).every((message, index) => message.params.progress === index + 1 && message.params.progressToken === 'p')).toBe(true);
      expect(messages[count]).toEqual({ jsonrpc: '2.0', id: 'long', result: { content: [] } });
      await fetch(player.url, { method: 'DELETE', headers });
      expect((await player.done).diagnoses).toEqual([]);
    } finally {
      await player.close();
    }
  });

  it('theinference verify plays an HTTP cassette against the server at --url, or one it starts with the recorded command, and asks for one where there is neither', () => {
    const run = (...args: string[]) => {
      const [command, ...rest] = cassetteCommand('verify', ...args);
      return spawnSync(command!, rest, { cwd: ROOT, encoding: 'utf8' });
    };
    const outcome = (result: ReturnType<typeof run>) => ({ status: result.status, stdout: result.stdout, stderr: result.stderr });
    expect(outcome(run(HANDSHAKE, '--url', live.url))).toEqual({ status: 0, stdout: `${HANDSHAKE}: no drift\n`, stderr: '' });
    // started as its provenance says (node <the everything server> streamableHttp), on a free port
    expect(loadCassette(HANDSHAKE).provenance.command).toBeDefined();
    expect(outcome(run(HANDSHAKE))).toEqual({ status: 0, stdout: `${HANDSHAKE}: no drift\n`, stderr: '' });
    const unnamed = join(scratch, 'no-command.yaml');
    writeFileSync(unnamed, readFileSync(HANDSHAKE, 'utf8').replace(/^ {2}command:\n(?: {4}- .*\n)+/m, ''));
    expect(loadCassette(unnamed).provenance.command).toBeUndefined();
    const without = run(unnamed);
    expect(without.status).toBe(2);
    expect(without.stderr.split('\n')[0]).toBe(
      `theinference verify: ${unnamed}: its provenance names no server command: give the running server's URL with --url, or a command after --`,
    );
  });

  it('asks for the credentials the recorded client sent: a POST without Authorization is answered 401 and said', async () => {
    const cassette = loadCassette(HANDSHAKE);
    for (const frame of cassette.frames) if (frame.from === 'client' && frame.http) frame.http.headers = { ...frame.http.headers, authorization: '<redacted>' };
    const player = await serveCassette(cassette);
    try {
      const refused = await post(player.url, INITIALIZE);
      expect({ status: refused.status, challenge: refused.headers.get('www-authenticate') }).toEqual({ status: 401, challenge: 'Bearer' });
      const accepted = await post(player.url, INITIALIZE, { authorization: 'Bearer any-token' });
      await accepted.text();
      expect(accepted.status).toBe(200);
      expect(player.diagnoses[0]).toMatchObject({
        kind: 'http-auth',
        message: 'your client sent initialize (id 0) without the Authorization header the server was given: send the configured headers on every request',
      });
    } finally {
      await player.close();
    }
  });

  it('verify does not hang on a server that never answers DELETE: what it said is already heard', async () => {
    const player = await serveCassette(loadCassette(HANDSHAKE));
    // in front of the player: everything passed on, but a DELETE left unanswered
    const silent = createServer((request, response) => {
      if (request.method === 'DELETE') return;
      request.pipe(
        httpRequest(player.url, { method: request.method, headers: request.headers }, (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        }),
      );
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      expect(await verifyHttpCassette(loadCassette(HANDSHAKE), `http://127.0.0.1:${port}/mcp`)).toEqual([]);
    } finally {
      silent.closeAllConnections();
      silent.close();
      await player.close();
    }
  });

  it('holds a bounded number of connections from a client (it runs in the grader): the rest are closed at once, and a session goes on after', async () => {
    const tried = 200;
    const held = 32; // MAX_CONNECTIONS in http-face.ts
    const { value, player } = await replaying(HANDSHAKE, async (player) => {
      const sockets: Socket[] = [];
      // resolves once every connection past the bound has been closed by the player (the test's timeout bounds the wait)
      const refused = new Promise<void>((resolve) => {
        let closed = 0;
        for (let i = 0; i < tried; i++) {
          const socket = connect(Number(new URL(player.url).port), '127.0.0.1');
          socket.on('error', () => {});
          socket.on('close', () => ++closed === tried - held && resolve());
          sockets.push(socket);
        }
      });
      await refused;
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100)); // the player sees the held ones go
      return runHttpSession(player.url, [(client) => client.ping()]);
    });
    expect(value.results).toEqual([{}]);
    expect((await player.done).diagnoses).toEqual([]);
  });
});
