// `theinference record --http <url> --out <cassette> [--port N] [--force]`: argv in, exit code out
// (0 written, 1 a session that was not clean, `.partial` written; 2 usage or bad input).
import { integer, parse } from '../commands/args.ts';
import { UsageError } from '../errors.ts';

const USAGE = 'usage: theinference record --http <server url> --out <cassette> [--port N] [--force]';

export async function recordHttp(args: string[]): Promise<number> {
  const parsed = parse(args, { out: { type: 'string' }, http: { type: 'string' }, port: { type: 'string' }, force: { type: 'boolean' } });
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
  return recordHttpSession({ out, upstream: http, port, force: parsed.values.force === true });
}
