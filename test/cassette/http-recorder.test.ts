// The HTTP recorder as a process between a real client and server-everything's Streamable HTTP
// transport, on free ports of 127.0.0.1: what the client sees is what it would see without it,
// byte for byte, and the cassette holds every message and event in the order they crossed.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import type { Cassette, ClientFrame, Frame, ServerFrame, SseFrame } from '../../harness/cassette/format/model.ts';
import { SseParser, type SseEvent } from '../../harness/transports/http/sse.ts';
import { freePort, runHttpSession, type Running, startEverythingHttp, startRecorder, TOOLS_STEPS } from '../../scripts/record-http-cassettes.ts';

const dir = mkdtempSync(join(tmpdir(), 'http-recorder-'));
let everything: Running;
beforeAll(async () => {
  everything = await startEverythingHttp();
});
afterAll(async () => {
  await everything?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const masked = (text: string) => text.replace(UUID, '<uuid>');
const recorderLines = (stderr: string) => stderr.split('\n').filter((line) => line !== '');

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
};
const BOTH = 'application/json, text/event-stream';
/** A minute-long operation whose progress comes on its stream: what a client leaving, or a server dying, cuts. */
const LONG_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'trigger-long-running-operation', arguments: { duration: 60, steps: 120 }, _meta: { progressToken: 'p' } },
};

/** A plain fetch client: the exchanges of one session, each answer with its status, headers and body. */
class FetchClient {
  session: string | undefined;
  constructor(readonly url: string) {}

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const session = this.session && { 'mcp-session-id': this.session, 'mcp-protocol-version': '2025-11-25' };
    return { 'content-type': 'application/json', accept: BOTH, ...session, ...extra };
  }

  async post(message: object, extra: Record<string, string> = {}): Promise<{ status: number; contentType: string | null; body: string }> {
    const response = await fetch(this.url, { method: 'POST', headers: this.headers(extra), body: JSON.stringify(message) });
    this.session ??= response.headers.get('mcp-session-id') ?? undefined;
    return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
  }

  /** Opens the GET stream, takes its head, and leaves. */
  async get(): Promise<{ status: number; contentType: string | null }> {
    const leave = new AbortController();
    const response = await fetch(this.url, { headers: { accept: 'text/event-stream', 'mcp-session-id': this.session! }, signal: leave.signal });
    leave.abort();
    return { status: response.status, contentType: response.headers.get('content-type') };
  }

  async delete(): Promise<{ status: number; body: string }> {
    const response = await fetch(this.url, { method: 'DELETE', headers: { 'mcp-session-id': this.session! } });
    return { status: response.status, body: await response.text() };
  }

  async handshake(): Promise<void> {
    await this.post(INITIALIZE);
    await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
}

/** Reads an SSE response's events until `enough` says so, then leaves the stream (aborts). */
async function readEventsUntil(url: string, session: string, message: object, enough: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
  const leave = new AbortController();
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(message),
    signal: leave.signal,
  });
  const reader = response.body!.getReader();
  const parser = new SseParser();
  const events: SseEvent[] = [];
  while (!enough(events)) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(...parser.push(Buffer.from(value)));
  }
  leave.abort();
  await reader.cancel().catch(() => {});
  return events;
}

const clientFrames = (cassette: Cassette) => cassette.frames.filter((frame): frame is ClientFrame => frame.from === 'client');
const methodOf = (frame: Frame) => (frame.from === 'client' || frame.from === 'server' ? frame.message.method : undefined);

