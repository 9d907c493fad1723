// The cassette engine over Streamable HTTP, in one run:
//  1. the same SDK-client session (connect: initialize, initialized, the GET stream; tools/list,
//     echo; DELETE) against the live everything server (`streamableHttp`) and against
//     `theinference replay` of its recording: each a server process started for the session
//     (target ratio replay/live <= 0.5), and the session alone, its server already listening;
//  2. one stream of 10,000 (then 50,000) events replayed to a fetch client, target >= 20,000
//     events/s, the heap sampled along the way (it should stay flat).
// The session is recorded here, through `record --http`, so both sides play the same one.
// Run: node --expose-gc --import tsx bench/http.ts [rounds]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCassette } from '../harness/cassette/format/format.ts';
import { serveCassette } from '../harness/transports/http/serve.ts';
import type { Cassette, Frame } from '../harness/cassette/format/model.ts';
import { type HttpStep, ROOT, runHttpSession, startEverythingHttp, startRecorder, waitForOutput } from '../scripts/record-http-cassettes.ts';

const rounds = Number(process.argv[2] ?? 5);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const scratch = mkdtempSync(join(tmpdir(), 'theinference-bench-http-'));
const STEPS: HttpStep[] = [(client) => client.listTools(), (client) => client.callTool({ name: 'echo', arguments: { message: 'bench' } })];

// ---------------------------------------------------------------- 1. replay against live
const cassetteFile = join(scratch, 'session.yaml');
{
  const server = await startEverythingHttp();
  const recorder = await startRecorder(['--out', cassetteFile, '--http', server.url]);
  await runHttpSession(recorder.url, STEPS);
  const { code, stderr } = await recorder.exited;
  await server.stop();
  if (code !== 0) throw new Error(`the recording failed: ${stderr}`);
}

/** Milliseconds for the whole (server started, session) and for the session alone. */
type Timing = { whole: number; session: number };

async function live(): Promise<Timing> {
  const started = performance.now();
  const server = await startEverythingHttp();
  const listening = performance.now();
  await runHttpSession(server.url, STEPS);
  const ended = performance.now();
  await server.stop();
  return { whole: ended - started, session: ended - listening };
}

/** What a person types: bin/theinference.js replay, which prints its URL and ends at DELETE. */
async function replay(): Promise<Timing> {
  const started = performance.now();
  const child = spawn(process.execPath, [join(ROOT, 'bin', 'theinference.js'), 'replay', cassetteFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.once('close', resolve));
  const [url] = await waitForOutput(child, /http:\/\/127\.0\.0\.1:\d+\/mcp/, 'replay');
  const listening = performance.now();
  await runHttpSession(url, STEPS);
  const ended = performance.now();
  await exited;
  return { whole: ended - started, session: ended - listening };
}

const times: Record<'live' | 'replay', Timing[]> = { live: [], replay: [] };
await live(); // warm file caches
await replay();
for (let round = 0; round < rounds; round++) {
  times.live.push(await live());
  times.replay.push(await replay());
}
const of = (name: 'live' | 'replay', part: keyof Timing) => median(times[name].map((timing) => timing[part]));
console.log(`an SDK session over Streamable HTTP (median of ${rounds}):`);
console.log('                              server started for it   session alone');
for (const name of ['live', 'replay'] as const) {
  console.log(
    `  ${name === 'live' ? 'live everything server' : 'theinference replay   '}      ${of(name, 'whole').toFixed(0).padStart(5)} ms             ${of(name, 'session').toFixed(0).padStart(5)} ms`,
  );
}
console.log(
  `  ratio replay/live: ${(of('replay', 'whole') / of('live', 'whole')).toFixed(2)} (target <= 0.5), session alone ${(of('replay', 'session') / of('live', 'session')).toFixed(2)}`,
);

// ---------------------------------------------------------------- 2. one long stream
/** A call whose stream carries `count` progress notifications before its result. */
function longStream(count: number): Cassette {
  const recorded = loadCassette(cassetteFile);
  const handshake = recorded.frames.slice(
    0,
    recorded.frames.findIndex((frame) => frame.from === 'client' && frame.message.method === 'tools/list'),
  );
  const call: Frame = {
    from: 'client',
    message: { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { message: 'bench' }, _meta: { progressToken: 9 } } },
    http: { path: '/mcp', reply: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'sse' } },
  };
  const events: Frame[] = Array.from({ length: count }, (_, index) => ({
    from: 'server',
    message: { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 9, progress: index + 1, total: count } },
    http: { request: 9, event: 'message', id: `e${index}` },
  }));
  const result: Frame = {
    from: 'server',
    message: { jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'done' }] } },
    http: { request: 9, event: 'message' },
  };
  return { ...recorded, frames: [...handshake, call, ...events, result] };
}

/** Events per second from the call's POST to the end of its stream, and the heap: before, along the way, after (collected). */
async function stream(count: number): Promise<{ perSecond: number; heapMiB: number[] }> {
  const player = await serveCassette(longStream(count));
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(player.url, { method: 'POST', headers: { ...json, ...headers }, body: JSON.stringify(body) });
  const initialize = loadCassette(cassetteFile).frames[0]!;
  const first = await post(initialize.from === 'client' ? initialize.message : {});
  await first.text();
  const headers = { 'mcp-session-id': first.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  globalThis.gc?.();
  const heapMiB: number[] = [process.memoryUsage().heapUsed / 2 ** 20];
  const started = performance.now();
  const response = await post(
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'echo', arguments: { message: 'bench' }, _meta: { progressToken: 9 } } },
    headers,
  );
  const reader = response.body!.getReader();
  let reads = 0;
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    if (++reads % 20 === 0) heapMiB.push(process.memoryUsage().heapUsed / 2 ** 20);
  }
  const elapsed = performance.now() - started;
  globalThis.gc?.();
  heapMiB.push(process.memoryUsage().heapUsed / 2 ** 20);
  await fetch(player.url, { method: 'DELETE', headers });
  await player.close();
  return { perSecond: (count + 1) / (elapsed / 1000), heapMiB };
}

for (const count of [10_000, 50_000, 200_000]) {
  const { perSecond, heapMiB } = await stream(count);
  const mib = (value: number) => `${value.toFixed(1)} MiB`;
  console.log(
    `one stream of ${count.toLocaleString('en-US')} events: ${Math.round(perSecond).toLocaleString('en-US')} events/s (target >= 20,000); heap ${mib(heapMiB[0]!)} before, at most ${mib(Math.max(...heapMiB))} while it played, ${mib(heapMiB.at(-1)!)} after`,
  );
}
rmSync(scratch, { recursive: true, force: true });
