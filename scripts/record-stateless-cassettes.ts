// Records the committed stateless cassettes (cassettes/stateless-*.yaml): the 2026-07-28 revision's
// servers of scripts/stateless-servers/ (the TypeScript SDK v2) on a free port, `record --http` in
// front, and the SDK v2 client (`@modelcontextprotocol/client`, versionNegotiation 'auto') driving
// the session through the recorder; one cassette records what that client cannot be made to send
// (headers that disagree with the body) with plain fetch. `node --import tsx scripts/record-stateless-cassettes.ts`
// Its sessions are shared with the tests, which drive them live and replayed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ROOT, startEverythingHttp, startHttpServer, startRecorder, EVERYTHING_ENTRY, type Running } from './record-http-cassettes.ts';

export const SERVER_ENTRY = 'scripts/stateless-servers/server.ts';

/** A stateless server (`tools` or `versions`) as its own process on a free port of 127.0.0.1, ready. */
export function startStatelessServer(variant: 'tools' | 'versions'): Promise<Running> {
  return startHttpServer(['--import', 'tsx', join(ROOT, SERVER_ENTRY), variant], /listening on/, `the stateless ${variant} server`);
}

/** What the SDK v2 client saw of a session: the server it found, and each step's result (or error). */
export interface StatelessSessionResult {
  version: string | undefined;
  server: unknown;
  results: unknown[];
  /** The elicitation requests the client was asked to answer, in order. */
  asked: unknown[];
}

export type StatelessStep = (client: Client) => Promise<unknown>;

/** The tools session: every page of tools/list, a call of each tool (text, structured, isError, an
 *  argument mirrored into Mcp-Param-Region, not ASCII), and the one that asks for input. */
export const TOOLS_STEPS: StatelessStep[] = [
  (client) => client.listTools(),
  (client) => client.callTool({ name: 'echo', arguments: { message: 'hello, stateless' } }),
  (client) => client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
  (client) => client.callTool({ name: 'divide', arguments: { a: 1, b: 0 } }),
  (client) => client.callTool({ name: 'weather', arguments: { region: 'Île-de-France', city: 'Paris' } }),
  (client) => client.callTool({ name: 'deploy', arguments: { env: 'staging' } }),
];

/** A client that offers a version the server does not support first (a later revision). */
export const LATER_VERSION = '2026-12-01';

/** The SDK v2 client (versionNegotiation 'auto': server/discover, then initialize if that fails),
 *  declaring form elicitation, which it answers yes; then the steps, then close. */
