// Stage 6 of the course API, stateless: McpClient.connect() and the 2026-07-28 revision in the
// reference solution, against real servers only. A server of the revision: the SDK v2's McpServer
// (stateless-server.ts), every HTTP request it got kept. A server of 2025: server-everything's
// Streamable HTTP transport, behind a small recording proxy (every request it got kept the same way).
// Then the SDK-based client (the SDK v2 Client behind the course API) and the reference through
// program.ts's `stateless` command, on the same servers: the same output, byte for byte.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, cpSync, symlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startEverythingHttp, type Running } from '../../scripts/record-http-cassettes.ts';
import * as reference from '../../src/mcp.ts';
import * as starter from '../../starter/src/mcp.ts';
import { recordingHttpServer, statelessServer, type Request, type StatelessServer } from './stateless-server.ts';

const META = {
  version: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  capabilities: 'io.modelcontextprotocol/clientCapabilities',
};
const CLIENT_INFO = { name: 'stage-6-test', version: '6.0.0' };

/** The POSTs of a JSON-RPC request (not a notification), in order. */
const posts = (requests: Request[]) => requests.filter((request) => request.method === 'POST' && request.body?.id !== undefined);
const metaOf = (request: Request) => request.body?.params?._meta as Record<string, unknown> | undefined;

function client(server: { url: string }, options: reference.McpClientOptions = {}): reference.McpClient {
  return new reference.McpClient(new reference.HttpTransport(server.url), CLIENT_INFO, options);
}

const YES = { action: 'accept', content: { sure: true } };

