// The cassette engine's speed, in one run:
//  1. the same SDK-client session against `theinference replay` and against the live everything
//     server (spawn, handshake, tools/list, nine calls, close); target ratio replay/live <= 0.5;
//  2. a cassette of 10,000 tools/call interactions replayed over a real unix socket, target
//     >= 20,000 messages/s, with the heap sampled along the way (it should stay flat).
// Run: node --expose-gc --import tsx bench/cassette.ts [rounds]
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { globSync } from 'tinyglobby';
import { join } from 'node:path';
import { loadCassette, parseCassette } from '../harness/cassette/format/format.ts';
import { saveCassette } from '../harness/cassette/format/save.ts';
import type { Cassette, Frame } from '../harness/cassette/format/model.ts';
import { attachPlayer } from '../harness/transports/stdio/face.ts';
import { cassetteCommand, EVERYTHING, EVERYTHING_STEPS, ROOT, runSession } from '../test/cassette/sdk-session.ts';

const rounds = Number(process.argv[2] ?? 5);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(command: string[]): Promise<number> {
  const started = performance.now();
  await runSession(command, EVERYTHING_STEPS);
  return performance.now() - started;
}

// ---------------------------------------------------------------- 1. replay against live
const tools = join(ROOT, 'cassettes', 'everything-tools.yaml');
const variants = {
  live: EVERYTHING,
  /** what a person types, and what the tests start: bin/theinference.js (lib/, compiled) */
  'theinference replay': cassetteCommand('replay', tools),
};
const times: Record<string, number[]> = {};
for (const command of Object.values(variants)) await timed(command); // warm file and transform caches
for (let round = 0; round < rounds; round++) {
  for (const [name, command] of Object.entries(variants)) (times[name] ??= []).push(await timed(command));
}
const live = median(times.live!);
console.log(`SDK session (spawn, handshake, tools/list, 9 calls, close), median of ${rounds} rounds:`);
for (const [name, values] of Object.entries(times)) {
  console.log(
    `  ${name.padEnd(20)} ${median(values).toFixed(0).padStart(5)} ms${name === 'live' ? '' : `   ratio ${(median(values) / live).toFixed(2)} (target <= 0.5)`}`,
  );
}

// ---------------------------------------------------------------- 2. throughput
const INTERACTIONS = 10_000;
const frames: Frame[] = [];
for (let i = 1; i <= INTERACTIONS; i++) {
  frames.push({ from: 'client', message: { jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'echo', arguments: { message: `message ${i}` } } } });
  frames.push({ from: 'server', message: { result: { content: [{ type: 'text', text: `Echo: message ${i}` }] }, jsonrpc: '2.0', id: i } });
}
const big: Cassette = { version: 1, transport: 'stdio', provenance: { command: ['bench'], recorded: '2026-11-30', recorder: 'hand-written' }, frames };
const dir = mkdtempSync(join(tmpdir(), 'cassette-bench-'));
const file = join(dir, 'big.yaml');
saveCassette(big, file);
let started = performance.now();
parseCassette(readFileSync(file, 'utf8'), file); // the YAML path, whatever the cache holds
const firstLoad = performance.now() - started;
loadCassette(file); // fills the cache
started = performance.now();
const loaded = loadCassette(file);
console.log(`load ${INTERACTIONS} interactions: ${firstLoad.toFixed(0)} ms from YAML, ${(performance.now() - started).toFixed(0)} ms again (cached)`);

// What the grader gives up by not trusting the disk cache (a graded program without a sandbox
// could write it): every case cassette of the course, parsed once per grader process.
const fixtures = globSync('fixtures/**/cassette.yaml', { cwd: ROOT, absolute: true });
for (const fixture of fixtures) loadCassette(fixture); // the disk cache filled, the parser warm
started = performance.now();
for (const fixture of fixtures) loadCassette(fixture);
const fromDisk = performance.now() - started;
started = performance.now();
for (const fixture of fixtures) parseCassette(readFileSync(fixture, 'utf8'), fixture);
console.log(
  `the course's ${fixtures.length} case cassettes: ${(performance.now() - started).toFixed(0)} ms parsed by the grader, ${fromDisk.toFixed(0)} ms from the disk cache`,
);

const path = join(dir, 'player.sock');
const server = createServer();
await new Promise<void>((resolve) => server.listen(path, resolve));
const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
const client = connect(path);
const socket = await accepted;
const session = attachPlayer(loaded, socket);

const heap: number[] = [];
const WINDOW = 64; // requests in flight, as a pipelining client would
let sent = 0;
let received = 0;
let buffered = '';
const send = () => {
  while (sent < INTERACTIONS && sent - received < WINDOW) {
    sent++;
    client.write(`{"jsonrpc":"2.0","id":${sent},"method":"tools/call","params":{"name":"echo","arguments":{"message":"message ${sent}"}}}\n`);
  }
};
started = performance.now();
await new Promise<void>((resolve) => {
  client.setEncoding('utf8');
  client.on('data', (chunk: string) => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) !== -1) {
      buffered = buffered.slice(end + 1);
      received++;
      if (received % (INTERACTIONS / 4) === 0) {
        (globalThis as { gc?: () => void }).gc?.(); // with --expose-gc: live objects only
        heap.push(process.memoryUsage().heapUsed);
      }
    }
    if (received === INTERACTIONS) resolve();
    else send();
  });
  send();
});
const seconds = (performance.now() - started) / 1000;
client.end();
const report = await session.done;
server.close();
if (!report.ok) throw new Error(`the replay was not clean: ${report.diagnoses[0]?.message}`);
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
console.log(
  `replay ${INTERACTIONS} tools/call interactions over a unix socket: ${seconds.toFixed(2)} s, ${Math.round((2 * INTERACTIONS) / seconds)} messages/s (target >= 20000); heap at 25/50/75/100%: ${heap.map(mb).join(' / ')} MB`,
);
