// `theinference verify <cassette>`: the cassette's client side played against the live server, and
// how the server has drifted from the recording. 0 no drift, 1 drift, 2 usage or bad input.
import { loadCassette, type Drift } from '../cassette/index.ts';
import { TRANSPORTS } from '../transports/index.ts';
import { UsageError } from '../errors.ts';
import { seconds } from './args.ts';
import { defineCommand, type Options, type Parsed } from './command.ts';
import { say } from './say.ts';

/** How long verify waits for each of the server's answers, unless `--timeout` says otherwise. */
const VERIFY_TIMEOUT_SECONDS = 10;

const OPTIONS = {
  url: { type: 'string', value: '<url>', help: 'an HTTP cassette: a running server to play it against (default: start the recorded command)' },
  timeout: { type: 'string', value: '<seconds>', help: 'wait this long for each answer (default 10)' },
  'redact-env': { type: 'string', multiple: true, value: '<NAME>', help: 'a variable whose value is a secret too (repeat for more)' },
} as const satisfies Options;

export const command = defineCommand({
  name: 'verify',
  synopsis: '<cassette> [-- <server command...>]',
  summary: "replay a cassette's client side against the live server (default: the recorded command)",
  options: OPTIONS,
  positionals: true,
  afterDashes: true,
  run: verify,
});

/** `verify <cassette> [--timeout <seconds>] [--redact-env NAME]... [-- <server command...> | --url <url>]`: 0 no drift,
 *  1 drift, 2 bad input. The server is the recorded command's, started here, unless another command
 *  is given, or (HTTP) the URL of one running. */
async function verify(parsed: Parsed<typeof OPTIONS>): Promise<number> {
  const [file, ...extra] = parsed.positionals;
  const given = parsed.rest ?? extra;
  if (file === undefined || (parsed.rest === undefined && extra.length > 0))
    throw new UsageError('usage: theinference verify <cassette> [--timeout <seconds>] [--redact-env NAME]... [-- <server command...> | --url <url>]');
  const timeoutMs = (parsed.values.timeout === undefined ? VERIFY_TIMEOUT_SECONDS : seconds('--timeout', parsed.values.timeout)) * 1000;
  const cassette = loadCassette(file);
  const transport = TRANSPORTS[cassette.transport];
  if (transport.verify === undefined) throw new UsageError(`${file}: a cassette over ${cassette.transport} cannot be verified`);
  const url = parsed.values.url;
  if (url !== undefined) {
    if (!transport.verifiesUrl)
      throw new UsageError(`--url is for a cassette whose server can run apart (over HTTP); a ${cassette.transport} one runs its server command`);
    if (given.length > 0) throw new UsageError('--url names a running server: give it or a server command to start, not both');
    if (!/^https?:\/\/\S+$/.test(url)) throw new UsageError(`--url takes the server's URL (http:// or https://), not "${url}"`);
  }
  // Without one, the server command is the recording's, run from here as it was typed in the project folder.
  const command = url !== undefined ? undefined : given.length > 0 ? given : cassette.provenance.command;
  if (url === undefined && command === undefined)
    throw new UsageError(
      `${file}: its provenance names no server command: ${transport.verifiesUrl ? "give the running server's URL with --url, or a command after --" : 'give one after --'}`,
    );
  if (command?.some((arg) => arg.includes('<redacted:')))
    throw new UsageError(`${file}: its recorded command has redacted secrets in it: give the server command after --`);
  const { secretsFromCommand, secretsFromEnv } = await import('../cassette/recording/redact.ts');
  // The secrets record would find in this run: never printed, sent where the cassette has their placeholders.
  const secrets = [...secretsFromEnv(process.env, parsed.values['redact-env'] ?? []), ...secretsFromCommand(command ?? [])];
  return sayDrift(file, await transport.verify(cassette, { ...(command && { command }), ...(url !== undefined && { url }), secrets }, { timeoutMs, file }));
}

function sayDrift(file: string, drift: Drift[]): number {
  for (const item of drift) say('verify', `${file}${item.line ? `:${item.line}` : ''}: ${item.message}`);
  if (drift.length === 0) process.stdout.write(`${file}: no drift\n`);
  return drift.length === 0 ? 0 : 1;
}
