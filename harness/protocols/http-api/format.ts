// The recording format, as read: YAML in the cassettes' conventions (a version, a provenance block,
// the person's comments kept, every error naming file, line and field, and what was expected). It
// validates all the player relies on, so that a recording that loads plays; nothing is written.
import { readFileSync } from 'node:fs';
import { isMap, isSeq, LineCounter, parseDocument } from 'yaml';
import { CassetteError, type Fail } from '../../cassette/index.ts';
import { isObject, type Segment } from '../../exchange/json-path.ts';
import type { Json, JsonObject } from '../../json.ts';
import {
  APIS,
  type ApiName,
  type HeaderMap,
  RECORDING_VERSION,
  REQUEST_HEADERS,
  type RecordedEvent,
  type RecordedExchange,
  type RecordedRequest,
  type RecordedResponse,
  type ApiRecording,
  type RecordingProvenance,
} from './model.ts';
import { recordedProblem } from './rules.ts';
import { formatEvent } from './stream.ts';

export function loadRecording(file: string): ApiRecording {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CassetteError(file, undefined, '(file)', code === 'ENOENT' ? 'no such file' : `cannot read (${code})`);
  }
  return parseRecording(text, file);
}

export function parseRecording(text: string, file = '(recording)'): ApiRecording {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, schema: 'core' });
  if (doc.errors.length > 0) {
    const error = doc.errors[0]!;
    throw new CassetteError(file, lineCounter.linePos(error.pos[0]).line, '(yaml)', error.message.split('\n')[0]!.replace(/:$/, ''));
  }
  const lineOf = (path: Segment[]): number | undefined => {
    for (let end = path.length; end >= 0; end--) {
      const node = end === 0 ? doc.contents : doc.getIn(path.slice(0, end), true);
      const range = (node as { range?: [number, number, number] } | null | undefined)?.range;
      if (range) return lineCounter.linePos(range[0]).line;
    }
    return undefined;
  };
  const fail: Fail = (path, problem) => {
    throw new CassetteError(file, lineOf(path), fieldName(path), problem);
  };
  let root: unknown;
  try {
    root = doc.toJS({ maxAliasCount: 1000 });
  } catch (error) {
    fail([], (error as Error).message);
  }
  if (!isObject(root)) return fail([], 'expected a mapping with version, protocol, api, provenance and exchanges');
  checkKeys(root, ['version', 'protocol', 'api', 'provenance', 'exchanges'], [], fail);
  if (root.version !== RECORDING_VERSION) {
    if (typeof root.version === 'number' && root.version > RECORDING_VERSION) {
      fail(['version'], `this file is recording version ${root.version}; this theinference reads version ${RECORDING_VERSION} (update theinference)`);
    }
    fail(['version'], `expected ${RECORDING_VERSION}, got ${JSON.stringify(root.version ?? null)}`);
  }
  if (root.protocol !== 'http-api')
    fail(['protocol'], `expected "http-api" (a recording of a JSON-over-HTTP API), got ${JSON.stringify(root.protocol ?? null)}`);
  if (!APIS.includes(root.api as ApiName)) fail(['api'], `expected one of ${APIS.join(', ')} (whose own rules the player holds)`);
  const api = root.api as ApiName;
  const provenance = readProvenance(root.provenance, fail);
  if (!Array.isArray(root.exchanges) || root.exchanges.length === 0)
    return fail(['exchanges'], 'expected a list of exchanges (request and response), at least one');
  const exchanges = root.exchanges.map((entry, index) => readExchange(entry, index, api, fail, lineOf));
  const recording: ApiRecording = { version: RECORDING_VERSION, api, provenance, exchanges, file };
  readComments(doc, recording);
  return recording;
}