describe('record --http: the SDK client through the recorder', () => {
  it('sees what it sees live (tools, echo, progress), and the cassette holds every event, reply and header in order', async () => {
    const live = await runHttpSession(everything.url, TOOLS_STEPS);
    const out = join(dir, 'fidelity.yaml');
    const recorder = await startRecorder(['--out', out, '--http', everything.url]);
    expect(recorder.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const recorded = await runHttpSession(recorder.url, TOOLS_STEPS);
    const { code, stderr } = await recorder.exited;

    expect(recorded).toEqual(live);
    expect(recorded.progress).toHaveLength(2);
    expect(code).toBe(0);
    expect(recorderLines(stderr)).toEqual([
      `theinference record: proxying ${recorder.url} -> ${everything.url}`,
      `theinference record: wrote ${out}: 5 client and 6 server messages`,
    ]);

    const cassette = loadCassette(out);
    expect(cassette).toMatchObject({
      version: 2,
      transport: 'http',
      provenance: { url: everything.url, recorder: 'theinference record' },
      free: ['params.clientInfo'],
    });
    expect(cassette.http).toMatchObject({
      path: '/mcp',
      get: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'sse' },
      delete: { status: 200, body: 'none' },
    });
    const clients = clientFrames(cassette);
    expect(clients.map((frame) => methodOf(frame))).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'tools/call']);
    const [initialize, initialized] = clients as [ClientFrame, ClientFrame];
    expect(initialize.http).toMatchObject({ path: '/mcp', headers: { 'content-type': 'application/json', accept: BOTH }, reply: { status: 200, body: 'sse' } });
    expect(initialize.http!.reply!.headers!['mcp-session-id']).toMatch(UUID);
    expect(initialized.http!.reply).toEqual({ status: 202, body: 'none' });
    expect(initialized.http!.headers).toMatchObject({
      'mcp-session-id': initialize.http!.reply!.headers!['mcp-session-id'],
      'mcp-protocol-version': '2025-11-25',
    });

    // Each request's stream, right after it: the priming event, then (progress, then) the result.
    const shape = cassette.frames.map((frame) => {
      if (frame.from === 'client') return `client ${frame.message.method}`;
      if (frame.from === 'sse') return `sse ${JSON.stringify(frame.data)} for ${JSON.stringify(frame.http.request)}`;
      if (frame.from === 'server')
        return `server ${frame.message.method ?? `result ${JSON.stringify(frame.message.id)}`} for ${JSON.stringify(frame.http!.request)}`;
      return frame.from;
    });
    expect(shape).toEqual([
      'client initialize',
      'sse "" for 0',
      'server result 0 for 0',
      'client notifications/initialized',
      'client tools/list',
      'sse "" for 1',
      'server result 1 for 1',
      'client tools/call',
      'sse "" for 2',
      'server result 2 for 2',
      'client tools/call',
      'sse "" for 3',
      'server notifications/progress for 3',
      'server notifications/progress for 3',
      'server result 3 for 3',
    ]);
    for (const frame of cassette.frames.filter((item): item is ServerFrame | SseFrame => item.from !== 'client')) {
      const placement = frame.http!;
      expect(placement.id).toMatch(UUID);
      expect(typeof placement.at).toBe('number');
      if (frame.from === 'server') expect(placement.event).toBe('message');
    }
    const ats = cassette.frames.flatMap((frame) => (frame.from === 'server' || frame.from === 'sse' ? [frame.http!.at!] : []));
    expect(ats).toEqual([...ats].sort((a, b) => a - b));
  });
});

describe('record --http: the bytes a plain fetch client sees', () => {
  it('are the same through the recorder as live: an SSE stream, a 202, a 406, a GET stream, a DELETE', async () => {
    const exchange = async (client: FetchClient) => {
      const initialize = await client.post(INITIALIZE);
      const initialized = await client.post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const refused = await client.post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, { accept: 'application/json' });
      const echo = await client.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'bytes' } } });
      const get = await client.get();
      const ended = await client.delete();
      return { initialize, initialized, refused, echo, get, ended };
    };
    const live = await exchange(new FetchClient(everything.url));
    const out = join(dir, 'bytes.yaml');
    const recorder = await startRecorder(['--out', out, '--http', everything.url]);
    const through = await exchange(new FetchClient(recorder.url));
    const { code } = await recorder.exited;

    // Only the server's random session and event ids differ.
    expect(JSON.parse(masked(JSON.stringify(through)))).toEqual(JSON.parse(masked(JSON.stringify(live))));
    expect(through.initialize.body).toMatch(/^id: \S+\ndata: \n\nevent: message\nid: \S+\ndata: \{.*\}\n\n$/s);
    expect(through.initialized).toEqual({ status: 202, contentType: null, body: '' });
    expect(through.refused.status).toBe(406);
    expect(through.get).toEqual({ status: 200, contentType: 'text/event-stream' });
    expect(through.ended).toEqual({ status: 200, body: '' });

    expect(code).toBe(0);
    const cassette = loadCassette(out);
    const refusal = clientFrames(cassette).find((frame) => frame.message.method === 'tools/list')!;
    expect(refusal.http!.reply).toEqual({ status: 406, headers: { 'content-type': 'application/json' }, body: 'json' });
    expect(refusal.http!.headers!.accept).toBe('application/json');
    const answer = cassette.frames[cassette.frames.indexOf(refusal) + 1] as ServerFrame;
    expect(answer).toMatchObject({ from: 'server', message: { jsonrpc: '2.0', error: { code: -32000 }, id: null }, http: { request: 1 } });
  });
});

