// Authoring over Streamable HTTP as over stdio: `record --http <url> --script <session.yaml>` has the
// official SDK client play the steps through the recorder and end the session with DELETE, which
// writes the cassette; `replay` of an HTTP cassette ends on its own once the session is over (at the
// client's DELETE, or, where the replay gave no session, once every recorded client message was
// played). Real processes throughout: the everything server, the recorder, the player, the clients.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import type { Cassette } from '../../harness/cassette/format/model.ts';
import { verifyHttpCassette } from '../../harness/transports/http/verify-link.ts';
import { freePort, ROOT, runHttpSession, startEverythingHttp, startRecorder, waitForOutput, type Running } from '../../scripts/record-http-cassettes.ts';
import { RECORDINGS } from '../../scripts/record-stateless-cassettes.ts';
import { cassetteCommand } from './sdk-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'http-script-'));
let everything: Running;
beforeAll(async () => {
  everything = await startEverythingHttp();
});
afterAll(async () => {
  await everything?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const lines = (stderr: string) => stderr.split('\n').filter((line) => line !== '');
const clientMethods = (cassette: Cassette) => cassette.frames.flatMap((frame) => (frame.from === 'client' ? [frame.message.method ?? 'response'] : []));

/** `theinference replay <args>` as its own process: its URL once it listens, and how it ended. */
async function startReplay(...args: string[]) {
  const [command, ...rest] = cassetteCommand('replay', ...args);
  const child = spawn(command!, rest, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = once(child, 'close').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null, stderr }));
  const [url] = await waitForOutput(child, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m, 'replay');
  return { url, child, ended };
}

/** Resolves to what `ended` gave, or to "still running" after `ms`. */
async function within<T>(ms: number, ended: Promise<T>): Promise<T | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), ms)));
  const first = await Promise.race([ended, late]);
  clearTimeout(timer);
  return first;
}

/** The replay ended by itself within 10 s: how (a replay still running then is stopped, and fails the test). */
async function endsByItself(replay: Awaited<ReturnType<typeof startReplay>>) {
  const ended = await within(10_000, replay.ended);
  if (ended === 'still running') {
    replay.child.kill('SIGKILL');
    await replay.ended;
  }
  return ended;
}

