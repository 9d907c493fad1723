// Cassette format (version 2, and version 1, which it extends), as read: loading validates everything
// the player relies on and names file, line and field on error. save.ts writes it.
import { readAuthFrame } from './auth-frame.ts';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { writeAtomically } from '../../files.ts';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { InputError } from '../../errors.ts';
import { parsePath, type Segment } from '../../exchange/json-path.ts';
import { ownModule } from '../../own-module.ts';
import {
  CASSETTE_VERSION,
  isObject,
  kindOf,
  compactLine,
  type Cassette,
  type ClientFrame,
  type Frame,
  type ServerFrame,
  type JsonObject,
  type Provenance,
  type Headers,
  type HttpCarrier,
  type HttpPlacement,
  type HttpReply,
  type HttpSession,
  type CassetteTransport,
  type CassetteVersion,
} from './model.ts';

// The YAML library is loaded on first use: a replay whose cassette is cached never needs it.
type Yaml = typeof import('yaml');
let yamlLibrary: Yaml | undefined;
const yaml = (): Yaml => (yamlLibrary ??= createRequire(import.meta.url)('yaml') as Yaml);

/** Bad input in a cassette file: says which file, which line and which field. */
export class CassetteError extends InputError {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${file}${line === undefined ? '' : `:${line}`}: ${field}: ${problem}`);
    this.name = 'CassetteError';
  }
}

export interface CassetteLoadOptions {
  /** Read and write the parse cache under node_modules/.cache. Only for tools that decide no verdict
   *  (replay, lint, verify): a graded program that runs without a sandbox could write there, so the
   *  grader parses for itself and keeps what it parsed in memory only. */
  diskCache?: boolean;
}

/** Parsed in this process, by the file's text: the grader and watch mode read each cassette's YAML once. */
const parsedHere = new Map<string, Cassette>();

export function loadCassette(file: string, options: CassetteLoadOptions = { diskCache: true }): Cassette {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CassetteError(file, undefined, '(file)', code === 'ENOENT' ? 'no such file' : `cannot read (${code})`);
  }
  if (!options.diskCache) {
    const known = parsedHere.get(text);
    if (known) return { ...known, file };
    const cassette = parseCassette(text, file);
    parsedHere.set(text, cassette);
    return cassette;
  }
  const cached = readCache(text);
  if (cached) return { ...cached, file };
  const cassette = parseCassette(text, file);
  writeCache(text, cassette);
  return cassette;
}

// A validated cassette is kept as JSON, keyed by the file's text and this parser's own source, so
// that a replay that starts for every test case does not parse the same YAML again (YAML parsing
// is most of a replay's start-up). Any change to the file or to the parser misses the cache.
const CACHE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'node_modules', '.cache', 'theinference', 'cassettes');
let parserSource: string | undefined;

function cachePath(text: string): string {
  parserSource ??= ['./format', './model', './json-path'].map((name) => readFileSync(ownModule(import.meta.url, name), 'utf8')).join('\0');
  return join(CACHE_DIR, `${createHash('sha256').update(parserSource).update('\0').update(text).digest('hex').slice(0, 32)}.json`);
}

function readCache(text: string): Cassette | undefined {
  try {
    return JSON.parse(readFileSync(cachePath(text), 'utf8')) as Cassette;
  } catch {
    return undefined;
  }
}

function writeCache(text: string, cassette: Cassette): void {
  try {
    mkdirSync(CACHE_DIR, { recursive: true });
    const { file: _file, ...rest } = cassette;
    writeAtomically(cachePath(text), JSON.stringify(rest), { overwrite: true });
  } catch {
    // a cache that cannot be written only costs time
  }
}

export function parseCassette(text: string, file = '(cassette)'): Cassette {
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, schema: 'core' });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    const line = lineCounter.linePos(error.pos[0]).line;
    throw new CassetteError(file, line, '(yaml)', error.message.split('\n')[0]!.replace(/:$/, ''));
  }
  const lineOf = (path: Segment[]): number | undefined => {
    for (let end = path.length; end >= 0; end--) {
      const node = end === 0 ? doc.contents : doc.getIn(path.slice(0, end), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    return undefined;
  };
  const fail = (path: Segment[], problem: string): never => {
    throw new CassetteError(file, lineOf(path), fieldName(path), problem);
  };
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    fail([], (error as Error).message);
  }
  if (!isObject(root)) return fail([], 'expected a mapping with version, transport, provenance and frames');
  checkKeys(root, ['version', 'transport', 'provenance', 'http', 'free', 'frames'], [], fail);

  const version = root.version;
  if (version !== 1 && version !== 2) {
    if (typeof version === 'number' && version > CASSETTE_VERSION) {
      fail(['version'], `this file is cassette version ${version}; this theinference reads versions 1 and 2 (update theinference)`);
    }
    fail(['version'], `expected 1 or 2, got ${JSON.stringify(version ?? null)}`);
  }
  const transports: CassetteTransport[] = version === 1 ? ['stdio'] : ['stdio', 'http'];
  const transport = root.transport as CassetteTransport;
  if (!transports.includes(transport)) {
    fail(
      ['transport'],
      `expected ${transports.map((name) => `"${name}"`).join(' or ')}${version === 1 ? ' (version 1 is stdio only)' : ''}, got ${JSON.stringify(root.transport ?? null)}`,
    );
  }
  const provenance = readProvenance(root.provenance, transport, fail);
  if (root.http !== undefined && transport !== 'http') fail(['http'], 'only an HTTP cassette (transport: http) has this');
  const http = transport === 'http' ? readHttpSession(root.http, fail) : undefined;
  const free = root.free === undefined ? undefined : readPaths(root.free, ['free'], fail);
  if (!Array.isArray(root.frames)) return fail(['frames'], 'expected a list of frames');
  const frames = root.frames.map((entry, index) => readFrame(entry, index, transport, fail, lineOf));
  const cassette: Cassette = { version: version as CassetteVersion, transport, provenance, ...(http && { http }), frames, file };
  if (free) cassette.free = free;
  readComments(doc, cassette);
  return cassette;
}

/** Stops reading a file: the problem at a path of its YAML (said with the line it is on). */
export type Fail = (path: Segment[], problem: string) => never;

/** A person's comments, where a saved cassette has them again: at the top of the file, and just above
 *  a frame (yaml puts the first frame's on the list itself). Comments elsewhere are not kept. */
function readComments(doc: ReturnType<Yaml['parseDocument']>, cassette: Cassette): void {
  const { isMap, isSeq } = yaml();
  const firstKey = isMap(doc.contents) ? (doc.contents.items[0]?.key as { commentBefore?: string | null } | undefined) : undefined;
  const top = doc.commentBefore ?? firstKey?.commentBefore;
  if (top) cassette.comment = top;
  const list = doc.get('frames', true);
  if (!isSeq(list)) return;
  list.items.forEach((item, index) => {
    const comment = (item as { commentBefore?: string | null }).commentBefore ?? (index === 0 ? list.commentBefore : undefined);
    const frame = cassette.frames[index];
    if (comment && frame) frame.comment = comment;
  });
}

function fieldName(path: Segment[]): string {
  if (path.length === 0) return '(top level)';
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`)).join('');
}