/** The comment at the top of the file, and each just above an exchange (yaml puts the first one's on the list). */
function readComments(doc: ReturnType<typeof parseDocument>, recording: ApiRecording): void {
  const firstKey = isMap(doc.contents) ? (doc.contents.items[0]?.key as { commentBefore?: string | null } | undefined) : undefined;
  const top = doc.commentBefore ?? firstKey?.commentBefore;
  if (top) recording.comment = top;
  const list = doc.get('exchanges', true);
  if (!isSeq(list)) return;
  list.items.forEach((item, index) => {
    const comment = (item as { commentBefore?: string | null }).commentBefore ?? (index === 0 ? list.commentBefore : undefined);
    const exchange = recording.exchanges[index];
    if (comment && exchange) exchange.comment = comment;
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

function readProvenance(value: unknown, fail: Fail): RecordingProvenance {
  const path = ['provenance'];
  if (!isObject(value)) return fail(path, 'expected a mapping with url and recorded (and recorder, note)');
  checkKeys(value, ['url', 'recorded', 'recorder', 'note'], path, fail);
  if (typeof value.url !== 'string' || !/^https?:\/\/\S+$/.test(value.url)) fail([...path, 'url'], 'expected the URL of the API (http:// or https://)');
  if (typeof value.recorded !== 'string' || !/^\d{4}-\d{2}-\d{2}/.test(value.recorded)) fail([...path, 'recorded'], 'expected a date, YYYY-MM-DD');
  const provenance: RecordingProvenance = { url: value.url as string, recorded: value.recorded as string };
  for (const key of ['recorder', 'note'] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] !== 'string') fail([...path, key], 'expected a string');
    provenance[key] = value[key] as string;
  }
  return provenance;
}

function readExchange(entry: unknown, index: number, api: ApiName, fail: Fail, lineOf: (path: Segment[]) => number | undefined): RecordedExchange {
  const path: Segment[] = ['exchanges', index];
  if (!isObject(entry)) return fail(path, 'expected a mapping with request and response');
  checkKeys(entry, ['request', 'response'], path, fail);
  const request = readRequest(entry.request, [...path, 'request'], fail, lineOf);
  const problem = recordedProblem(api, request);
  if (problem) fail([...path, 'request', 'body', ...problem.path], `breaks the API's own rule, which the player holds on every request: ${problem.message}`);
  const response = readResponse(entry.response, [...path, 'response'], api, fail, lineOf);
  return { line: lineOf(path), request, response };
}

function readRequest(value: unknown, path: Segment[], fail: Fail, lineOf: (path: Segment[]) => number | undefined): RecordedRequest {
  if (!isObject(value)) return fail(path, 'expected a mapping with method, path, headers and body');
  checkKeys(value, ['method', 'path', 'headers', 'body'], path, fail);
  if (typeof value.method !== 'string' || !/^[A-Z]+$/.test(value.method)) fail([...path, 'method'], 'expected an HTTP method in capitals (POST)');
  if (typeof value.path !== 'string' || !/^\/\S*$/.test(value.path)) fail([...path, 'path'], 'expected a path starting with "/" (/v1/messages)');
  const headers = value.headers === undefined ? {} : readHeaders(value.headers, [...path, 'headers'], fail);
  for (const name of Object.keys(headers)) {
    if (name === 'x-api-key' || name === 'authorization')
      fail([...path, 'headers', name], 'a recording keeps no key: the player is given the fake key the program gets');
    if (!(REQUEST_HEADERS as readonly string[]).includes(name)) {
      fail(
        [...path, 'headers', name],
        `not a header the player compares (expected one of: ${REQUEST_HEADERS.join(', ')}); the client's own headers are not recorded`,
      );
    }
  }
  if (!isObject(value.body)) fail([...path, 'body'], 'expected the JSON body the client sent (a mapping)');
  return { method: value.method as string, path: value.path as string, headers, body: value.body as JsonObject, line: lineOf(path) };
}

function readResponse(value: unknown, path: Segment[], api: ApiName, fail: Fail, lineOf: (path: Segment[]) => number | undefined): RecordedResponse {
  if (!isObject(value)) return fail(path, 'expected a mapping with status, headers, and json, text or events');
  checkKeys(value, ['status', 'headers', 'json', 'text', 'events'], path, fail);
  const status = value.status;
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) fail([...path, 'status'], 'expected an HTTP status (100 to 599)');
  const headers = value.headers === undefined ? {} : readHeaders(value.headers, [...path, 'headers'], fail);
  const bodies = (['json', 'text', 'events'] as const).filter((key) => value[key] !== undefined);
  if (bodies.length !== 1)
    fail(
      path,
      `expected one body: json (a JSON value), text (a JSON body's exact text) or events (an event stream); got ${bodies.length === 0 ? 'none' : bodies.join(' and ')}`,
    );
  const line = lineOf(path);
  if (value.events !== undefined) {
    if (!Array.isArray(value.events) || value.events.length === 0) return fail([...path, 'events'], 'expected a list of events ({event, data}), at least one');
    const events = value.events.map((event, i) => readEvent(event, [...path, 'events', i], api, fail, lineOf));
    return { status: status as number, headers, body: { events }, line };
  }
  if (value.text !== undefined) {
    if (typeof value.text !== 'string') return fail([...path, 'text'], "expected the body's exact text (a string holding JSON)");
    return { status: status as number, headers, body: { json: parsedText(value.text, [...path, 'text'], fail), text: value.text }, line };
  }
  return { status: status as number, headers, body: { json: value.json as Json }, line };
}

