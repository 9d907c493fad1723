// `theinference replay <cassette>`: an MCP server that plays a cassette to any client, over stdio or
// Streamable HTTP. Exit 0 when nothing was diagnosed, 1 when something was, 2 usage or bad input.
// It imports what it needs when it runs: a replay starts for every test case.
import { formatDiagnosis, loadCassette, moreDiagnosesLine, type Diagnosis, type PlayReport } from '../cassette/index.ts';
import { HostError, UsageError } from '../errors.ts';
import { writeAtomically } from '../files.ts';
import { escapeControls } from '../terminal-text.ts';
import { TRANSPORTS, TRANSPORT_NAMES } from '../transports/index.ts';
import type { Served, ServeOptions } from '../transports/transport.ts';
import { checkWritable } from './args.ts';
import { defineCommand, type Options, type Parsed } from './command.ts';
import { say } from './say.ts';

/** What starts each line the recorded server wrote on stderr, as replay relays it. */
export const SERVER_STDERR = '[server] ';

const REPLAY_USAGE =
  'usage: theinference replay <cassette> [--stdio | --http [--port N] [--pace recorded|none]] [--report <file>] [--html <file>] [--no-validate]';

const OPTIONS = {
  stdio: { type: 'boolean', help: 'over stdio (stdin and stdout)' },
  http: { type: 'boolean', help: 'over Streamable HTTP on 127.0.0.1 (its URL printed on stdout)' },
  port: { type: 'string', value: '<n>', help: 'over HTTP: the port to listen on (default: a free one)' },
  pace: { type: 'string', value: 'recorded|none', help: 'over HTTP: keep the recorded gaps between events (default: none, at once)' },
  report: { type: 'string', value: '<file>', help: 'write what it found as JSON' },
  html: { type: 'string', value: '<file>', help: 'write the session drawn' },
  'no-validate': { type: 'boolean', help: "do not check the client's messages against the MCP schema" },
} as const satisfies Options;

export const command = defineCommand({
  name: 'replay',
  synopsis: '<cassette>',
  summary: 'play a cassette as an MCP server, over the transport it was recorded on (diagnoses on stderr)',
  options: OPTIONS,
  positionals: true,
  run: replay,
});

/** `replay <cassette> [--stdio | --http [--port N] [--pace recorded|none]] [--report <file>] [--html <file>] [--no-validate]`:
 *  an MCP server that plays the cassette, over the transport it was recorded on unless told (stdio
 *  on stdin and stdout; Streamable HTTP on 127.0.0.1, its URL printed on stdout, until the client's
 *  DELETE or, where the replay gave no session, until every recorded client message was played); at
 *  the end, the play report as JSON and the session drawn as a page. */
async function replay(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  const [file, ...extra] = parsed.positionals;
  if (file === undefined || extra.length > 0 || (parsed.values.stdio && parsed.values.http)) throw new UsageError(REPLAY_USAGE);
  const { report: reportFile, html: htmlFile } = parsed.values;
  // Before playing: a client cannot be asked to run again.
  if (reportFile !== undefined) checkWritable('--report', reportFile);
  if (htmlFile !== undefined) checkWritable('--html', htmlFile);
  const port = parsed.values.port === undefined ? undefined : portNumber(parsed.values.port);
  const cassette = loadCassette(file);
  const over = parsed.values.http === true ? 'http' : parsed.values.stdio === true ? 'stdio' : cassette.transport;
  const transport = TRANSPORTS[over];
  const pace = parsed.values.pace;
  if (port !== undefined && !transport.serveOptions?.includes('port')) throw new UsageError(`--port is for a replay over ${takersOf('port')}`);
  if (pace !== undefined && pace !== 'recorded' && pace !== 'none') throw new UsageError(`--pace takes recorded or none, not "${pace}"`);
  if (pace !== undefined && !transport.serveOptions?.includes('pace')) throw new UsageError(`--pace is for a replay over ${takersOf('pace')}`);
  if (transport.serve === undefined) throw new UsageError(`a cassette cannot be replayed over ${over}`);
  const options: ServeOptions = {
    validate: parsed.values['no-validate'] !== true,
    // The recorded server's stderr, marked as its own: a diagnosis starts with "theinference replay:".
    onStderr: (line: string) => process.stderr.write(`${SERVER_STDERR}${escapeControls(line)}\n`),
    onDiagnosis: (diagnosis: Diagnosis) => say('replay', formatDiagnosis(diagnosis)),
    ...(port !== undefined && { port }),
    ...(pace && { pace }),
  };
  let served: Served;
  try {
    served = await transport.serve(cassette, options);
  } catch (error) {
    throw new HostError((error as Error).message);
  }
  if (served.where !== undefined) process.stdout.write(`${served.where}\n`);
  const { session } = served;
  const stop = () => session.finish();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  const report = await session.done;
  process.off('SIGTERM', stop);
  process.off('SIGINT', stop);
  await served.close();
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

/** The transports that take a replay option, as a person names them: `HTTP (an HTTP cassette, or --http)`. */
function takersOf(option: keyof ServeOptions): string {
  const names = TRANSPORT_NAMES.filter((name) => TRANSPORTS[name].serveOptions?.includes(option));
  return names.map((name) => `${name.toUpperCase()} (an ${name.toUpperCase()} cassette, or --${name})`).join(' or ');
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
