// theinference record | replay | lint | verify: argv in, exit code out (0 ok, 1 drift or mismatch,
// 2 usage or bad input). Bad input is thrown as an InputError, which the CLI prints as one line
// naming file, line and field, as it does for every command.
import { checkWritable, parse, seconds } from '../commands/args.ts';
import { HostError, InputError, UsageError } from '../errors.ts';
// Each command imports what it needs when it runs: a replay starts for every test case.
import { formatDiagnosis, moreDiagnosesLine, type Diagnosis, type PlayReport } from './diagnosis.ts';
import { writeAtomically } from '../files.ts';
import { CassetteError, loadCassette } from './format.ts';
import type { Cassette } from './model.ts';
import type { PlayerSession } from './session.ts';
import type { Drift } from './verify.ts';
import { escapeControls } from '../terminal-text.ts';

/** One line each; what it quotes (a client's line, a cassette's text) cannot drive the terminal. */
const say = (command: string, line: string) => process.stderr.write(`theinference ${command}: ${escapeControls(line)}\n`);

/** For lint, which goes on to the next file: a cassette that does not load is said, not thrown. */
function load(command: string, file: string): Cassette | undefined {
  try {
    return loadCassette(file);
  } catch (error) {
    if (!(error instanceof CassetteError)) throw error;
    say(command, error.message);
    return undefined;
  }
}

/** `record --out <cassette> [--script <session.yaml>] [--force] [--redact-env NAME]... [--allow-noise] [--keep-nondeterministic] -- <server command...>`:
 *  between a client and the server (stdin and stdout), or with the SDK client playing a script;
 *  `record --out <cassette> --http <url> [--script <session.yaml>] [--port N] [--force]`: a proxy on
 *  127.0.0.1 in front of an HTTP server, for a client pointed at it or the SDK client playing a script. */
export async function record(args: string[]): Promise<number> {
  const split = args.indexOf('--');
  if ((split === -1 ? args : args.slice(0, split)).some((arg) => arg === '--http' || arg.startsWith('--http='))) {
    const { recordHttp } = await import('./http-record-command.ts');
    return recordHttp(args);
  }
  const parsed = parse(
    split === -1 ? args : args.slice(0, split),
    {
      out: { type: 'string' },
      script: { type: 'string' },
      setup: { type: 'string' },
      env: { type: 'string', multiple: true },
      force: { type: 'boolean' },
      'redact-env': { type: 'string', multiple: true },
      'allow-noise': { type: 'boolean' },
      'keep-nondeterministic': { type: 'boolean' },
    },
    { positionals: true },
  );
  const command = split === -1 ? parsed.positionals : args.slice(split + 1);
  const out = parsed.values.out;
  if (out === undefined || command.length === 0 || (split !== -1 && parsed.positionals.length > 0)) {
    throw new UsageError('usage: theinference record --out <cassette> [--script <session.yaml>] [--force] [--redact-env NAME]... -- <server command...>');
  }
  const { record: recordSession } = await import('./recorder.ts');
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
  const { driveScript, loadScript } = await import('./script.ts');
  const script = loadScript(parsed.values.script); // before the server starts: bad input changes nothing
  const { PassThrough } = await import('node:stream');
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  let recorderDone = false;
  // A recorder that ended first (it refused, or the server died) ends the client's session too.
  const recorded = recordSession({ ...options, input: toServer, output: fromServer }).then((code) => {
    recorderDone = true;
    fromServer.end();
    return code;
  });
  const played = driveScript(script, toServer, fromServer).catch((error: Error) => {
    if (!recorderDone) say('record', `the script stopped: ${error.message}`);
    toServer.end(); // the session ends with what was recorded so far
  });
  const [code] = await Promise.all([recorded, played]);
  return code;
}

/** `--env NAME=VALUE`s: kept in the cassette's provenance, so a secret is refused (pass it in the
 *  environment, where record finds and redacts it). */
