// Proof of fidelity with real parts: the official SDK client against the real everything and memory
// servers through `record`, then against `replay` of what was recorded; clients that deviate get
// the right diagnosis, and `verify` finds no drift in a fresh recording but finds a planted one.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlayReport } from '../../harness/exchange/diagnosis.ts';
import { maskNondeterministic } from '../../harness/cassette/recording/normalise.ts';
import type { Json } from '../../harness/cassette/format/model.ts';
import {
  cassetteCommand,
  EVERYTHING,
  EVERYTHING_EXTRA_STEPS,
  EVERYTHING_STEPS,
  MEMORY,
  MEMORY_STEPS,
  ROOT,
  runSession,
  type SessionResult,
  type Step,
} from './sdk-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'cassette-fidelity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const everythingCassette = join(dir, 'everything.yaml');
const STEPS = [...EVERYTHING_STEPS, ...EVERYTHING_EXTRA_STEPS];
let recorded: SessionResult;

function readReport(file: string): PlayReport {
  return JSON.parse(readFileSync(file, 'utf8')) as PlayReport;
}

function run(command: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

beforeAll(async () => {
  recorded = await runSession(cassetteCommand('record', '--out', everythingCassette, '--', ...EVERYTHING), STEPS, { roots: true });
});

describe('the SDK client against the everything server', () => {
  it('sees through the recorder what it sees from the server itself', async () => {
    const live = await runSession(EVERYTHING, STEPS, { roots: true });
    expect(maskNondeterministic(recorded.results as Json)).toEqual(maskNondeterministic(live.results as Json));
    // the session really covers what the stages need: every content type, isError, a JSON-RPC error
    const types = new Set((recorded.results as { content?: { type: string }[] }[]).flatMap((result) => result.content?.map((item) => item.type) ?? []));
    expect([...types].sort()).toEqual(['image', 'resource', 'resource_link', 'text']);
    expect(recorded.results.filter((result) => (result as { isError?: boolean }).isError)).toHaveLength(2);
    expect(recorded.results.at(-3)).toEqual({
      thrown: { code: -32602, message: 'MCP error -32602: MCP error -32602: Resource demo://no/such/resource not found' },
    });
  });

  it('gets identical results from replay, and the player reports a clean session', async () => {
    const report = join(dir, 'clean.json');
    const replayed = await runSession(cassetteCommand('replay', everythingCassette, '--report', report), STEPS, { roots: true });
    expect(replayed.results).toEqual(recorded.results);
    expect(replayed.server).toEqual(recorded.server);
    expect(readReport(report)).toMatchObject({ ok: true, complete: true, diagnoses: [] });
  });

  it("replays a client that answers the server's request after its own next request, as the server took it", async () => {
    // The server asks roots/list 350 ms after notifications/initialized: recorded while the client
    // waited (3 s, room for a loaded machine), answered at once. Replayed by a client that answers
    // late and does not wait, the answer comes after the client's next requests, which the server
    // (and so the player) takes all the same.
    const pause =
      (ms: number): Step =>
      () =>
        new Promise((resolve) => setTimeout(() => resolve('paused'), ms));
    const cassette = join(dir, 'roots-asked-between.yaml');
    const [list, echo, sum] = EVERYTHING_STEPS;
    const live = await runSession(cassetteCommand('record', '--out', cassette, '--', ...EVERYTHING), [list!, pause(3000), echo!, sum!], { roots: true });
    const frames = readFileSync(cassette, 'utf8');
    expect(frames.indexOf('method: roots/list')).toBeGreaterThan(frames.indexOf('method: tools/list'));
    expect(frames.indexOf('method: roots/list')).toBeLessThan(frames.indexOf('hello, cassette'));
    const report = join(dir, 'roots-late.json');
    const late = await runSession(cassetteCommand('replay', cassette, '--report', report), [list!, echo!, sum!, pause(1500)], { roots: true, rootsDelay: 500 });
    expect(late.results.slice(0, 3)).toEqual([live.results[0], ...live.results.slice(2)]);
    expect(readReport(report)).toMatchObject({ ok: true, complete: true, diagnoses: [] });
  });

  it('diagnoses a client that sends other params', async () => {
    const report = join(dir, 'params.json');
    const steps = [...STEPS];
    steps[1] = (client) => client.callTool({ name: 'echo', arguments: { message: 'hello, tape' } });
    const replayed = await runSession(cassetteCommand('replay', everythingCassette, '--report', report), steps, { roots: true });
    expect(replayed.results[1]).toMatchObject({ thrown: { code: -32000 } });
    const [first] = readReport(report).diagnoses;
    expect(first).toMatchObject({ kind: 'params-differ', path: 'params.arguments.message', expected: 'hello, cassette', actual: 'hello, tape' });
    expect(replayed.stderr).toContain('params-differ: your client sent tools/call "echo" (your id 2) with params that differ');
  });

  it('diagnoses a client that sends an extra request, and one that stops early', async () => {
    const extraReport = join(dir, 'extra.json');
    await runSession(cassetteCommand('replay', everythingCassette, '--report', extraReport), [...STEPS, (client) => client.ping()], { roots: true });
    expect(readReport(extraReport).diagnoses.map((d) => d.kind)).toEqual(['exhausted']);
    expect(readReport(extraReport).diagnoses[0]!.message).toBe('the recording has no more client messages; your client sent ping (your id 13)');

    const shortReport = join(dir, 'short.json');
    await runSession(cassetteCommand('replay', everythingCassette, '--report', shortReport), STEPS.slice(0, 3), { roots: true });
    const short = readReport(shortReport);
    expect(short.complete).toBe(false);
    expect(short.diagnoses).toHaveLength(1);
    // every recorded client message it did not send: the handshake and three steps were sent, and where the
    // server's roots/list falls among them (it asks when it likes: a loaded machine moves it) so does the answer
    expect(short.diagnoses[0]).toMatchObject({ kind: 'unused', unusedCount: short.expected - short.consumed });
    expect(short.consumed).toBeGreaterThanOrEqual(5);
  });

  it('diagnoses a raw client that skips notifications/initialized', async () => {
    const report = join(dir, 'skipped.json');
    const lines = [
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: { roots: {} }, clientInfo: { name: 'raw', version: '0' } },
      },
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 5 } },
    ];
    const result = await run(cassetteCommand('replay', everythingCassette, '--report', report), lines.map((line) => JSON.stringify(line) + '\n').join(''));
    expect(result.code).toBe(1);
    const { diagnoses, advice } = readReport(report);
    // checked against the MCP schema as it passed
    expect(diagnoses.find((d) => d.kind === 'invalid-message')?.message).toBe(
      'tools/call (your id 2) is not valid MCP 2025-11-25: params.name: Invalid input: expected string, received number',
    );
    // it wrote everything at once: tools/list went out before the initialize result had arrived (a SHOULD NOT: advice)...
    expect(advice.map((d) => [d.kind, d.message])).toEqual([
      [
        'before-initialize-result',
        'your client sent tools/list (your id 1) before the initialize result had arrived: wait for it (only ping should come earlier)',
      ],
    ]);
    expect(result.stderr).toContain('theinference replay: advice: ');
    // ...and without notifications/initialized before it (the recorded session's order: an error)
    expect(diagnoses.map((d) => d.message)).toContainEqual(
      expect.stringContaining('after the initialize result, the server expected notifications/initialized; your client sent tools/list (your id 1)'),
    );
    const answers = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id?: number; error?: unknown });
    expect(answers.find((answer) => answer.id === 1)).toMatchObject({ error: { code: -32000 } });
  });

  it('verify finds no drift against the live server, and finds a planted one', async () => {
    const clean = await run(cassetteCommand('verify', everythingCassette, '--', ...EVERYTHING));
    expect(clean.stderr).not.toContain('changed');
    expect(clean.code, clean.stderr).toBe(0);
    const planted = join(dir, 'planted.yaml');
    writeFileSync(planted, readFileSync(everythingCassette, 'utf8').replace('text: The sum of 2 and 40 is 42.', 'text: The sum of 2 and 40 is 41.'));
    const drift = await run(cassetteCommand('verify', planted, '--', ...EVERYTHING));
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain(
      'a response to request 3 changed at result.content[0].text: recorded "The sum of 2 and 40 is 41.", now "The sum of 2 and 40 is 42."',
    );
    expect(drift.stderr.trim().split('\n'), drift.stderr).toHaveLength(1);
  });
});

describe('the SDK client against the memory server', () => {
  it('gets identical results from replay of a recording', async () => {
    const cassette = join(dir, 'memory.yaml');
    const env = { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') };
    const live = await runSession(cassetteCommand('record', '--out', cassette, '--', ...MEMORY), MEMORY_STEPS, { env });
    expect(JSON.stringify(live.results)).toContain('wrote the first program');
    const report = join(dir, 'memory.json');
    const replayed = await runSession(cassetteCommand('replay', cassette, '--report', report), MEMORY_STEPS);
    expect(replayed.results).toEqual(live.results);
    expect(readReport(report).ok).toBe(true);
  });
});