describe('record --http --script', () => {
  const script = join(dir, 'session.yaml');
  const out = join(dir, 'scripted-http.yaml');
  beforeAll(() => {
    writeFileSync(
      script,
      `client: {name: course-author, version: 1.0.0}
steps:
  - tools/list
  - tools/call: {name: echo, arguments: {message: "héllo over http"}}
  - ping
  - tools/call: {name: no-such-tool}
`,
    );
  });

  it("records the handshake, each step in order and the DELETE from the running server, and exits with the recorder's 0", async () => {
    const recorder = await startRecorder(['--out', out, '--http', everything.url, '--script', script]);
    expect(recorder.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { code, stderr } = await recorder.exited;
    expect({ code, last: lines(stderr).at(-1) }).toEqual({ code: 0, last: `theinference record: wrote ${out}: 6 client and 5 server messages` });
    const cassette = loadCassette(out);
    expect(cassette.transport).toBe('http');
    expect(clientMethods(cassette)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'ping', 'tools/call']);
    const client = cassette.frames.flatMap((frame) => (frame.from === 'client' ? [frame.message] : []));
    expect(client[0]).toMatchObject({ params: { clientInfo: { name: 'course-author', version: '1.0.0' } } });
    expect(client[3]).toMatchObject({ params: { name: 'echo', arguments: { message: 'héllo over http' } } });
    // the SDK client opened the GET stream, and ended the session with DELETE, as the recording says
    expect(cassette.http).toMatchObject({ path: '/mcp', get: { status: 200, body: 'sse' }, delete: { status: 200 } });
    // the unknown tool's error is the server's answer, recorded like any other
    const answers = cassette.frames.filter((frame) => frame.from === 'server' && frame.message.id === client[5]!.id);
    expect(answers).toHaveLength(1);
    expect(lintCassette(cassette)).toEqual([]);
    expect(await verifyHttpCassette(cassette, everything.url, { timeoutMs: 10_000 })).toEqual([]);
  });

  it("replays what it recorded to the SDK client, and the replay ends by itself at the client's DELETE", async () => {
    const replay = await startReplay(out);
    const session = await runHttpSession(replay.url, [
      (client) => client.listTools(),
      (client) => client.callTool({ name: 'echo', arguments: { message: 'héllo over http' } }),
      (client) => client.ping(),
      (client) => client.callTool({ name: 'no-such-tool' }),
    ]);
    expect((session.results[1] as { content: { text: string }[] }).content[0]!.text).toBe('Echo: héllo over http');
    // the session's clientInfo differs from the recording's: it is free
    expect(await endsByItself(replay)).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('refuses a script it cannot read in one line, before anything listens, with nothing written', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'steps:\n  - tools/call: [echo]\n');
    const never = join(dir, 'never.yaml');
    const recorder = await startRecorder(['--out', never, '--http', everything.url, '--script', bad]);
    const { code, stderr } = await recorder.exited;
    expect(recorder.url).toBe('');
    expect(code).toBe(2);
    expect(lines(stderr)).toEqual([
      `theinference record: ${bad}:2: steps[0]: expected a method (tools/list) or one method with its params ({tools/call: {name: echo}})`,
    ]);
    expect(readdirSync(dir).filter((name) => name.startsWith('never'))).toEqual([]);
  });

  it('a server that cannot be reached: the script stops, the recorder says why, writes only .partial and exits 1', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}/mcp`;
    const partial = join(dir, 'nobody.yaml');
    const recorder = await startRecorder(['--out', partial, '--http', nobody, '--script', script]);
    const { code, stderr } = await recorder.exited;
    expect(code).toBe(1);
    expect(stderr).toContain(`cannot reach the server at ${nobody} (connection refused)`);
    expect(existsSync(partial)).toBe(false);
  });
});

describe('record --http -- <server command>: record starts the server itself', () => {
  const script = join(dir, 'started.yaml');
  beforeAll(() => writeFileSync(script, 'steps:\n  - tools/list\n  - ping\n'));
  const EVERYTHING = '@modelcontextprotocol/server-everything';

  it('on a free port (port 0, given it in PORT), names the command and its package in the provenance, and stops it once the cassette is written', async () => {
    const out = join(dir, 'started.yaml.cassette');
    const command = ['npx', EVERYTHING, 'streamableHttp'];
    const recorder = await startRecorder(['--out', out, '--http', 'http://127.0.0.1:0/mcp', '--script', script, '--', ...command]);
    const { code, stderr } = await recorder.exited;
    expect(code).toBe(0);
    expect(stderr).toContain(`theinference record: wrote ${out}: 4 client and 3 server messages`);
    // what the server printed, relayed as its own
    expect(stderr).toMatch(/^theinference record: \[server\] .*listening on port \d+$/m);
    const cassette = loadCassette(out);
    const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', EVERYTHING, 'package.json'), 'utf8')) as { version: string };
    expect(cassette.provenance).toMatchObject({ command, package: EVERYTHING, packageVersion: installed.version, url: 'http://127.0.0.1:0/mcp' });
    expect(clientMethods(cassette)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'ping']);
    // the server it started is gone: nothing listens where it did
    const upstream = /proxying \S+ -> (http:\/\/\S+)/.exec(stderr)![1]!;
    expect(await refused(upstream)).toBe(true);
  });

  it('refuses, writing nothing, a port something already listens on, a command that does not exist, a server that exits before it listens', async () => {
    const out = join(dir, 'never-started.yaml');
    const cases: [string, string[], string][] = [
      [
        everything.url,
        ['node', 'whatever.js'],
        `something already listens at ${new URL(everything.url).origin}: record starts the server itself; give a port that is free (0 picks one)`,
      ],
      ['http://127.0.0.1:0/mcp', ['no-such-server-command'], 'cannot start the server command "no-such-server-command": no such command'],
      ['http://127.0.0.1:0/mcp', ['node', '-e', 'process.exit(3)'], 'the server exited (code 3) before it listened at http://127.0.0.1:'],
    ];
    // a server record starts is on this machine: a URL elsewhere is a usage mistake, before anything starts
    const elsewhere = await startRecorder(['--out', out, '--http', 'http://example.com:3001/mcp', '--', 'node', 'server.js']);
    expect((await elsewhere.exited).code).toBe(2);
    expect(lines((await elsewhere.exited).stderr)[0]).toBe(
      'theinference record: --http http://example.com:3001: a server record starts listens on this machine: give a URL on 127.0.0.1',
    );
    for (const [url, command, says] of cases) {
      const recorder = await startRecorder(['--out', out, '--http', url, '--script', script, '--', ...command]);
      const { code, stderr } = await recorder.exited;
      expect({ code, url: recorder.url }, command.join(' ')).toEqual({ code: 2, url: '' });
      expect(lines(stderr).at(-1)).toContain(says);
      expect(lines(stderr).at(-1)).toMatch(/; no cassette written$/);
    }
    expect(readdirSync(dir).filter((name) => name.startsWith('never-started'))).toEqual([]);
  });
});

/** Whether a connection to the URL's port is refused: nothing listens there. */
function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe('replay over HTTP ends by itself once the session is over', () => {
  it('a cassette without sessions (the stateless revision): once every recorded client message was played', async () => {
    const recording = RECORDINGS.find((one) => one.file === 'stateless-tools.yaml')!;
    const replay = await startReplay(join(ROOT, 'cassettes', recording.file));
    await recording.drive(replay.url);
    expect(await endsByItself(replay)).toEqual({ code: 0, signal: null, stderr: '' });
  });

  it('a stdio cassette served over HTTP (no session given, so no DELETE): once every recorded client message was played', async () => {
    const replay = await startReplay('--http', join(ROOT, 'cassettes', 'everything-handshake.yaml'));
    const session = await runHttpSession(replay.url, [(client) => client.ping()]);
    expect(session.results).toEqual([{}]);
    // the recorded server's stderr, relayed as it was recorded
    expect(await endsByItself(replay)).toEqual({ code: 0, signal: null, stderr: '[server] Starting default (STDIO) server...\n' });
  });

  it('a session whose client left without its DELETE is still open: the replay waits (SIGTERM, or Ctrl-C, ends it, with the advice)', async () => {
    const file = join('cassettes', 'everything-http-handshake.yaml');
    const replay = await startReplay(file);
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'leaves', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(replay.url)));
    await client.ping();
    await client.close(); // no terminateSession: no DELETE
    expect(await within(1_500, replay.ended)).toBe('still running');
    replay.child.kill('SIGTERM');
    const { code, stderr } = await replay.ended;
    expect({ code, stderr: lines(stderr) }).toEqual({
      code: 0,
      stderr: [
        `theinference replay: advice: ${file}: http-session-left-open: the session ended without DELETE: close() should end the session it started (DELETE /mcp with its Mcp-Session-Id), so that the server can let it go`,
      ],
    });
  });
});