function readEvent(value: unknown, path: Segment[], api: ApiName, fail: Fail, lineOf: (path: Segment[]) => number | undefined): RecordedEvent {
  if (!isObject(value)) return fail(path, 'expected a mapping with event and data (or text), and cuts');
  checkKeys(value, ['event', 'data', 'text', 'cuts'], path, fail);
  if (typeof value.event !== 'string' || value.event === '' || /[\r\n]/.test(value.event)) fail([...path, 'event'], "expected the event's name (one line)");
  if ((value.data === undefined) === (value.text === undefined)) fail(path, "expected data (a JSON value) or text (the data line's exact text), one of them");
  let data = value.data as Json;
  if (value.text !== undefined) {
    if (typeof value.text !== 'string' || /[\r\n]/.test(value.text))
      return fail([...path, 'text'], "expected the data line's exact text (one line holding JSON)");
    data = parsedText(value.text, [...path, 'text'], fail);
  }
  const event: RecordedEvent = { event: value.event as string, data, line: lineOf(path) };
  if (value.text !== undefined) event.text = value.text as string;
  if (api === 'anthropic-messages' && (!isObject(data) || data.type !== event.event)) {
    fail(
      [...path, value.text === undefined ? 'data' : 'text'],
      `expected a JSON object whose type is the event's name, "${event.event}" (as the Messages API sends them)`,
    );
  }
  if (value.cuts !== undefined) {
    const length = Buffer.byteLength(formatEvent(event));
    const cuts = value.cuts;
    if (
      !Array.isArray(cuts) ||
      cuts.length === 0 ||
      !cuts.every((cut, i) => Number.isInteger(cut) && (cut as number) > (i === 0 ? 0 : (cuts[i - 1] as number)) && (cut as number) < length)
    ) {
      fail([...path, 'cuts'], `expected increasing byte offsets between 1 and ${length - 1} (the event has ${length} bytes)`);
    }
    event.cuts = cuts as number[];
  }
  return event;
}

function parsedText(text: string, path: Segment[], fail: Fail): Json {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return fail(path, 'is not JSON');
  }
}

function readHeaders(value: unknown, path: Segment[], fail: Fail): HeaderMap {
  if (!isObject(value)) return fail(path, 'expected a mapping of header names (lower case) to values');
  for (const [name, text] of Object.entries(value)) {
    if (!/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(name)) fail([...path, name], 'expected a header name in lower case');
    if (typeof text !== 'string' || /[\r\n]/.test(text)) fail([...path, name], 'expected the value as one line of text (quote a number)');
  }
  return value as HeaderMap;
}
