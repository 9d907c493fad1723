// The 2026-07-28 revision (stateless MCP) recorded and replayed: the SDK v2 servers of
// scripts/stateless-servers/ on a free port of 127.0.0.1, the SDK v2 client live against them and
// against the player serving the committed cassettes; then each mistake of the revision made by a
// fetch client, which the player says and answers as the live server answers it; and verify.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnosis } from '../../harness/exchange/diagnosis.ts';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { serveCassette } from '../../harness/transports/http/serve.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import type { Cassette } from '../../harness/cassette/format/model.ts';
import { verifyHttpCassette } from '../../harness/transports/http/verify-link.ts';
import { ROOT, startEverythingHttp, type Running } from '../../scripts/record-http-cassettes.ts';
import { post, RECORDINGS, request, startStatelessServer } from '../../scripts/record-stateless-cassettes.ts';

const cassetteOf = (file: string): Cassette => loadCassette(join(ROOT, 'cassettes', file));

/** The servers each recording came from, started once for the file. */
const servers: Partial<Record<'tools' | 'versions' | 'everything', Running>> = {};
beforeAll(async () => {
  [servers.tools, servers.versions, servers.everything] = await Promise.all([
    startStatelessServer('tools'),
    startStatelessServer('versions'),
    startEverythingHttp(),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
});

/** Plays `file` over HTTP to `drive`; what the client got, and what the player said. */
async function replay<T>(
  file: string,
  drive: (url: string) => Promise<T>,
): Promise<{ result: T; ok: boolean; complete: boolean; diagnoses: Diagnosis[]; advice: Diagnosis[] }> {
  const served = await serveCassette(cassetteOf(file));
  try {
    const result = await drive(served.url);
    const report = served.finish();
    return { result, ok: report.ok, complete: report.complete, diagnoses: report.diagnoses, advice: report.advice };
  } finally {
    await served.close();
  }
}

/** What differs from run to run in what a client is given: nothing, in these sessions. */
describe('the SDK v2 client gets the same live and replayed', () => {
  it.each(RECORDINGS.map((recording) => [recording.file, recording] as const))('%s', async (file, recording) => {
    const live = await recording.drive(servers[recording.server]!.url);
    const replayed = await replay(file, recording.drive);
    expect(replayed.diagnoses).toEqual([]);
    expect(replayed.advice).toEqual([]);
    expect(replayed.ok && replayed.complete).toBe(true);
    expect(replayed.result).toEqual(live);
  });

  it('the tools session: every page (the empty-string cursor followed), each result, and the input_required round trip', async () => {
    const recording = RECORDINGS.find((r) => r.file === 'stateless-tools.yaml')!;
    const { result } = await replay(recording.file, recording.drive);
    const { version, results, asked } = result as {
      version: string;
      results: { tools?: { name: string }[]; content?: { text: string }[] }[];
      asked: unknown[];
    };
    expect(version).toBe('2026-07-28');
    expect(results[0]!.tools!.map((tool) => tool.name)).toEqual(['echo', 'add', 'divide', 'weather', 'deploy']);
    expect(results.slice(1).map((r) => r.content![0]!.text)).toEqual([
      'Echo: hello, stateless',
      '{"sum":5}',
      'cannot divide by zero',
      'Sunny in Paris (Île-de-France)',
      'deployed to staging',
    ]);
    expect(asked).toEqual([expect.objectContaining({ message: 'Deploy to staging?' })]);
    const cursors = cassetteOf(recording.file).frames.flatMap((frame) =>
      frame.from === 'client' && frame.message.method === 'tools/list' ? [(frame.message.params as { cursor?: string }).cursor] : [],
    );
    expect(cursors).toEqual([undefined, '', 'page-3']);
  });

  it('the versions session: the -32022 with the supported versions, then the version the server supports', async () => {
    const frames = cassetteOf('stateless-versions.yaml').frames;
    const refusal = frames.find((frame) => frame.from === 'server' && 'error' in frame.message);
    expect(refusal?.from === 'server' && refusal.message.error).toEqual({
      code: -32022,
      message: 'Unsupported protocol version: 2026-12-01',
      data: { supported: ['2026-07-28'], requested: '2026-12-01' },
    });
  });
});

/** A mistake made live and replayed: the same status and body (the id is the client's), and the
 *  player's diagnosis; then the right request passes. */
async function sameAnswer(file: string, server: 'tools' | 'versions', mistake: (url: string) => Promise<{ status: number; body: unknown }>) {
  const live = await mistake(servers[server]!.url);
  const replayed = await replay(file, mistake);
  expect(replayed.result).toEqual(live);
  return { live, diagnoses: replayed.diagnoses, advice: replayed.advice };
}

const discover = (url: string) => post(url, request(0, 'server/discover'));
const ECHO = { name: 'echo', arguments: { message: 'hello, stateless' } };
const PARIS = { name: 'weather', arguments: { region: 'Île-de-France', city: 'Paris' } };

/** The tools session as the SDK v2 client recorded it: the probe and every page of tools/list. */
async function toolsSessionLists(url: string): Promise<void> {
  await discover(url);
  for (const [id, cursor] of [
    [1, undefined],
    [2, ''],
    [3, 'page-3'],
  ] as const)
    await post(url, request(id, 'tools/list', cursor === undefined ? {} : { cursor }));
}

/** The same, up to the weather call. */
async function toolsSessionUpToWeather(url: string): Promise<void> {
  await toolsSessionLists(url);
  await post(url, request(4, 'tools/call', ECHO));
  await post(url, request(5, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } }));
  await post(url, request(6, 'tools/call', { name: 'divide', arguments: { a: 1, b: 0 } }));
}