describe('record --http: redaction', () => {
  it('records an Authorization header as "<redacted>", and its secret appears nowhere in the file nor on stderr', async () => {
    const out = join(dir, 'secret.yaml');
    const recorder = await startRecorder(['--out', out, '--http', everything.url]);
    const transport = new StreamableHTTPClientTransport(new URL(recorder.url), {
      requestInit: { headers: { Authorization: 'Bearer sekret', 'X-Api-Key': 'hunter22' } },
    });
    const client = new Client({ name: 'secret-test', version: '1.0.0' });
    await client.connect(transport);
    // the server repeats the secrets back: they must go from its answer too
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'token sekret, key hunter22' } });
    expect(JSON.stringify(echoed)).toContain('sekret');
    await transport.terminateSession();
    await client.close();
    const { code, stderr } = await recorder.exited;

    expect(code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toContain('sekret');
    expect(text).not.toContain('hunter22');
    expect(stderr).not.toContain('sekret');
    // and it says what it replaced, by name and where: each header on every POST, the call's arguments and the echo
    expect(stderr).toContain(
      'theinference record: redacted 10 values: authorization (3 in request headers, 1 in client messages, 1 in server messages); ' +
        'x-api-key (3 in request headers, 1 in client messages, 1 in server messages)\n',
    );
    const cassette = loadCassette(out);
    for (const frame of clientFrames(cassette)) expect(frame.http!.headers).toMatchObject({ authorization: '<redacted>', 'x-api-key': '<redacted>' });
    const result = cassette.frames.find((frame): frame is ServerFrame => frame.from === 'server' && frame.message.id === 1)!;
    expect(JSON.stringify(result.message)).toContain('token <redacted:authorization>, key <redacted:x-api-key>');
  });
});

