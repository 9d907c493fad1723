// `theinference record`: a real MCP server's session into a cassette. Over stdio (`-- <server
// command>`), the recorder in place of the server between a client and it, or the official SDK client
// playing a script; over Streamable HTTP (`--http <url>`), a proxy in front of the server, which
// record starts when given its command. argv in, exit code out (0 written, 1 a session that was not
// clean, `.partial` written; 2 usage or bad input, nothing written).
import { resolve } from 'node:path';
import { publicUrl } from '../transports/http/headers.ts';
import type { HttpRecordOptions } from '../transports/http/recorder.ts';
import { targetProblem, type SessionScript } from '../cassette/index.ts';
import { UsageError } from '../errors.ts';
import { integer } from './args.ts';
import { defineCommand, type Options, type Parsed } from './command.ts';
import { say } from './say.ts';

const OPTIONS = {
  out: { type: 'string', value: '<cassette>', help: 'where the cassette is written' },
  http: {
    type: 'string',
    value: '<url>',
    help: "record a Streamable HTTP server at this URL, through a proxy on 127.0.0.1 (its URL printed);\nwith a server command after --, record starts it (PORT = the URL's port; port 0 picks a free one)",
  },
  script: {
    type: 'string',
    value: '<session.yaml>',
    help: 'the SDK client plays these steps (else: relay a client on stdin/stdout, or point it at the proxy)',
  },
  force: { type: 'boolean', help: 'replace an existing cassette' },
  port: { type: 'string', value: '<n>', help: "with --http: the proxy's port on 127.0.0.1 (default: a free one)" },
  setup: { type: 'string', value: '<folder>', help: 'stdio: copy it to a fresh folder, <setup> in the command and session' },
  env: {
    type: 'string',
    multiple: true,
    value: '<NAME=VALUE>',
    help: 'stdio: start the server with this variable (<setup> may be in it; kept in the cassette)',
  },
  'redact-env': { type: 'string', multiple: true, value: '<NAME>', help: "stdio: redact this variable's value too (repeat for more)" },
  'allow-noise': { type: 'boolean', help: "stdio: keep non-JSON lines on the server's stdout as stdout frames" },
  'keep-nondeterministic': { type: 'boolean', help: 'stdio: do not mark UUIDs, timestamps and the like free' },
} as const satisfies Options;

/** The options of a recording a server on stdin and stdout only. */
const STDIO_ONLY = ['setup', 'env', 'redact-env', 'allow-noise', 'keep-nondeterministic'] as const;

export const command = defineCommand({
  name: 'record',
  synopsis: '--out <cassette> -- <server command...>',
  summary: 'record a real MCP server (stdio, or Streamable HTTP with --http), secrets redacted',
  options: OPTIONS,
  positionals: true,
  afterDashes: true,
  run: (parsed) => (parsed.values.http === undefined ? recordStdio(parsed) : recordHttp(parsed)),
});

/** `record --out <cassette> [--script <session.yaml>] [--force] [--redact-env NAME]... [--allow-noise] [--keep-nondeterministic] -- <server command...>`:
 *  between a client and the server (stdin and stdout), or with the SDK client playing a script;
 *  `record --out <cassette> --http <url> [--script <session.yaml>] [--port N] [--force]`: a proxy on
 *  127.0.0.1 in front of an HTTP server, for a client pointed at it or the SDK client playing a script. */
async function recordStdio(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  if (parsed.values.port !== undefined) throw new UsageError('--port is for a recording over HTTP (--http <url>)');
  const command = parsed.rest ?? parsed.positionals;
  const out = parsed.values.out;
  if (out === undefined || command.length === 0 || (parsed.rest !== undefined && parsed.positionals.length > 0)) {
    throw new UsageError('usage: theinference record --out <cassette> [--script <session.yaml>] [--force] [--redact-env NAME]... -- <server command...>');
  }
  const { record: recordSession } = await import('../transports/stdio/recorder.ts');
  const options = {
    out,
    command,
    ...(parsed.values.setup !== undefined && { setup: parsed.values.setup }),
    serverEnv: await serverEnv(parsed.values.env ?? []),
    force: parsed.values.force === true,
    redactEnv: parsed.values['redact-env'] ?? [],
    allowNoise: parsed.values['allow-noise'] === true,
    keepNondeterministic: parsed.values['keep-nondeterministic'] === true,
  };
  if (parsed.values.script === undefined) return recordSession(options);
  const { driveScript, loadScript } = await import('../cassette/recording/script.ts');
  const script = loadScript(parsed.values.script); // before the server starts: bad input changes nothing
  const { PassThrough } = await import('node:stream');
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  let recorderDone = false;
  let stopped: string | undefined;
  // A recorder that ended first (it refused, or the server died) ends the client's session too.
  const recorded = recordSession({ ...options, input: toServer, output: fromServer, cutShort: () => stopped }).then((code) => {
    recorderDone = true;
    fromServer.end();
    return code;
  });
  const played = driveScript(script, toServer, fromServer).catch((error: Error) => {
    // the session ends with what was recorded so far: cut short, so not a cassette (the recorder says why)
    if (!recorderDone) stopped = `the script stopped: ${error.message}`;
    toServer.end();
  });
  const [code] = await Promise.all([recorded, played]);
  return code;
}