/** The client capabilities of a client that answers form elicitations (the deploy tool asks one). */
const ELICITS = { elicitation: { form: {} } };

describe('each mistake of the stateless revision, diagnosed and answered as the server answers it', () => {
  const file = 'stateless-tools.yaml';

  it('a request whose _meta lacks the client capabilities: -32602 (400); without clientInfo: advice, and served', async () => {
    const { live, diagnoses } = await sameAnswer(file, 'tools', async (url) => {
      const { params } = request(0, 'server/discover') as { params: { _meta: Record<string, unknown> } };
      const { 'io.modelcontextprotocol/clientCapabilities': _dropped, ...meta } = params._meta;
      return post(url, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } });
    });
    expect(live).toMatchObject({ status: 400, body: { error: { code: -32602 } } });
    expect(diagnoses.map((d) => d.kind)).toEqual(['meta-missing', 'unused']);
    expect(diagnoses[0]!.message).toContain('without io.modelcontextprotocol/clientCapabilities in params._meta');
    const noInfo = await sameAnswer(file, 'tools', async (url) => {
      const { params } = request(0, 'server/discover') as { params: { _meta: Record<string, unknown> } };
      const { 'io.modelcontextprotocol/clientInfo': _dropped, ...meta } = params._meta;
      return post(url, { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } });
    });
    expect(noInfo.live.status).toBe(200);
    expect(noInfo.diagnoses.map((d) => d.kind)).toEqual(['unused']);
    expect(noInfo.advice.map((d) => d.kind)).toEqual(['meta-client-info-missing']);
  });

  it.each([
    ['MCP-Protocol-Version other than _meta says', { 'mcp-protocol-version': '2025-11-25' }, 'MCP-Protocol-Version header names 2025-11-25'],
    ['Mcp-Method other than the method', { 'mcp-method': 'tools/list' }, 'Mcp-Method header names tools/list'],
    ['no Mcp-Method', { 'mcp-method': undefined }, 'required Mcp-Method header is absent'],
    ['Mcp-Name other than params.name', { 'mcp-name': 'echo2' }, 'Mcp-Name header names "echo2"'],
    ['no Mcp-Name', { 'mcp-name': undefined }, 'required Mcp-Name header is absent'],
  ])('%s: 400, -32020', async (_what, headers, words) => {
    const { live, diagnoses } = await sameAnswer(file, 'tools', async (url) => {
      await toolsSessionLists(url);
      return post(url, request(4, 'tools/call', ECHO), headers);
    });
    expect(live).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    expect(diagnoses[0]).toMatchObject({ kind: 'http-header-mismatch', message: expect.stringContaining(words) });
  });

  it('Mcp-Name in the spec encodings (Base64 sentinel, spaces around) and a Base64 Mcp-Param pass; a wrong Mcp-Param is refused', async () => {
    for (const name of [`=?base64?${Buffer.from('echo').toString('base64')}?=`, '  echo ']) {
      const { live, diagnoses } = await sameAnswer(file, 'tools', async (url) => {
        await toolsSessionLists(url);
        return post(url, request(4, 'tools/call', ECHO), { 'mcp-name': name });
      });
      expect(live.status).toBe(200);
      expect(diagnoses.filter((d) => d.kind !== 'unused')).toEqual([]);
    }
    const { live, diagnoses } = await sameAnswer(file, 'tools', async (url) => {
      await toolsSessionUpToWeather(url);
      return post(url, request(7, 'tools/call', PARIS), { 'mcp-param-region': 'Ile-de-France' });
    });
    expect(live).toMatchObject({
      status: 400,
      body: { error: { code: -32020, message: expect.stringContaining('Mcp-Param-Region header decodes to "Ile-de-France"') } },
    });
    expect(diagnoses[0]?.kind).toBe('http-header-mismatch');
  });

  it('an Mcp-Param value sent raw where it is not plain ASCII is refused, 400, -32020 (a server MUST reject invalid characters)', async () => {
    // fetch sends a character up to U+00FF as its one Latin-1 byte, and Node reads the byte back alike: only the check tells
    const { result, diagnoses } = await replay(file, async (url) => {
      await toolsSessionUpToWeather(url);
      return post(url, request(7, 'tools/call', PARIS), { 'mcp-param-region': 'Île-de-France' });
    });
    expect(result).toMatchObject({ status: 400, body: { error: { code: -32020 } } });
    expect(diagnoses[0]).toMatchObject({ kind: 'http-header-mismatch', message: expect.stringContaining('carries characters a header value may not') });
  });

  it('an Mcp-Session-Id sent to a server without sessions: advice, and served; GET and DELETE refused (405) as the server refuses them', async () => {
    const { live, diagnoses, advice } = await sameAnswer(file, 'tools', (url) => post(url, request(0, 'server/discover'), { 'mcp-session-id': 'remembered' }));
    expect(live.status).toBe(200);
    expect(diagnoses.map((d) => d.kind)).toEqual(['unused']);
    expect(advice.map((d) => d.kind)).toEqual(['stateless-session']);
    for (const method of ['GET', 'DELETE']) {
      const ask = async (url: string) => {
        const response = await fetch(url, { method, headers: { accept: 'application/json, text/event-stream' } });
        return { status: response.status, body: await response.json() };
      };
      const same = await sameAnswer(file, 'tools', ask);
      expect(same.live.status).toBe(405);
    }
  });

  it('initialize where the recording probed with server/discover: -32022 with the supported versions', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    };
    const { live, diagnoses } = await sameAnswer(file, 'tools', (url) => post(url, initialize, { 'mcp-protocol-version': undefined, 'mcp-method': undefined }));
    expect(live).toMatchObject({ status: 400, body: { error: { code: -32022, data: { supported: ['2026-07-28'] } } } });
    expect(diagnoses[0]).toMatchObject({ kind: 'stateless-initialize' });
  });

  it('an input_required retry without the requestState, or with another, is asked again; one under the answered id is answered and said (the ids MUST differ); the right one passes', async () => {
    const deploy = { name: 'deploy', arguments: { env: 'staging' } };
    const yes = { inputResponses: { confirm: { action: 'accept', content: { confirm: true } } } };
    const upTo = async (url: string) => {
      await toolsSessionUpToWeather(url);
      await post(url, request(7, 'tools/call', PARIS), {
        'mcp-param-region': `=?base64?${Buffer.from('Île-de-France').toString('base64')}?=`,
      });
      return (await post(url, request(8, 'tools/call', deploy, ELICITS))).body as { result: { requestState: string } };
    };
    for (const state of [undefined, 'not-the-state']) {
      const { live, diagnoses } = await sameAnswer(file, 'tools', async (url) => {
        await upTo(url);
        return post(url, request(9, 'tools/call', { ...deploy, ...yes, ...(state !== undefined && { requestState: state }) }, ELICITS));
      });
      expect(live).toMatchObject({ status: 200, body: { result: { resultType: 'input_required' } } });
      expect(diagnoses.map((d) => d.kind)).toEqual(['input-required-retry', 'unused']);
    }
    const oldId = await sameAnswer(file, 'tools', async (url) => {
      const first = await upTo(url);
      return post(url, request(8, 'tools/call', { ...deploy, ...yes, requestState: first.result.requestState }, ELICITS));
    });
    expect(oldId.live).toMatchObject({ status: 200, body: { result: { content: [{ text: 'deployed to staging' }] } } });
    // 2026-07-28 mrtr: "The JSON-RPC id MUST be different between the initial request and the retry"
    expect(oldId.diagnoses).toMatchObject([{ kind: 'input-required-retry', path: 'id' }]);
    const right = await sameAnswer(file, 'tools', async (url) => {
      const first = await upTo(url);
      return post(url, request(9, 'tools/call', { ...deploy, ...yes, requestState: first.result.requestState }, ELICITS));
    });
    expect(right.live.status).toBe(200);
    expect(right.diagnoses).toEqual([]);
  });
});

describe('committed stateless cassettes', () => {
  it.each(RECORDINGS.map((recording) => [recording.file, recording.server] as const))(
    '%s lints clean and shows no drift; a planted change is found',
    async (file, server) => {
      const cassette = cassetteOf(file);
      expect(lintCassette(cassette)).toEqual([]);
      expect(cassette.provenance.url).toBe('http://127.0.0.1/mcp');
      const url = servers[server]!.url;
      expect(await verifyHttpCassette(cassette, url)).toEqual([]);
      const planted = structuredClone(cassette);
      const answer = [...planted.frames]
        .reverse()
        .find((frame) => frame.from === 'server' && 'result' in frame.message && Array.isArray((frame.message.result as { content?: unknown }).content));
      if (answer?.from !== 'server') throw new Error(`${file}: no tool result to plant a change in`);
      (answer.message.result as { content: { text: string }[] }).content[0]!.text = 'planted';
      const drift = await verifyHttpCassette(planted, url);
      expect(drift.map((item) => item.message)).toEqual([expect.stringMatching(/changed at result\.content\[0\]\.text: recorded "planted", now /)]);
    },
  );
});