async function serverEnv(entries: string[]): Promise<Record<string, string>> {
  const { looksLikeCredential } = await import('./redact.ts');
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

/** What starts each line the recorded server wrote on stderr, as replay relays it. */
export const SERVER_STDERR = '[server] ';

const REPLAY_USAGE =
  'usage: theinference replay <cassette> [--stdio | --http [--port N] [--pace recorded|none]] [--report <file>] [--html <file>] [--no-validate]';

/** `replay <cassette> [--stdio | --http [--port N] [--pace recorded|none]] [--report <file>] [--html <file>] [--no-validate]`:
 *  an MCP server that plays the cassette, over the transport it was recorded on unless told (stdio
 *  on stdin and stdout; Streamable HTTP on 127.0.0.1, its URL printed on stdout, until the client's
 *  DELETE or, where the replay gave no session, until every recorded client message was played); at
 *  the end, the play report as JSON and the session drawn as a page. */
export async function replay(args: string[]): Promise<number> {
  const parsed = parse(
    args,
    {
      report: { type: 'string' },
      html: { type: 'string' },
      'no-validate': { type: 'boolean' },
      stdio: { type: 'boolean' },
      http: { type: 'boolean' },
      port: { type: 'string' },
      pace: { type: 'string' },
    },
    { positionals: true },
  );
  const [file, ...extra] = parsed.positionals;
  if (file === undefined || extra.length > 0 || (parsed.values.stdio && parsed.values.http)) throw new UsageError(REPLAY_USAGE);
  const { report: reportFile, html: htmlFile } = parsed.values;
  // Before playing: a client cannot be asked to run again.
  if (reportFile !== undefined) checkWritable('--report', reportFile);
  if (htmlFile !== undefined) checkWritable('--html', htmlFile);
  const port = parsed.values.port === undefined ? 0 : portNumber(parsed.values.port);
  const cassette = loadCassette(file);
  const overHttp = parsed.values.http === true || (cassette.transport === 'http' && parsed.values.stdio !== true);
  if (parsed.values.port !== undefined && !overHttp) throw new UsageError('--port is for a replay over HTTP (an HTTP cassette, or --http)');
  const pace = parsed.values.pace;
  if (pace !== undefined && pace !== 'recorded' && pace !== 'none') throw new UsageError(`--pace takes recorded or none, not "${pace}"`);
  if (pace !== undefined && !overHttp) throw new UsageError('--pace is for a replay over HTTP (an HTTP cassette, or --http)');
  const options = {
    validate: parsed.values['no-validate'] !== true,
    // The recorded server's stderr, marked as its own: a diagnosis starts with "theinference replay:".
    onStderr: (line: string) => process.stderr.write(`${SERVER_STDERR}${escapeControls(line)}\n`),
    onDiagnosis: (diagnosis: Diagnosis) => say('replay', formatDiagnosis(diagnosis)),
  };
  let session: PlayerSession;
  let close = async () => {};
  if (overHttp) {
    const { serveCassette } = await import('./http-face.ts');
    let served: Awaited<ReturnType<typeof serveCassette>>;
    try {
      served = await serveCassette(cassette, { ...options, port, endWhenPlayed: true, ...(pace && { pace }) });
    } catch (error) {
      throw new HostError((error as Error).message);
    }
    process.stdout.write(`${served.url}\n`);
    session = served;
    close = () => served.close();
  } else {
    const { attachStreams } = await import('./stream-face.ts');
    session = attachStreams(cassette, process.stdin, process.stdout, { ...options, endOutput: false });
  }
  const stop = () => session.finish();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const report = await session.done;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  await close();
  process.stdin.destroy();
  const more = moreDiagnosesLine(report);
  if (more) say('replay', more);
  // a SHOULD not followed: said, and the exit code stays what the MUSTs make it
  for (const advice of report.advice) say('replay', `advice: ${formatDiagnosis(advice)}`);
  if (reportFile !== undefined) writeAtomically(reportFile, JSON.stringify(report, null, 2) + '\n', { overwrite: true });
  if (htmlFile !== undefined) {
    const { sessionHtml } = await import('../report/html.ts');
    writeAtomically(htmlFile, sessionHtml(report, file), { overwrite: true });
  }
  return exitCodeOf(report);
}

/** `--port N`: 0 (any free port) to 65535. */
function portNumber(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port takes a port number (0 for a free one), not "${text}"`);
  return port;
}

export function exitCodeOf(report: PlayReport): number {
  return report.ok ? 0 : 1;
}

/** `lint <cassette>...`: load and check each; 0 when all are sound. */
export async function lint(args: string[]): Promise<number> {
  const parsed = parse(args, {}, { positionals: true });
  if (parsed.positionals.length === 0) throw new UsageError('usage: theinference lint <cassette>...');
  const { lintCassette } = await import('./lint.ts');
  let code = 0;
  for (const file of parsed.positionals) {
    const cassette = load('lint', file);
    if (!cassette) {
      code = 2;
      continue;
    }
    const problems = lintCassette(cassette);
    for (const problem of problems) say('lint', `${file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
    if (problems.length > 0) code = Math.max(code, 1);
    else {
      const clients = cassette.frames.filter((frame) => frame.from === 'client').length;
      process.stdout.write(`${file}: ok (${cassette.frames.length} frames, ${clients} client messages)\n`);
    }
  }
  return code;
}

/** How long verify waits for each of the server's answers, unless `--timeout` says otherwise. */
const VERIFY_TIMEOUT_SECONDS = 10;

/** `verify <cassette> [--timeout <seconds>] [--redact-env NAME]... [-- <server command...> | --url <url>]`: 0 no drift,
 *  1 drift, 2 bad input. The server is the recorded command's, started here, unless another command
 *  is given, or (HTTP) the URL of one running. */
export async function verify(args: string[]): Promise<number> {
  const split = args.indexOf('--');
  const parsed = parse(
    split === -1 ? args : args.slice(0, split),
    { timeout: { type: 'string' }, 'redact-env': { type: 'string', multiple: true }, url: { type: 'string' } },
    { positionals: true },
  );
  const [file, ...extra] = parsed.positionals;
  const given = split === -1 ? extra : args.slice(split + 1);
  if (file === undefined || (split === -1 && extra.length > 0))
    throw new UsageError('usage: theinference verify <cassette> [--timeout <seconds>] [--redact-env NAME]... [-- <server command...> | --url <url>]');
  const timeoutMs = (parsed.values.timeout === undefined ? VERIFY_TIMEOUT_SECONDS : seconds('--timeout', parsed.values.timeout)) * 1000;
  const cassette = loadCassette(file);
  if (cassette.transport === 'http') {
    const url = parsed.values.url;
    const { verifyHttpCassette } = await import('./verify.ts');
    if (url !== undefined) {
      if (given.length > 0) throw new UsageError('--url names a running server: give it or a server command to start, not both');
      if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError(`--url takes the server's URL (http:// or https://), not "${url}"`);
      return sayDrift(file, await verifyHttpCassette(cassette, url, { timeoutMs }));
    }
    // Else the server is started here, on a free port (given it in PORT), as record started it.
    const command = given.length > 0 ? given : cassette.provenance.command;
    if (command === undefined)
      throw new UsageError(`${file}: its provenance names no server command: give the running server's URL with --url, or a command after --`);
    if (command.some((arg) => arg.includes('<redacted:')))
      throw new UsageError(`${file}: its recorded command has redacted secrets in it: give the server command after --`);
    const { startServer } = await import('./started-server.ts');
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer(command, new URL(`http://127.0.0.1:0${cassette.http?.path ?? '/mcp'}`), {
        cwd: process.cwd(),
        env: process.env,
        log: () => {}, // what the server prints is not the drift
      });
    } catch (error) {
      throw new InputError(`${file}: ${(error as Error).message}`);
    }
    try {
      return sayDrift(file, await verifyHttpCassette(cassette, server.url.href, { timeoutMs }));
    } finally {
      await server.stop();
    }
  }
  if (parsed.values.url !== undefined) throw new UsageError('--url is for an HTTP cassette; a stdio one runs its server command');
  // Without one, the server command is the recording's, run from here as it was typed in the project folder.
  const command = given.length > 0 ? given : cassette.provenance.command;
  if (command === undefined) throw new UsageError(`${file}: its provenance names no server command: give one after --`);
  if (command.some((arg) => arg.includes('<redacted:'))) {
    throw new UsageError(`${file}: its recorded command has redacted secrets in it: give the server command after --`);
  }
  const { verifyCassette } = await import('./verify.ts');
  const { secretsFromCommand, secretsFromEnv } = await import('./redact.ts');
  // The secrets record would find in this run: never printed, sent where the cassette has their placeholders.
  const secrets = [...secretsFromEnv(process.env, parsed.values['redact-env'] ?? []), ...secretsFromCommand(command)];
  return sayDrift(file, await verifyCassette(cassette, command, { timeoutMs, secrets }));
}

function sayDrift(file: string, drift: Drift[]): number {
  for (const item of drift) say('verify', `${file}${item.line ? `:${item.line}` : ''}: ${item.message}`);
  if (drift.length === 0) process.stdout.write(`${file}: no drift\n`);
  return drift.length === 0 ? 0 : 1;
}