function checkKeys(value: JsonObject, allowed: string[], path: Segment[], fail: Fail): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail([...path, key], `unknown field (expected one of: ${allowed.join(', ')})`);
  }
}

function readProvenance(value: unknown, transport: CassetteTransport, fail: Fail): Provenance {
  const path = ['provenance'];
  const needed = transport === 'stdio' ? 'command' : 'url';
  if (!isObject(value)) return fail(path, `expected a mapping with ${needed} and recorded`);
  checkKeys(value, ['command', 'url', 'package', 'packageVersion', 'recorded', 'recorder', 'note', 'setup', 'env'], path, fail);
  const { command, recorded } = value;
  if (command === undefined ? transport === 'stdio' : !Array.isArray(command) || command.length === 0 || !command.every((part) => typeof part === 'string')) {
    fail([...path, 'command'], 'expected a non-empty list of strings (the server command and its arguments)');
  }
  if (value.url === undefined ? transport === 'http' : typeof value.url !== 'string' || !/^https?:\/\/[^\s]+$/.test(value.url)) {
    fail([...path, 'url'], 'expected the URL the server was recorded at (http:// or https://)');
  }
  if (typeof recorded !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(recorded)) fail([...path, 'recorded'], 'expected a date, YYYY-MM-DD');
  const provenance: Provenance = { ...(command !== undefined && { command: command as string[] }), recorded: recorded as string };
  for (const key of ['url', 'package', 'packageVersion', 'recorder', 'note', 'setup'] as const) {
    const field = value[key];
    if (field === undefined) continue;
    if (typeof field !== 'string') fail([...path, key], 'expected a string');
    provenance[key] = field as string;
  }
  const { env } = value;
  if (env !== undefined) {
    if (!isObject(env) || !Object.values(env).every((item) => typeof item === 'string'))
      fail([...path, 'env'], 'expected a mapping of variable names to strings');
    provenance.env = env as Record<string, string>;
  }
  return provenance;
}

