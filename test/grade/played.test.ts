// A case plays every server its command names, each from its own recording on its own transport: a
// real program (the reference client, test/grade/two-endpoints/program.ts) talks to an MCP server on its
// fd 3 and to another over Streamable HTTP at once; each endpoint's session is judged on its own.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Case } from '../../harness/course.ts';
import { playCase, playingOf, programNeeds } from '../../harness/grade/played.ts';
import type { RunResult } from '../../harness/run/spawn.ts';
import type { Wiring } from '../../harness/transports/transport.ts';
import { REPO } from '../helpers/cli.ts';

const PROGRAM = join(import.meta.dirname, 'two-endpoints', 'program.ts');
const AGENT = join(import.meta.dirname, 'two-endpoints', 'agent.ts');
const CALLS = join(REPO, 'cases', 'streamable-http', 'json-replies', 'calls.json');

const twoServers: Case = {
  name: 'two-servers',
  stage: 'handshake',
  command: 'two-servers',
  casePath: 'cases/handshake/everything-server',
  fixtureDir: join(REPO, 'fixtures', 'handshake', 'everything-server'),
  expectedPath: join(REPO, 'fixtures', 'handshake', 'everything-server', 'expected.json'),
  endpoints: [
    {
      name: 'local',
      protocol: 'mcp',
      transport: 'stdio',
      cassette: 'cassette.yaml',
      cassettePath: join(REPO, 'fixtures', 'handshake', 'everything-server', 'cassette.yaml'),
    },
    {
      name: 'remote',
      protocol: 'mcp',
      transport: 'http',
      env: 'THEINFERENCE_REMOTE_URL',
      cassette: 'cassette.yaml',
      cassettePath: join(REPO, 'fixtures', 'streamable-http', 'json-replies', 'cassette.yaml'),
    },
  ],
};

/** The program, outside any sandbox (it reaches 127.0.0.1 itself), started as its endpoints' transports
 *  say (programNeeds: the wire's fd, fetch loaded) and wired as they say once open. */
function run(args: string[], program = PROGRAM, testCase = twoServers): (wiring: Wiring) => Promise<RunResult> {
  return (wiring) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', program, ...args], {
        cwd: REPO,
        env: { ...process.env, ...programNeeds(testCase).env, ...wiring.env },
        stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      });
      wiring.onWire?.(child.stdio[3] as Duplex);
      const [stdout, stderr]: Buffer[][] = [[], []];
      child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
      child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
      child.on('error', reject);
      child.on('close', (exitCode, signal) =>
        resolve({
          exitCode,
          signal,
          cpuMs: 0,
          flooded: undefined,
          outOfMemory: false,
          durationMs: 0,
          stdout: Buffer.concat(stdout),
          stderr: Buffer.concat(stderr),
        }),
      );
    });
}

describe('a case with two endpoints', () => {
  it('gives the program each one where its transport says (fd 3; the URL in its variable), and each session is whole', async () => {
    const playing = playingOf(twoServers);
    expect(programNeeds(twoServers)).toEqual({ wire: true, env: { THEINFERENCE_WIRE_FD: '3', THEINFERENCE_FETCH: '1' }, fetching: true });
    const { result, endpoints } = await playCase(twoServers, playing, { runRoot: REPO, network: true }, run([CALLS]));
    expect(result.stderr.toString()).toBe('');
    expect(JSON.parse(result.stdout.toString())).toEqual({
      local: 'mcp-servers/everything',
      remote: 'mcp-servers/everything',
      tools: expect.any(Number),
      calls: 2,
    });
    expect(endpoints.map(({ report }) => ({ ok: report?.ok, complete: report?.complete, diagnoses: report?.diagnoses }))).toEqual([
      { ok: true, complete: true, diagnoses: [] },
      { ok: true, complete: true, diagnoses: [] },
    ]);
    // each endpoint's exchange is its own: the handshake on fd 3, the tool calls over HTTP
    const methods = endpoints.map(({ report }) => report!.exchange.steps.flatMap((step) => (step.from === 'client' && step.method ? [step.method] : [])));
    expect(methods[0]).toEqual(['initialize', 'notifications/initialized']);
    expect(methods[1]).toContain('tools/call');
  });

  it('judges each endpoint on its own: calls left out are missing from the HTTP session alone', async () => {
    const { endpoints } = await playCase(twoServers, playingOf(twoServers), { runRoot: REPO, network: true }, run([CALLS, '--skip-calls']));
    const [local, remote] = endpoints.map(({ report }) => report!);
    expect({ ok: local!.ok, complete: local!.complete }).toEqual({ ok: true, complete: true });
    expect(remote!.complete).toBe(false);
    expect(remote!.diagnoses.map((diagnosis) => diagnosis.kind)).toContain('unused');
  });
});

const withAnApi: Case = {
  ...twoServers,
  name: 'mcp-and-an-api',
  endpoints: [
    twoServers.endpoints[0]!,
    {
      name: 'llm',
      protocol: 'http-api',
      transport: 'http',
      env: 'THEINFERENCE_LLM_URL',
      cassette: 'tool-use.yaml',
      cassettePath: join(REPO, 'test', 'protocols', 'http-api', 'recordings', 'tool-use.yaml'),
    },
  ],
};

describe('a case with an MCP server and an API', () => {
  it("plays each by its own protocol: the API's recording answers the program's tool loop, with the key it was given", async () => {
    const { result, endpoints } = await playCase(withAnApi, playingOf(withAnApi), { runRoot: REPO, network: true }, run([], AGENT, withAnApi));
    expect(result.stderr.toString()).toBe('');
    expect(JSON.parse(result.stdout.toString())).toEqual({ server: 'mcp-servers/everything', stops: ['tool_use', 'end_turn'] });
    expect(endpoints.map(({ report }) => ({ ok: report?.ok, complete: report?.complete }))).toEqual([
      { ok: true, complete: true },
      { ok: true, complete: true },
    ]);
    expect(endpoints[1]!.report!.exchange.steps.map((step) => `${step.from} ${step.method}`)).toEqual([
      'client POST /v1/messages',
      'server 200 OK',
      'client POST /v1/messages',
      'server 200 OK',
    ]);
  });

  it('says on the API endpoint alone what went wrong there: requests without the key', async () => {
    const { endpoints } = await playCase(withAnApi, playingOf(withAnApi), { runRoot: REPO, network: true }, run(['--no-key'], AGENT, withAnApi));
    const [local, llm] = endpoints.map(({ report }) => report!);
    expect(local!.ok).toBe(true);
    expect(llm!.diagnoses.map((diagnosis) => diagnosis.kind)).toEqual(['api-key', 'api-unused']);
  });
});
