// Records the committed HTTP cassettes (cassettes/everything-http-*.yaml, resumable-http.yaml): the
// everything server's Streamable HTTP transport (or scripts/resumable-server.ts) on a free port,
// `record --http` in front of it, and the official SDK client driving a session through the recorder. `node --import tsx scripts/record-http-cassettes.ts [file ...]`
// Its helpers are shared with the recorder's tests, which drive the same sessions live and recorded.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export const ROOT = join(import.meta.dirname, '..');
/** The everything server's entry, as typed in the project folder. */
export const EVERYTHING_ENTRY = 'node_modules/@modelcontextprotocol/server-everything/dist/index.js';

/** A port nobody listens on right now (the OS's pick, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Waits for a child's output to match `pattern`; rejects if the child exits first. */
export function waitForOutput(child: ChildProcess, pattern: RegExp, what: string): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        child.stdout?.off('data', look);
        child.stderr?.off('data', look);
        resolve(match);
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before it was ready: ${seen.trim()}`)));
  });
}

export interface Running {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** `server-everything streamableHttp` on a free port of 127.0.0.1, ready. */
export function startEverythingHttp(): Promise<Running> {
  return startHttpServer([join(ROOT, EVERYTHING_ENTRY), 'streamableHttp'], /listening on port/, 'server-everything');
}

export const RESUMABLE_ENTRY = 'scripts/resumable-server.ts';

/** scripts/resumable-server.ts (its `count` tool closes its stream after the first step) on a free port of 127.0.0.1, ready. */
export function startResumableHttp(): Promise<Running> {
  return startHttpServer(['--import', 'tsx', join(ROOT, RESUMABLE_ENTRY)], /listening on/, 'the resumable server');
}

/** `node <args>`, a server that listens at /mcp on the port in PORT: on a free port of 127.0.0.1,
 *  once its output says `ready`. */
export async function startHttpServer(args: string[], ready: RegExp, what: string): Promise<Running> {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await waitForOutput(child, ready, what);
  child.stdout!.resume();
  child.stderr!.resume();
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url: `http://127.0.0.1:${port}/mcp`, port, child, stop };
}

export interface Recorder {
  /** The URL the client should use. */
  url: string;
  child: ChildProcess;
  /** The exit code and everything the recorder said on stderr. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** `theinference record --http` as its own process (exit codes and signals are its own). */
export function recorderCommand(args: string[]): string[] {
  return [process.execPath, join(ROOT, 'bin', 'theinference.js'), 'record', ...args];
}

/** Spawns the recorder; resolves once it listens (or with no url if it exited first). */
export async function startRecorder(args: string[]): Promise<Recorder> {
  const [command, ...rest] = recorderCommand(args);
  const child = spawn(command!, rest, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stderr })),
  );
  const url = await Promise.race([
    waitForOutput(child, /proxying (http:\/\/\S+) ->/, 'the recorder').then(
      (match) => match[1]!,
      () => '',
    ),
    exited.then(() => ''),
  ]);
  return { url, child, exited };
}

export type HttpStep = (client: Client, progress: unknown[]) => Promise<unknown>;

/** The tools session: tools/list, echo, and a long-running operation with progress. */
export const TOOLS_STEPS: HttpStep[] = [
  (client) => client.listTools(),
  (client) => client.callTool({ name: 'echo', arguments: { message: 'hello, http cassette' } }),
  (client, progress) =>
    client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } }, undefined, {
      onprogress: (update) => progress.push(update),
    }),
];

export interface HttpSessionResult {
  server: unknown;
  /** One entry per step: the result, or the error's code and message. */
  results: unknown[];
  /** The progress notifications the client was given, in order. */
  progress: unknown[];
}

/** The official SDK client over Streamable HTTP: connect (initialize, initialized, the GET stream),
 *  the steps, then DELETE (terminateSession) and close. */
export async function runHttpSession(url: string, steps: HttpStep[]): Promise<HttpSessionResult> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: 'http-recorder-test', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const results: unknown[] = [];
  const progress: unknown[] = [];
  for (const step of steps) {
    try {
      results.push(await step(client, progress));
    } catch (error) {
      const { code, message } = error as { code?: number; message: string };
      results.push({ thrown: { code, message } });
    }
  }
  const server = { version: client.getServerVersion(), capabilities: client.getServerCapabilities() };
  await transport.terminateSession();
  await client.close();
  return { server, results, progress };
}