function readPaths(value: unknown, path: Segment[], fail: Fail): string[] {
  if (!Array.isArray(value)) return fail(path, 'expected a list of JSON paths such as params.clientInfo');
  return value.map((item, i) => {
    if (typeof item !== 'string') return fail([...path, i], 'expected a JSON path (a string)');
    try {
      parsePath(item);
    } catch (error) {
      fail([...path, i], (error as Error).message);
    }
    return item;
  });
}

const FRAME_KEYS = {
  client: ['client', 'free', 'http'],
  server: ['server', 'free', 'raw', 'chunks', 'cuts', 'flush', 'http'],
  stdout: ['stdout', 'chunks', 'cuts', 'flush'],
  stderr: ['stderr'],
  sse: ['sse', 'http'],
  auth: ['auth', 'reply'],
} as const;

/** What each transport's frames may hold: the bytes of a stdio read mean nothing on HTTP, and an SSE event nothing on stdio. */
const CASSETTE_OF: Record<CassetteTransport, string> = { stdio: 'a stdio cassette', http: 'an HTTP cassette' };
const NOT_ON: Record<CassetteTransport, string[]> = { stdio: ['http', 'sse', 'auth'], http: ['raw', 'chunks', 'cuts', 'flush', 'stdout', 'stderr'] };

function readFrame(entry: unknown, index: number, transport: CassetteTransport, fail: Fail, lineOf: (path: Segment[]) => number | undefined): Frame {
  const path: Segment[] = ['frames', index];
  const kinds = Object.keys(FRAME_KEYS).join(', ');
  if (!isObject(entry)) return fail(path, `expected a mapping with one of ${kinds}`);
  const directions = (Object.keys(FRAME_KEYS) as (keyof typeof FRAME_KEYS)[]).filter((key) => key in entry);
  if (directions.length !== 1) fail(path, `expected exactly one of ${kinds}; got ${directions.length === 0 ? 'none' : directions.join(' and ')}`);
  const from = directions[0]!;
  checkKeys(entry, [...FRAME_KEYS[from]], path, fail);
  for (const key of NOT_ON[transport]) {
    if (key in entry)
      fail(
        [...path, key],
        `${CASSETTE_OF[transport]} has no ${key === 'sse' || key === 'stdout' || key === 'stderr' || key === 'auth' ? `${key} frames` : `${key} field`}`,
      );
  }
  const line = lineOf(path);
  if (from === 'auth') {
    const reading = {
      fail,
      checkKeys: (value: JsonObject, allowed: string[], at: Segment[]) => checkKeys(value, allowed, at, fail),
      readHeaders: (value: unknown, at: Segment[]) => readHeaders(value, at, fail),
    };
    return readAuthFrame(entry, path, reading, line);
  }
  if (from === 'sse') {
    if (entry.sse !== null && typeof entry.sse !== 'string') fail([...path, 'sse'], 'expected the data of the event (a string), or null for comments only');
    const http = readPlacement(entry.http, [...path, 'http'], fail);
    if (entry.sse === null && !http.comments) fail([...path, 'http', 'comments'], 'an event without data is a block of comments: give them');
    return { from, ...(entry.sse !== null && { data: entry.sse as string }), http, line };
  }
  if (from === 'client' || from === 'server') {
    const message = entry[from];
    checkMessage(message, [...path, from], fail);
    const frame: ClientFrame | ServerFrame =
      from === 'client' ? { from, message: message as JsonObject, line } : { from, message: message as JsonObject, line };
    if (entry.free !== undefined) frame.free = readPaths(entry.free, [...path, 'free'], fail);
    if (entry.http !== undefined) {
      if (frame.from === 'client') frame.http = readCarrier(entry.http, [...path, 'http'], fail);
      else frame.http = readPlacement(entry.http, [...path, 'http'], fail);
    }
    if (frame.from === 'server') {
      if (entry.raw !== undefined) {
        if (typeof entry.raw !== 'string') fail([...path, 'raw'], 'expected a string: the exact bytes the server wrote');
        const raw = entry.raw as string;
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          fail([...path, 'raw'], 'is not one JSON message; non-JSON output belongs in a stdout frame');
        }
        if (JSON.stringify(parsed) !== JSON.stringify(message)) fail([...path, 'raw'], "does not parse to the same message as the frame's server field");
        if (!raw.endsWith('\n')) fail([...path, 'raw'], 'must end with the line terminator the server wrote ("\\n" or "\\r\\n")');
        frame.raw = raw;
      }
      readChunks(entry, frame, frame.raw ?? compactLine(frame.message), path, fail);
    }
    return frame;
  }
  if (from === 'stdout') {
    if (typeof entry.stdout !== 'string' || entry.stdout === '') return fail([...path, 'stdout'], 'expected the exact bytes (a non-empty string)');
    const frame: Frame = { from, text: entry.stdout, line };
    readChunks(entry, frame, frame.text, path, fail);
    return frame;
  }
  if (typeof entry.stderr !== 'string') return fail([...path, 'stderr'], 'expected one line of text');
  return { from, text: entry.stderr, line };
}