describe('record --http: bad input and sessions that go wrong', () => {
  it('refuses an existing --out without --force: exit 2, one line, the file unchanged, never listening', async () => {
    const out = join(dir, 'existing.yaml');
    writeFileSync(out, 'keep me\n');
    const recorder = await startRecorder(['--out', out, '--http', everything.url]);
    const { code, stderr } = await recorder.exited;
    expect(recorder.url).toBe('');
    expect(code).toBe(2);
    expect(recorderLines(stderr)).toEqual([`theinference record: ${out} exists; pass --force to replace it`]);
    expect(readFileSync(out, 'utf8')).toBe('keep me\n');
  });

  it('says in one line that a port is in use: exit 2, nothing written', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    const out = join(dir, 'port.yaml');
    try {
      const recorder = await startRecorder(['--out', out, '--http', everything.url, '--port', String(port)]);
      const { code, stderr } = await recorder.exited;
      expect(code).toBe(2);
      expect(recorderLines(stderr)).toEqual([`theinference record: port ${port} on 127.0.0.1 is in use; nothing recorded`]);
      expect(existsSync(out) || existsSync(`${out}.partial`)).toBe(false);
    } finally {
      taken.close();
    }
  });

  it('an upstream that refuses the connection: the client gets 502, exit 1, <out>.partial written and no cassette', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/mcp`;
    const out = join(dir, 'refused.yaml');
    const recorder = await startRecorder(['--out', out, '--http', nobody]);
    const answer = await new FetchClient(recorder.url).post(INITIALIZE);
    const { code, stderr } = await recorder.exited;
    expect(answer.status).toBe(502);
    expect(answer.body).toContain('connection refused');
    expect(code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(true);
    const lines = recorderLines(stderr);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^theinference record: cannot reach the server at .* \(connection refused\) for the response to initialize \(id 0\); .* not written, what was recorded \(0 client and 0 server messages\) is in .*\.partial$/,
    );
  });

  it('survives a client that leaves mid-stream (the events reached it as they came), and writes <out>.partial on DELETE: that request went unanswered', async () => {
    const out = join(dir, 'left.yaml');
    const recorder = await startRecorder(['--out', out, '--http', everything.url]);
    const client = new FetchClient(recorder.url);
    await client.handshake();
    // A 60 s operation: its first progress event can only arrive now if nothing holds the stream back.
    const events = await readEventsUntil(recorder.url, client.session!, LONG_CALL, (seen) =>
      seen.some((event) => event.data?.includes('notifications/progress')),
    );
    expect(events[0]).toMatchObject({ data: '' });
    // still recording: another request, then the end of the session
    const echo = await client.post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'still here' } } });
    expect(echo.body).toContain('Echo: still here');
    expect(await client.delete()).toEqual({ status: 200, body: '' });
    const { code, stderr } = await recorder.exited;

    expect(code).toBe(1);
    expect(stderr).toContain('the client disconnected from the response to tools/call "trigger-long-running-operation" (id 1) before it ended');
    expect(stderr).toContain('leaving tools/call "trigger-long-running-operation" (id 1) unanswered');
    expect(existsSync(out)).toBe(false);
    const partial = loadCassette(`${out}.partial`);
    const methods = partial.frames.map((frame) => methodOf(frame) ?? frame.from);
    expect(methods).toContain('notifications/progress');
    expect(partial.http?.delete).toEqual({ status: 200, body: 'none' });
  });

  it('a server that dies mid-stream: the client sees the stream cut, exit 1 and <out>.partial once the session ends', async () => {
    const doomed = await startEverythingHttp();
    try {
      const out = join(dir, 'died.yaml');
      const recorder = await startRecorder(['--out', out, '--http', doomed.url]);
      const client = new FetchClient(recorder.url);
      await client.handshake();
      const response = await fetch(recorder.url, { method: 'POST', headers: client.headers(), body: JSON.stringify(LONG_CALL) });
      const reader = response.body!.getReader();
      await reader.read(); // the stream is open
      doomed.child.kill('SIGKILL');
      await expect(
        (async () => {
          for (;;) if ((await reader.read()).done) return 'ended cleanly';
        })(),
      ).rejects.toThrow();
      // the session's end (DELETE) cannot reach the server either
      expect((await client.delete()).status).toBe(502);
      const { code, stderr } = await recorder.exited;
      expect(code).toBe(1);
      expect(stderr).toContain('the server cut the response to tools/call "trigger-long-running-operation" (id 1) short');
      expect(existsSync(out)).toBe(false);
      expect(loadCassette(`${out}.partial`).frames.filter((frame) => frame.from === 'client')).toHaveLength(3);
    } finally {
      await doomed.stop();
    }
  });

  it('writes the cassette on SIGTERM when the session so far is clean (exit 0, no DELETE in it)', async () => {
    const out = join(dir, 'sigterm.yaml');
    const recorder = await startRecorder(['--out', out, '--http', everything.url]);
    const client = new FetchClient(recorder.url);
    await client.handshake();
    recorder.child.kill('SIGTERM');
    const { code, stderr } = await recorder.exited;
    expect(code).toBe(0);
    expect(recorderLines(stderr).at(-1)).toBe(`theinference record: wrote ${out}: 2 client and 1 server messages`);
    const cassette = loadCassette(out);
    expect(cassette.http?.delete).toBeUndefined();
    expect(clientFrames(cassette).map((frame) => frame.message.method)).toEqual(['initialize', 'notifications/initialized']);
    await fetch(everything.url, { method: 'DELETE', headers: { 'mcp-session-id': client.session! } });
  });

  it('a usage mistake is its usage line, a pointer to help, and exit 2', async () => {
    const recorder = await startRecorder(['--http', everything.url]);
    const { code, stderr } = await recorder.exited;
    expect(code).toBe(2);
    expect(recorderLines(stderr)).toEqual([
      'theinference record: usage: theinference record --http <server url> --out <cassette> [--script <session.yaml>] [--port N] [--force] [-- <server command...>]',
      'run `theinference help` for the commands and options',
    ]);
    // an option of the other transport's recording is refused, naming where it belongs
    const stdioOnly = await startRecorder(['--http', everything.url, '--out', 'never.yaml', '--setup', 'fixtures']);
    expect(recorderLines((await stdioOnly.exited).stderr)[0]).toBe(
      'theinference record: --setup is for a recording over stdio (a server command after --, without --http)',
    );
    const httpOnly = await startRecorder(['--out', 'never.yaml', '--port', '3001', '--', 'node', 'server.js']);
    expect(recorderLines((await httpOnly.exited).stderr)[0]).toBe('theinference record: --port is for a recording over HTTP (--http <url>)');
  });
});