export async function runStatelessSession(url: string, steps: StatelessStep[], options: { versions?: string[] } = {}): Promise<StatelessSessionResult> {
  const client = new Client(
    { name: 'stateless-recorder', version: '1.0.0' },
    {
      capabilities: { elicitation: { form: {} } },
      versionNegotiation: { mode: 'auto' },
      ...(options.versions && { supportedProtocolVersions: options.versions }),
    },
  );
  const asked: unknown[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return { action: 'accept', content: { confirm: true } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const results: unknown[] = [];
  for (const step of steps) {
    try {
      results.push(await step(client));
    } catch (error) {
      const { code, message } = error as { code?: number; message: string };
      results.push({ thrown: { code, message } });
    }
  }
  const server = { version: client.getServerVersion(), capabilities: client.getServerCapabilities() };
  const version = transport.protocolVersion;
  await transport.terminateSession().catch(() => {});
  await client.close();
  return { version, server, results, asked };
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'fetch-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** One POST as a client of the revision sends it, with `headers` over the right ones; the status and
 *  the body as JSON. */
export async function post(url: string, body: object, headers: Record<string, string | undefined> = {}): Promise<{ status: number; body: unknown }> {
  const message = body as { method?: string; params?: { name?: string } };
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': message.method,
    ...(message.method === 'tools/call' && { 'mcp-name': message.params?.name }),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
  const response = await fetch(url, { method: 'POST', headers: sent, body: JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

/** A request of the revision, its `_meta` whole (`capabilities`: the client capabilities it declares). */
export const request = (id: number, method: string, params: object = {}, capabilities: object = {}) => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': capabilities } },
});

/** What the SDK v2 client never sends: headers that disagree with the body (each answered 400,
 *  -32020), then the same call right. Plain fetch, one POST at a time. */
export async function runHeaderMismatchSession(url: string): Promise<{ status: number; body: unknown }[]> {
  const echo = { name: 'echo', arguments: { message: 'hi' } };
  const weather = { name: 'weather', arguments: { region: 'eu-west', city: 'Dublin' } };
  return [
    await post(url, request(1, 'server/discover')),
    await post(url, request(2, 'tools/list')),
    await post(url, request(3, 'tools/call', echo), { 'mcp-name': 'echo2' }),
    await post(url, request(4, 'tools/call', echo), { 'mcp-method': 'tools/list' }),
    await post(url, request(5, 'tools/call', echo), { 'mcp-protocol-version': '2025-11-25' }),
    await post(url, request(6, 'tools/call', weather)),
    await post(url, request(7, 'tools/call', weather), { 'mcp-param-region': 'us-east' }),
    await post(url, request(8, 'tools/call', weather), { 'mcp-param-region': 'eu-west' }),
    await post(url, request(9, 'tools/call', echo), { 'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=` }),
  ];
}

interface Recording {
  file: string;
  server: 'tools' | 'versions' | 'everything';
  what: string;
  client: string;
  drive: (url: string) => Promise<unknown>;
}

export const RECORDINGS: Recording[] = [
  {
    file: 'stateless-tools.yaml',
    server: 'tools',
    what: 'server/discover; tools/list in three pages (the first nextCursor is ""); echo (text), add (structured), divide by zero (isError), weather (Mcp-Param-Region, Base64: not ASCII); deploy: input_required with an elicitation, then the retry with inputResponses and the requestState echoed, a new id',
    client: 'the SDK v2 client (@modelcontextprotocol/client, versionNegotiation auto), elicitation answered yes',
    drive: (url) => runStatelessSession(url, TOOLS_STEPS),
  },
  {
    file: 'stateless-versions.yaml',
    server: 'versions',
    what: `server/discover offering ${LATER_VERSION} first: -32022 (HTTP 400) with the supported versions; server/discover again with 2026-07-28; echo`,
    client: `the SDK v2 client (@modelcontextprotocol/client, versionNegotiation auto, supportedProtocolVersions [${LATER_VERSION}, 2026-07-28, 2025-11-25])`,
    drive: (url) =>
      runStatelessSession(url, [(client) => client.callTool({ name: 'echo', arguments: { message: 'hi' } })], {
        versions: [LATER_VERSION, '2026-07-28', '2025-11-25'],
      }),
  },
  {
    file: 'stateless-fallback.yaml',
    server: 'everything',
    what: 'a 2025 server probed: server/discover answered HTTP 400 (not a modern error), so the client falls back to initialize, initialized, the GET stream, echo, DELETE; every stream as the server sent it',
    client: 'the SDK v2 client (@modelcontextprotocol/client, versionNegotiation auto)',
    drive: (url) => runStatelessSession(url, [(client) => client.callTool({ name: 'echo', arguments: { message: 'hi' } })]),
  },
  {
    file: 'stateless-header-mismatch.yaml',
    server: 'tools',
    what: 'headers that disagree with the body, each answered HTTP 400, -32020: Mcp-Name, Mcp-Method, MCP-Protocol-Version, a missing and a wrong Mcp-Param-Region; then the right call, and an Mcp-Name in Base64',
    client: 'a fetch-based client (runHeaderMismatchSession): the SDK v2 client never sends a header that disagrees with the body',
    drive: (url) => runHeaderMismatchSession(url),
  },
];

async function main(): Promise<void> {
  const version = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  for (const recording of RECORDINGS) {
    const server = recording.server === 'everything' ? await startEverythingHttp() : await startStatelessServer(recording.server);
    try {
      const out = join('cassettes', recording.file);
      const recorder = await startRecorder(['--out', out, '--http', server.url, '--force']);
      if (recorder.url === '') throw new Error((await recorder.exited).stderr.trim());
      await recording.drive(recorder.url);
      // a stateless session ends with no DELETE: the recorder writes at SIGINT (a 2025 one ended with DELETE)
      if (recording.server !== 'everything') recorder.child.kill('SIGINT');
      const { code, stderr } = await recorder.exited;
      process.stdout.write(`${recording.file}: ${stderr.trim().split('\n').at(-1)}\n`);
      if (code !== 0) throw new Error(`the recorder exited ${code}: ${stderr.trim()}`);
      const pkg = recording.server === 'everything' ? '@modelcontextprotocol/server-everything' : '@modelcontextprotocol/server';
      await describeProvenance(join(ROOT, out), {
        command: recording.server === 'everything' ? ['node', EVERYTHING_ENTRY, 'streamableHttp'] : ['node', '--import', 'tsx', SERVER_ENTRY, recording.server],
        package: pkg,
        packageVersion: version(pkg),
        note: `${recording.what}. Client: ${recording.client} ${version('@modelcontextprotocol/client')}. The server listened on a free port (env PORT), recorded through theinference record --http (scripts/record-stateless-cassettes.ts); no hand edit`,
      });
    } finally {
      await server.stop();
    }
  }
}

/** The provenance a reader needs: how the server was started, its URL without the port it happened
 *  to get, the package; the recorder only knew the URL. */
async function describeProvenance(file: string, provenance: { command: string[]; package: string; packageVersion: string; note: string }): Promise<void> {
  const { loadCassette } = await import('../harness/cassette/format/format.ts');
  const { saveCassette } = await import('../harness/cassette/format/save.ts');
  const cassette = loadCassette(file);
  delete cassette.file;
  cassette.frames = cassette.frames.map(({ line: _line, ...frame }) => frame);
  cassette.provenance = {
    command: provenance.command,
    url: 'http://127.0.0.1/mcp',
    package: provenance.package,
    packageVersion: provenance.packageVersion,
    recorded: cassette.provenance.recorded,
    recorder: cassette.provenance.recorder,
    note: provenance.note,
  };
  saveCassette(cassette, file, { overwrite: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