function readChunks(entry: JsonObject, frame: { chunks?: string[]; cuts?: number[]; flush?: boolean }, bytes: string, path: Segment[], fail: Fail): void {
  if (entry.cuts !== undefined) {
    if (entry.chunks !== undefined) fail([...path, 'cuts'], 'give chunks or cuts, not both');
    const cuts = entry.cuts;
    const length = Buffer.byteLength(bytes);
    if (
      !Array.isArray(cuts) ||
      cuts.length === 0 ||
      !cuts.every((cut, i) => Number.isInteger(cut) && (cut as number) > (i === 0 ? 0 : (cuts[i - 1] as number)) && (cut as number) < length)
    ) {
      fail([...path, 'cuts'], `expected increasing byte offsets between 1 and ${length - 1} (the frame has ${length} bytes)`);
    }
    frame.cuts = cuts as number[];
  }
  if (entry.chunks !== undefined) {
    const chunks = entry.chunks;
    if (!Array.isArray(chunks) || chunks.length === 0 || !chunks.every((chunk) => typeof chunk === 'string' && chunk !== '')) {
      fail([...path, 'chunks'], 'expected a list of non-empty strings');
    }
    if ((chunks as string[]).join('') !== bytes) fail([...path, 'chunks'], "the chunks do not add up to the frame's bytes");
    frame.chunks = chunks as string[];
  }
  if (entry.flush !== undefined) {
    if (entry.flush !== false) fail([...path, 'flush'], 'only "flush: false" is meaningful (the next frame joins this read)');
    frame.flush = false;
  }
}

function readHttpSession(value: unknown, fail: Fail): HttpSession {
  const path = ['http'];
  if (!isObject(value)) return fail(path, 'expected a mapping with path (the path the client used), and the replies to get and delete');
  checkKeys(value, ['path', 'get', 'delete'], path, fail);
  if (typeof value.path !== 'string' || !value.path.startsWith('/')) fail([...path, 'path'], 'expected a path starting with "/" (e.g. /mcp)');
  const session: HttpSession = { path: value.path as string };
  for (const method of ['get', 'delete'] as const) {
    if (value[method] !== undefined) session[method] = readReply(value[method], [...path, method], fail);
  }
  return session;
}

function readCarrier(value: unknown, path: Segment[], fail: Fail): HttpCarrier {
  if (!isObject(value)) return fail(path, 'expected a mapping with path, headers and reply (the POST that carried the message)');
  checkKeys(value, ['path', 'headers', 'reply'], path, fail);
  if (typeof value.path !== 'string' || !value.path.startsWith('/')) fail([...path, 'path'], 'expected a path starting with "/"');
  return {
    path: value.path as string,
    ...(value.headers !== undefined && { headers: readHeaders(value.headers, [...path, 'headers'], fail) }),
    ...(value.reply !== undefined && { reply: readReply(value.reply, [...path, 'reply'], fail) }),
  };
}

const BODIES = ['json', 'sse', 'none', 'text'] as const;

