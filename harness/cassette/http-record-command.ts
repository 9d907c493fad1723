// `theinference record --http <url> --out <cassette> [--script <session.yaml>] [--port N] [--force]`:
// argv in, exit code out (0 written, 1 a session that was not clean, `.partial` written; 2 usage or
// bad input). With --script, the official SDK client plays the script's steps through the recorder
// over Streamable HTTP and ends the session with DELETE, which writes the cassette.
import { integer, parse } from '../commands/args.ts';
import { UsageError } from '../errors.ts';
import { escapeControls } from '../terminal-text.ts';

const USAGE = 'usage: theinference record --http <server url> --out <cassette> [--script <session.yaml>] [--port N] [--force]';

export async function recordHttp(args: string[]): Promise<number> {
  const parsed = parse(args, {
    out: { type: 'string' },
    http: { type: 'string' },
    script: { type: 'string' },
    port: { type: 'string' },
    force: { type: 'boolean' },
  });
  const { out, http } = parsed.values;
  if (out === undefined || http === undefined) throw new UsageError(USAGE);
  const port = parsed.values.port === undefined ? 0 : integer('--port', parsed.values.port);
  if (port < 0 || port > 65535) throw new UsageError(`--port takes a whole number from 0 to 65535, not "${parsed.values.port}"`);
  let url: URL;
  try {
    url = new URL(http);
  } catch {
    throw new UsageError("--http takes the server's URL, e.g. http://127.0.0.1:3001/mcp");
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--http takes an http: or https: URL, not a ${url.protocol} one`);
  const { recordHttpSession } = await import('./http-recorder.ts');
  const options = { out, upstream: http, port, force: parsed.values.force === true };
  if (parsed.values.script === undefined) return recordHttpSession(options);

  const { driveScriptOverHttp, loadScript } = await import('./script.ts');
  const script = loadScript(parsed.values.script); // before anything listens: bad input changes nothing
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