/** `--env NAME=VALUE`s: kept in the cassette's provenance, so a secret is refused (pass it in the
 *  environment, where record finds and redacts it). */
async function serverEnv(entries: string[]): Promise<Record<string, string>> {
  const { looksLikeCredential } = await import('../cassette/recording/redact.ts');
  const env: Record<string, string> = {};
  for (const entry of entries) {
    const equals = entry.indexOf('=');
    if (equals <= 0) throw new UsageError(`--env ${entry}: expected NAME=VALUE`);
    const name = entry.slice(0, equals);
    if (looksLikeCredential(name)) {
      throw new UsageError(
        `--env ${name}: looks like a secret, and --env values are written to the cassette; set it in the environment instead, where record redacts it`,
      );
    }
    env[name] = entry.slice(equals + 1);
  }
  return env;
}

const HTTP_USAGE = 'usage: theinference record --http <server url> --out <cassette> [--script <session.yaml>] [--port N] [--force] [-- <server command...>]';

/** `record --http <url> --out <cassette> [--script <session.yaml>] [--port N] [--force] [-- <server command...>]`:
 *  with a server command, record starts the server for the URL (PORT set to its port; port 0 picks a
 *  free one), names it and its package in the provenance, and stops it once the cassette is written. */
async function recordHttp(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  const stdioOnly = STDIO_ONLY.find((name) => parsed.values[name] !== undefined);
  if (stdioOnly !== undefined) throw new UsageError(`--${stdioOnly} is for a recording over stdio (a server command after --, without --http)`);
  const command = parsed.rest;
  const { out, http } = parsed.values;
  if (out === undefined || http === undefined || command?.length === 0 || parsed.positionals.length > 0) throw new UsageError(HTTP_USAGE);
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
  // a server record starts listens here: its URL names this machine
  if (command !== undefined && !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname))
    throw new UsageError(`--http ${url.origin}: a server record starts listens on this machine: give a URL on 127.0.0.1`);
  const { loadScript } = await import('../cassette/recording/script.ts');
  // before anything starts or listens: bad input changes nothing
  const script = parsed.values.script === undefined ? undefined : loadScript(parsed.values.script);
  const force = parsed.values.force === true;
  if (command === undefined) return recordThrough({ out, upstream: http, port, force }, script);

  const refused = targetProblem(out, resolve(out), force);
  if (refused !== undefined) return said(refused, 2);
  const { startServer } = await import('../transports/http/started-server.ts');
  const { Roles } = await import('../authorization/index.ts');
  // what the server prints goes out with the authorization's tokens and codes replaced, as in the cassette
  const roles = new Roles();
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(command, url, { cwd: process.cwd(), env: process.env, log: (line) => say('record', roles.portable(line)) });
  } catch (error) {
    return said(`${(error as Error).message}; no cassette written`, 2);
  }
  try {
    return await recordThrough({ out, upstream: server.url.href, port, force, command, roles, provenance: { url: publicUrl(url) } }, script);
  } finally {
    await server.stop();
  }
}

function said(line: string, code: number): number {
  say('record', line);
  return code;
}

/** The session recorded through the proxy: a client's, pointed at it, or the script's. */
async function recordThrough(options: HttpRecordOptions, script: SessionScript | undefined): Promise<number> {
  const { recordHttpSession } = await import('../transports/http/recorder.ts');
  if (script === undefined) return recordHttpSession(options);
  const { driveScriptOverHttp } = await import('../cassette/recording/script.ts');
  // a server behind OAuth is authorized as it asks, as a course client would
  const { scriptOAuth } = await import('../authorization/index.ts');
  const stop = new AbortController();
  let recorderDone = false;
  let stopped: string | undefined;
  let played: Promise<void> = Promise.resolve();
  const recorded = recordHttpSession({
    ...options,
    stop: stop.signal,
    cutShort: () => stopped,
    // The client starts once the recorder listens; a recorder that refused to start never calls it.
    onListening: (proxy) => {
      played = driveScriptOverHttp(script, proxy, scriptOAuth())
        .catch((error: Error) => {
          // cut short: what was recorded goes to .partial, and the recorder says why
          if (!recorderDone) stopped = `the script stopped: ${error.message}`;
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