function readReply(value: unknown, path: Segment[], fail: Fail): HttpReply {
  if (!isObject(value)) return fail(path, `expected a mapping with status, headers and body (${BODIES.join(', ')})`);
  checkKeys(value, ['status', 'headers', 'body', 'text'], path, fail);
  const { status, body } = value;
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) fail([...path, 'status'], 'expected an HTTP status (100 to 599)');
  if (!BODIES.includes(body as HttpReply['body'])) fail([...path, 'body'], `expected one of ${BODIES.join(', ')}`);
  if ((value.text !== undefined) !== (body === 'text')) fail([...path, 'text'], 'a text body, and only a text body, has its text');
  if (value.text !== undefined && typeof value.text !== 'string') fail([...path, 'text'], 'expected a string');
  return {
    status: status as number,
    ...(value.headers !== undefined && { headers: readHeaders(value.headers, [...path, 'headers'], fail) }),
    body: body as HttpReply['body'],
    ...(value.text !== undefined && { text: value.text as string }),
  };
}

function readHeaders(value: unknown, path: Segment[], fail: Fail): Headers {
  if (!isObject(value)) return fail(path, 'expected a mapping of header names to values');
  for (const [name, text] of Object.entries(value)) {
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) fail([...path, name], 'expected a header name in lower case');
    if (typeof text !== 'string' || /[\r\n]/.test(text)) fail([...path, name], 'expected the value as one line of text');
  }
  return value as Headers;
}

function readPlacement(value: unknown, path: Segment[], fail: Fail): HttpPlacement {
  if (value === undefined) return {};
  if (!isObject(value))
    return fail(
      path,
      'expected a mapping: request (the id whose POST stream carried it; none for the GET stream), id, event, retry, comments, lines, at, closes',
    );
  checkKeys(value, ['request', 'id', 'event', 'retry', 'comments', 'lines', 'at', 'cuts', 'closes'], path, fail);
  const placement: HttpPlacement = {};
  if (value.request !== undefined) {
    if (typeof value.request !== 'string' && typeof value.request !== 'number') fail([...path, 'request'], 'expected the recorded id of a client request');
    placement.request = value.request;
  }
  for (const key of ['id', 'event'] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== 'string' || /[\r\n]/.test(value[key] as string)) fail([...path, key], 'expected one line of text');
    placement[key] = value[key] as string;
  }
  if (value.retry !== undefined) {
    if (!Number.isInteger(value.retry) || (value.retry as number) < 0) fail([...path, 'retry'], 'expected milliseconds (an integer, 0 or more)');
    placement.retry = value.retry as number;
  }
  if (value.comments !== undefined) {
    const comments = value.comments;
    if (!Array.isArray(comments) || !comments.every((line) => typeof line === 'string' && !/[\r\n]/.test(line))) {
      fail([...path, 'comments'], 'expected a list of one-line strings');
    }
    placement.comments = comments as string[];
  }
  if (value.lines !== undefined) {
    if (value.lines !== 'crlf' && value.lines !== 'cr') fail([...path, 'lines'], 'expected crlf or cr (how the lines end; absent: LF)');
    placement.lines = value.lines as 'crlf' | 'cr';
  }
  if (value.cuts !== undefined) {
    const cuts = value.cuts;
    if (
      !Array.isArray(cuts) ||
      cuts.length === 0 ||
      !cuts.every((cut, i) => Number.isInteger(cut) && (cut as number) > (i === 0 ? 0 : (cuts[i - 1] as number)))
    ) {
      fail([...path, 'cuts'], 'expected increasing byte offsets into the event (1 or more)');
    }
    placement.cuts = cuts as number[];
  }
  if (value.at !== undefined) {
    if (typeof value.at !== 'number' || !(value.at >= 0)) fail([...path, 'at'], 'expected milliseconds since the session started (0 or more)');
    placement.at = value.at as number;
  }
  if (value.closes !== undefined) {
    if (value.closes !== true) fail([...path, 'closes'], 'expected true (the server closed the connection after this event), or no closes');
    if (placement.request === undefined) fail([...path, 'closes'], "expected on an event of a request's stream (one with request)");
    placement.closes = true;
  }
  return placement;
}

function checkMessage(message: unknown, path: Segment[], fail: Fail): void {
  if (!isObject(message)) return fail(path, 'expected a JSON-RPC message (a mapping)');
  if (message.jsonrpc !== '2.0') fail([...path, 'jsonrpc'], 'expected "2.0"');
  const kind = kindOf(message);
  if (kind === undefined) fail(path, 'expected a request (method, id), a notification (method) or a response (id, result or error)');
  if ('id' in message && typeof message.id !== 'string' && typeof message.id !== 'number' && !(kind === 'response' && message.id === null)) {
    fail([...path, 'id'], 'expected a string or a number');
  }
  if ('params' in message && !isObject(message.params) && !Array.isArray(message.params)) fail([...path, 'params'], 'expected a mapping');
}