describe('the reference against a server of 2026-07-28 (the SDK v2 McpServer)', () => {
  let server: StatelessServer;
  beforeAll(async () => {
    server = await statelessServer();
  });
  afterAll(() => server.close());

  it('probes with server/discover and stays stateless: _meta and the mirrored headers on every request, no session, no initialize, no GET, no DELETE', async () => {
    server.requests.length = 0;
    const mcp = client(server, { capabilities: { elicitation: { form: {} } }, onInputRequest: () => YES });
    const connection = await mcp.connect();
    expect(connection.era).toBe('modern');
    expect(connection.protocolVersion).toBe('2026-07-28');
    expect(connection.server.supportedVersions).toContain('2026-07-28');
    expect((connection.server as reference.DiscoverResult)._meta?.['io.modelcontextprotocol/serverInfo']).toEqual({ name: 'tiny-stateless', version: '0.1.0' });
    await mcp.listTools();
    expect(await mcp.callTool('greet', { who: 'Ada' })).toMatchObject({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    await mcp.callTool('confirm', { action: 'ship' });
    await mcp.close();

    expect(server.requests.map((request) => request.method)).toEqual(server.requests.map(() => 'POST'));
    expect(posts(server.requests).map((request) => request.body?.method)).toEqual([
      'server/discover',
      'tools/list',
      'tools/list',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
    ]);
    for (const request of server.requests) {
      expect(metaOf(request)).toEqual({ [META.version]: '2026-07-28', [META.clientInfo]: CLIENT_INFO, [META.capabilities]: { elicitation: { form: {} } } });
      expect(request.headers['mcp-protocol-version']).toBe('2026-07-28');
      expect(request.headers['mcp-method']).toBe(request.body?.method);
      expect(request.headers['mcp-session-id']).toBeUndefined();
      expect(request.headers.accept).toContain('text/event-stream');
      expect(request.status).toBe(200);
    }
    for (const call of posts(server.requests).filter((request) => request.body?.method === 'tools/call')) {
      expect(call.headers['mcp-name']).toBe(call.body?.params?.name);
    }
  });

  it('mirrors an x-mcp-header argument into Mcp-Param-*, in Base64 when it is not plain ASCII or has outer spaces, and leaves out a null or absent one (the SDK server checks the header against the body)', async () => {
    const mcp = client(server);
    await mcp.connect();
    await mcp.listTools(); // where the annotations are learnt
    server.requests.length = 0;
    const base64 = (text: string) => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;
    for (const zone of ['north-sea', 'Île-de-France', ' padded ', 'tab\there', '=?base64?x?=']) {
      expect(await mcp.callTool('forecast', { zone, day: 3 })).toMatchObject({ content: [{ text: `Clear over ${zone} on day 3` }] });
    }
    await mcp.callTool('forecast', { zone: null }).catch(() => undefined); // the tool wants a string; what matters is the header
    await mcp.close();
    expect(server.requests.map((request) => request.headers['mcp-param-zone'])).toEqual([
      'north-sea',
      base64('Île-de-France'),
      base64(' padded '),
      base64('tab\there'),
      base64('=?base64?x?='),
      undefined,
    ]);
    expect(server.requests.slice(0, 5).map((request) => request.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it('follows an empty-string nextCursor (a cursor, not the end) and leaves out a tool whose x-mcp-header is invalid', async () => {
    const mcp = client(server);
    await mcp.connect();
    server.requests.length = 0;
    const tools = await mcp.listTools();
    await mcp.close();
    expect(tools.map((tool) => tool.name)).toEqual(['greet', 'forecast', 'confirm']);
    expect(server.requests.map((request) => request.body?.params?.cursor)).toEqual([undefined, '', 'last']);
  });

  it('answers input_required: onInputRequest gets the elicitation, and the retry has a new id, the answer under its key and the requestState echoed', async () => {
    const asked: reference.InputRequest[] = [];
    const mcp = client(server, {
      capabilities: { elicitation: { form: {} } },
      onInputRequest: (request) => {
        asked.push(request);
        return YES;
      },
    });
    await mcp.connect();
    await mcp.listTools();
    server.requests.length = 0;
    expect(await mcp.callTool('confirm', { action: 'deploy' })).toMatchObject({ content: [{ type: 'text', text: 'done: deploy' }], resultType: 'complete' });
    await mcp.close();
    expect(asked).toEqual([{ method: 'elicitation/create', params: expect.objectContaining({ message: 'Really deploy?' }) }]);
    const [first, retry] = server.requests;
    expect(server.requests).toHaveLength(2);
    expect(first!.body?.params).toEqual({ name: 'confirm', arguments: { action: 'deploy' }, _meta: expect.anything() });
    expect(retry!.body?.id).not.toEqual(first!.body?.id);
    expect(retry!.body?.params).toEqual({
      name: 'confirm',
      arguments: { action: 'deploy' },
      inputResponses: { ok: YES },
      requestState: 'asked:deploy',
      _meta: expect.anything(),
    });
  });

  it('fails a call the server asks input for when it was given no onInputRequest, and sends nothing more', async () => {
    const mcp = client(server, { capabilities: { elicitation: { form: {} } } });
    await mcp.connect();
    await mcp.listTools();
    server.requests.length = 0;
    await expect(mcp.callTool('confirm', { action: 'deploy' })).rejects.toThrow(/onInputRequest/);
    await mcp.close();
    expect(server.requests).toHaveLength(1);
  });
});

describe('-32022: a version the server does not support', () => {
  let server: StatelessServer;
  beforeAll(async () => {
    server = await statelessServer({ supportedProtocolVersions: ['2026-07-28'] });
  });
  afterAll(() => server.close());

  /** The client offers a later revision first, as a newer client would. */
  async function offering<T>(versions: string[], work: () => Promise<T>): Promise<T> {
    const saved = [...reference.STATELESS_PROTOCOL_VERSIONS];
    reference.STATELESS_PROTOCOL_VERSIONS.splice(0, saved.length, ...versions);
    try {
      return await work();
    } finally {
      reference.STATELESS_PROTOCOL_VERSIONS.splice(0, versions.length, ...saved);
    }
  }

  it('is answered by one retry with a version the error lists and the client speaks, in _meta and header alike', async () => {
    server.requests.length = 0;
    const mcp = client(server);
    const connection = await offering(['2026-12-01', '2026-07-28'], () => mcp.connect());
    expect(connection).toMatchObject({ era: 'modern', protocolVersion: '2026-07-28' });
    expect(await mcp.callTool('greet', { who: 'Grace' })).toMatchObject({ content: [{ text: 'Hello, Grace!' }] });
    await mcp.close();
    expect(
      server.requests.map((request) => [request.body?.method, metaOf(request)?.[META.version], request.headers['mcp-protocol-version'], request.status]),
    ).toEqual([
      ['server/discover', '2026-12-01', '2026-12-01', 400],
      ['server/discover', '2026-07-28', '2026-07-28', 200],
      ['tools/call', '2026-07-28', '2026-07-28', 200],
    ]);
  });

  it('fails connect() when the server lists no version the client speaks, without falling back to initialize', async () => {
    server.requests.length = 0;
    const mcp = client(server);
    await expect(offering(['2026-12-01'], () => mcp.connect())).rejects.toThrow(/2026-07-28/);
    await mcp.close();
    expect(server.requests.map((request) => request.body?.method)).toEqual(['server/discover']);
  });
});

/** A proxy in front of `target` that keeps every request it passes on (and the status it got). */
function recordingProxy(target: string): Promise<StatelessServer> {
  return recordingHttpServer(async (request) => {
    const headers = new Headers(request.headers);
    for (const name of ['host', 'connection', 'content-length']) headers.delete(name);
    const body = await request.text();
    return fetch(target, { method: request.method, headers, ...(body !== '' && { body }) });
  });
}

describe('the reference against a server of 2025 (server-everything, Streamable HTTP)', () => {
  let everything: Running;
  let proxy: Awaited<ReturnType<typeof recordingProxy>>;
  beforeAll(async () => {
    everything = await startEverythingHttp();
    proxy = await recordingProxy(everything.url);
  }, 60_000);
  afterAll(async () => {
    await proxy?.close();
    await everything?.stop();
  });

  it('falls back to initialize on the same URL after the probe fails (HTTP 400 without an error of the era), then speaks 2025: session, no _meta', async () => {
    proxy.requests.length = 0;
    const mcp = client(proxy);
    const connection = await mcp.connect();
    expect(connection.era).toBe('legacy');
    expect(connection.protocolVersion).toBe('2025-11-25');
    expect((connection.server as reference.InitializeResult).serverInfo.name).toBe('mcp-servers/everything');
    expect((await mcp.listTools()).map((tool) => tool.name)).toContain('echo');
    expect(await mcp.callTool('echo', { message: 'both eras' })).toEqual({ content: [{ type: 'text', text: 'Echo: both eras' }] });
    await mcp.close();

    const [probe, initialize, initialized, ...rest] = proxy.requests;
    expect(probe!.body?.method).toBe('server/discover');
    expect(probe!.status).toBe(400);
    expect(probe!.headers['mcp-method']).toBe('server/discover');
    expect(initialize!.body?.method).toBe('initialize');
    expect(initialize!.headers['mcp-session-id']).toBeUndefined();
    expect(initialized!.body?.method).toBe('notifications/initialized');
    const session = initialized!.headers['mcp-session-id'];
    expect(session).toEqual(expect.any(String));
    // the server's own stream once the session is established, then each request, then DELETE
    expect(rest.map((request) => request.method)).toEqual(['GET', ...rest.slice(1, -1).map(() => 'POST'), 'DELETE']);
    for (const request of [initialized!, ...rest]) {
      expect(request.headers['mcp-session-id']).toBe(session);
      expect(request.headers['mcp-protocol-version']).toBe('2025-11-25');
      expect(metaOf(request)?.[META.version]).toBeUndefined();
    }
  });
});

describe('the starter', () => {
  it('says connect() is stage 6 not yet written', async () => {
    expect(() => new starter.McpClient(undefined as never)).toThrow(/not implemented yet/);
    const connect = starter.McpClient.prototype.connect;
    await expect(connect.call(undefined as never)).rejects.toThrow('not implemented yet: McpClient.connect (stage stateless)');
  });
});

/** program.ts's stateless command, run with the given src/ (a course copy), against `url`. */
function runProgram(src: string, caseDir: string, url: string): Promise<{ stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'stateless-program-'));
  cpSync(join(ROOT, 'program.ts'), join(dir, 'program.ts'));
  cpSync(src, join(dir, 'src'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'program.ts', 'stateless', caseDir],
      { cwd: dir, env: { ...process.env, THEINFERENCE_SERVER_URL: url }, timeout: 60_000 },
      (error, stdout, stderr) => {
        rmSync(dir, { recursive: true, force: true });
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve({ stdout, stderr });
      },
    );
  });
}

describe('program.ts stateless: the reference and the SDK-based client print the same', () => {
  let server: StatelessServer;
  let everything: Running;
  let caseDir: string;
  beforeAll(async () => {
    [server, everything] = await Promise.all([statelessServer(), startEverythingHttp()]);
    caseDir = mkdtempSync(join(tmpdir(), 'stateless-case-'));
    mkdirSync(caseDir, { recursive: true });
    const calls = [
      { name: 'greet', arguments: { who: 'Ada' } },
      { name: 'forecast', arguments: { zone: 'Île-de-France' } },
      { name: 'confirm', arguments: { action: 'ship' } },
      { name: 'echo', arguments: { message: 'hi' } },
    ];
    writeFileSync(join(caseDir, 'calls.json'), JSON.stringify(calls));
    writeFileSync(join(caseDir, 'inputs.json'), JSON.stringify({ 'elicitation/create': YES }));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await everything?.stop();
    rmSync(caseDir, { recursive: true, force: true });
  });

  it.each([
    ['a server of 2026-07-28', () => server.url, 'modern'],
    ['a server of 2025', () => everything.url, 'legacy'],
  ])(
    'on %s',
    async (_name, url, era) => {
      const [ours, sdks] = await Promise.all([runProgram(join(ROOT, 'src'), caseDir, url()), runProgram(join(ROOT, 'test/sdk-client/src'), caseDir, url())]);
      const printed = JSON.parse(ours.stdout);
      expect(printed.connect.era).toBe(era);
      expect(printed.calls).toHaveLength(4);
      if (era === 'modern') {
        expect(printed.tools.map((tool: { name: string }) => tool.name)).toEqual(['greet', 'forecast', 'confirm']);
        expect(printed.calls[2]).toMatchObject({ content: [{ text: 'done: ship' }] });
        expect(printed.asked).toEqual([expect.objectContaining({ method: 'elicitation/create' })]);
      } else {
        expect(printed.calls[3]).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
      }
      expect(sdks.stdout).toBe(ours.stdout);
    },
    120_000,
  );
});