/** The resumable session: tools/list, then `count` to 3, whose stream the server closes after its
 *  first log message; the SDK client waits the priming event's retry and resumes it with GET. */
export const RESUMABLE_STEPS: HttpStep[] = [(client) => client.listTools(), (client) => client.callTool({ name: 'count', arguments: { to: 3 } })];

interface Recorded {
  file: string;
  steps: HttpStep[];
  what: string;
  start: () => Promise<Running>;
  /** How the server is started, as typed in the project folder, and the folder of the package it is built on. */
  command: string[];
  packageDir: string;
}

const EVERYTHING = {
  start: startEverythingHttp,
  command: ['node', EVERYTHING_ENTRY, 'streamableHttp'],
  packageDir: 'node_modules/@modelcontextprotocol/server-everything',
};
const CASSETTES: Recorded[] = [
  { ...EVERYTHING, file: 'everything-http-handshake.yaml', steps: [(client) => client.ping()], what: 'initialize, initialized, the GET stream, ping, DELETE' },
  { ...EVERYTHING, file: 'everything-http-tools.yaml', steps: TOOLS_STEPS, what: 'tools/list, echo, a long-running operation with progress, DELETE' },
  {
    file: 'resumable-http.yaml',
    steps: RESUMABLE_STEPS,
    what: "tools/list, count to 3 (the server closes the call's stream after its first log message; the client resumes it with GET and Last-Event-ID), DELETE",
    start: startResumableHttp,
    command: ['node', '--import', 'tsx', RESUMABLE_ENTRY],
    packageDir: 'node_modules/@modelcontextprotocol/sdk',
  },
];

/** Every cassette, or those named: `record-http-cassettes.ts resumable-http.yaml`. */
async function main(named: string[]): Promise<void> {
  const unknown = named.filter((file) => !CASSETTES.some((cassette) => cassette.file === file));
  if (unknown.length > 0) throw new Error(`no such cassette: ${unknown.join(', ')} (there are ${CASSETTES.map((cassette) => cassette.file).join(', ')})`);
  for (const cassette of CASSETTES.filter((one) => named.length === 0 || named.includes(one.file))) {
    const manifest = JSON.parse(readFileSync(join(ROOT, cassette.packageDir, 'package.json'), 'utf8')) as { name: string; version: string };
    const server = await cassette.start();
    try {
      const out = join('cassettes', cassette.file);
      const recorder = await startRecorder(['--out', out, '--http', server.url, '--force']);
      if (recorder.url === '') throw new Error((await recorder.exited).stderr.trim());
      await runHttpSession(recorder.url, cassette.steps);
      const { code, stderr } = await recorder.exited;
      process.stdout.write(`${cassette.file}: ${stderr.trim().split('\n').at(-1)}\n`);
      if (code !== 0) throw new Error(`the recorder exited ${code}`);
      await describeProvenance(join(ROOT, out), manifest, cassette);
    } finally {
      await server.stop();
    }
  }
}

/** The provenance a reader needs: how the server was started, its URL without the port it
 *  happened to get, the package; the recorder only knew the URL. */
async function describeProvenance(file: string, manifest: { name: string; version: string }, { what, command }: Recorded): Promise<void> {
  const { loadCassette } = await import('../harness/cassette/format/format.ts');
  const { saveCassette } = await import('../harness/cassette/format/save.ts');
  const cassette = loadCassette(file);
  delete cassette.file;
  cassette.frames = cassette.frames.map(({ line: _line, ...frame }) => frame);
  cassette.provenance = {
    command,
    url: 'http://127.0.0.1/mcp',
    package: manifest.name,
    packageVersion: manifest.version,
    recorded: cassette.provenance.recorded,
    recorder: cassette.provenance.recorder,
    note: `${what}; the server listened on a free port (env PORT), driven by the official SDK client through theinference record --http (scripts/record-http-cassettes.ts)`,
  };
  saveCassette(cassette, file, { overwrite: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
