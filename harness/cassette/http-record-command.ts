// `theinference record --http <url> --out <cassette> [--script <session.yaml>] [--port N] [--force] [-- <server command...>]`:
// argv in, exit code out (0 written, 1 a session that was not clean, `.partial` written; 2 usage or
// bad input). With --script, the official SDK client plays the script's steps through the recorder
// over Streamable HTTP and ends the session with DELETE, which writes the cassette. With a server
// command, record starts the server for the URL (PORT set to its port; port 0 picks a free one),
// names it and its package in the provenance, and stops it once the cassette is written.
import { resolve } from 'node:path';
import { integer, parse } from '../commands/args.ts';
import { UsageError } from '../errors.ts';
import { escapeControls } from '../terminal-text.ts';
import { publicUrl } from './http-headers.ts';
import type { HttpRecordOptions } from './http-recorder.ts';
import { targetProblem } from './recording-target.ts';
import type { SessionScript } from './script.ts';

const USAGE = 'usage: theinference record --http <server url> --out <cassette> [--script <session.yaml>] [--port N] [--force] [-- <server command...>]';

export async function recordHttp(args: string[]): Promise<number> {
  const split = args.indexOf('--');
  const parsed = parse(split === -1 ? args : args.slice(0, split), {
    out: { type: 'string' },
    http: { type: 'string' },
    script: { type: 'string' },
    port: { type: 'string' },
    force: { type: 'boolean' },
  });
  const command = split === -1 ? undefined : args.slice(split + 1);
  const { out, http } = parsed.values;
  if (out === undefined || http === undefined || command?.length === 0) throw new UsageError(USAGE);
  const port = parsed.values.port === undefined ? 0 : integer('--port', parsed.values.port);
  if (port < 0 || port > 65535) throw new UsageError(`--port takes a whole number from 0 to 65535, not "${parsed.values.port}"`);
  let url: URL;
  try {
    url = new URL(http);
  } catch {
    throw new UsageError("--http takes the server's URL, e.g. http://127.0.0.1:3001/mcp");
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--http takes an http: or https: URL, not a ${url.protocol} one`);
  if (url.port === '0' && command === undefined) throw new UsageError('--http: port 0 picks a free port for a server record starts: give its command after --');
  const { loadScript } = await import('./script.ts');
  // before anything starts or listens: bad input changes nothing
  const script = parsed.values.script === undefined ? undefined : loadScript(parsed.values.script);
  const force = parsed.values.force === true;
  if (command === undefined) return recordThrough({ out, upstream: http, port, force }, script);

  const refused = targetProblem(out, resolve(out), force);
  if (refused !== undefined) return said(refused, 2);
  const { startServer } = await import('./started-server.ts');
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(command, url, { cwd: process.cwd(), env: process.env, log: (line) => say(line) });
  } catch (error) {
    return said(`${(error as Error).message}; no cassette written`, 2);
  }
  try {
    return await recordThrough({ out, upstream: server.url.href, port, force, command, provenance: { url: publicUrl(url) } }, script);
  } finally {
    await server.stop();
  }
}

function say(line: string): void {
  process.stderr.write(`theinference record: ${escapeControls(line)}\n`);
}

function said(line: string, code: number): number {
  say(line);
  return code;
}

/** The session recorded through the proxy: a client's, pointed at it, or the script's. */
async function recordThrough(options: HttpRecordOptions, script: SessionScript | undefined): Promise<number> {
  const { recordHttpSession } = await import('./http-recorder.ts');
  if (script === undefined) return recordHttpSession(options);
  const { driveScriptOverHttp } = await import('./script.ts');
  const stop = new AbortController();
  let recorderDone = false;
  let played: Promise<void> = Promise.resolve();
  const recorded = recordHttpSession({
    ...options,
    stop: stop.signal,
    // The client starts once the recorder listens; a recorder that refused to start never calls it.
    onListening: (proxy) => {
      played = driveScriptOverHttp(script, proxy)
        .catch((error: Error) => {
          if (!recorderDone) process.stderr.write(`theinference record: the script stopped: ${escapeControls(error.message)}\n`);
        })
        // The session ends when the steps do: at its DELETE, or (a server that gave no session, so
        // the client sends none; a script that stopped) with what was recorded so far.
        .finally(() => stop.abort());
    },
  }).then((code) => {
    recorderDone = true;
    return code;
  });
  const code = await recorded;
  await played;
  return code;
}
