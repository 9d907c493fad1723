// Nondeterministic values (UUIDs, timestamps and dates in the usual forms, clock times in prose) are detected and their paths
// marked free: the player does not match them, verify does not compare them. The first recording
// stays faithful (the client saw those very values); a re-recording over an existing cassette
// carries the previous values over where both are nondeterministic, so that its diff shows only
// real changes.
import { formatPath, getAt, parsePath, type Segment } from '../../exchange/json-path.ts';
import { inJsonText, isObject, kindOf, type Cassette, type Frame, type Headers, type HttpSession, type Json, type JsonObject } from '../format/model.ts';

/** Any 8-4-4-4-12 hex group, whatever its version: ids, request tokens, task ids in prose. */
const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})\b/g;
/** An ISO date and time without a zone, `T` or space between: "2026-11-30 12:25:50". */
const LOCAL_DATE_TIME = /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?\b/g;
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
/** JavaScript's Date.toString(): "Mon Nov 30 2026 12:25:50 GMT+0000 (Coordinated Universal Time)". */
const DATE_STRING = new RegExp(`\\b${DAY} ${MONTH} \\d{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT[+-]\\d{4}(?: \\([^)]*\\))?`, 'g');
/** RFC 2822 and HTTP dates (toUTCString()): "Mon, 30 Nov 2026 12:25:50 GMT", "30 Nov 2026 12:25:50 +0000". */
const RFC_2822 = new RegExp(`(?:\\b${DAY}, )?\\b\\d{1,2} ${MONTH} \\d{4} \\d{2}:\\d{2}(?::\\d{2})? (?:GMT|UTC|[+-]\\d{4})`, 'g');
/** A clock time as servers print it in prose: "created at 12:18:55 AM". */
const TIME_OF_DAY = /\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b/g;
/** A date alone, "2026-11-30": today's, as a server says it. Never under a key that names a
 *  protocol revision (REVISION_KEYS), where MCP names its revisions by date. */
const ISO_DATE = /\b\d{4}-\d{2}-\d{2}\b/g;
/** Most specific first: each is masked before a shorter one could take part of it. */
const PATTERNS: [RegExp, string][] = [
  [UUID, '<uuid>'],
  [TIMESTAMP, '<timestamp>'],
  [DATE_STRING, '<date>'],
  [RFC_2822, '<date>'],
  [LOCAL_DATE_TIME, '<timestamp>'],
  [TIME_OF_DAY, '<time>'],
  [ISO_DATE, '<date>'],
];
/** Keys whose value is a date that names a protocol revision, not a moment: the version of
 *  initialize and of the 2026-07-28 revision's per-request `_meta`, the versions server/discover
 *  lists, and those an unsupported-version error (-32022) names in its data. */
const REVISION_KEYS: ReadonlySet<string> = new Set([
  'protocolVersion',
  'io.modelcontextprotocol/protocolVersion',
  'supportedVersions',
  'supported',
  'requested',
]);
const REVISION = /^\d{4}-\d{2}-\d{2}$/;

/** A revision's name (or a list of them) under a key that names revisions. */
function isRevision(key: string, value: Json): boolean {
  if (!REVISION_KEYS.has(key)) return false;
  return typeof value === 'string' ? REVISION.test(value) : Array.isArray(value) && value.every((item) => typeof item === 'string' && REVISION.test(item));
}

/** Does this string hold a value that changes from run to run? */
export function looksNondeterministic(text: string): boolean {
  return PATTERNS.some(([pattern]) => {
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  });
}

/** The same value with every UUID, date and time replaced by a fixed mark, for comparing two runs. */
export function maskNondeterministic<T extends Json>(value: T): T {
  if (typeof value === 'string') return PATTERNS.reduce((text: string, [pattern, mark]) => text.replace(pattern, mark), value) as T;
  if (Array.isArray(value)) return value.map((item) => maskNondeterministic(item)) as T;
  if (isObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, isRevision(key, item) ? item : maskNondeterministic(item)])) as T;
  }
  return value;
}

/**
 * Marks free, in place, the paths of nondeterministic strings: all of them in server messages;
 * in client messages those the client made up itself (not an echo of what the server said).
 */
export function markNondeterministic(frames: Frame[]): void {
  const fromServer = new Set<string>();
  for (const frame of frames) {
    if (frame.from !== 'client' && frame.from !== 'server') continue;
    const found: { path: Segment[]; value: string }[] = [];
    collect(frame.message, [], found);
    const free: string[] = [];
    for (const { path, value } of found) {
      if (frame.from === 'server') {
        fromServer.add(value);
        free.push(formatPath(path));
      } else if (!fromServer.has(value)) free.push(formatPath(path));
    }
    const merged = [...new Set([...(frame.free ?? []), ...free])];
    if (merged.length > 0) frame.free = merged;
  }
}

function collect(value: Json, path: Segment[], found: { path: Segment[]; value: string }[]): void {
  if (typeof value === 'string') {
    if (looksNondeterministic(value)) found.push({ path, value });
  } else if (Array.isArray(value)) value.forEach((item, i) => collect(item, [...path, i], found));
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (path.length === 0 && (key === 'id' || key === 'jsonrpc' || key === 'method')) continue;
      if (isRevision(key, item)) continue;
      // `_meta` is never matched nor compared, and its keys hold dots a JSON path cannot name
      if (key === '_meta') continue;
      collect(item, [...path, key], found);
    }
  }
}

/**
 * A re-recording keeps the previous recording's values at its free paths, frame by frame, where
 * the frames are the same message (same side, kind, method and id) and both values are nondeterministic.
 */
export function carryOver(previous: readonly Frame[], frames: Frame[]): void {
  const count = Math.min(previous.length, frames.length);
  for (let i = 0; i < count; i++) {
    const before = previous[i]!;
    const now = frames[i]!;
    if ((before.from !== 'server' && before.from !== 'client') || before.from !== now.from) continue;
    if (!sameMessage(before.message, now.message)) continue;
    for (const text of now.free ?? []) {
      const path = parsePath(text);
      if (path.includes('*')) continue;
      const old = getAt(before.message, path);
      const current = getAt(now.message, path);
      if (typeof old !== 'string' || typeof current !== 'string' || old === current) continue;
      if (!looksNondeterministic(old) || !looksNondeterministic(current)) continue;
      now.message = setAt(now.message, path, old) as JsonObject;
      if (now.from === 'server' && now.raw !== undefined) now.raw = now.raw.split(inJsonText(current)).join(inJsonText(old));
    }
  }
}

function sameMessage(a: JsonObject, b: JsonObject): boolean {
  return kindOf(a) === kindOf(b) && a.method === b.method && JSON.stringify(a.id) === JSON.stringify(b.id);
}

function setAt(value: Json, path: readonly Segment[], replacement: Json): Json {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path;
  if (Array.isArray(value) && typeof head === 'number') return value.map((item, i) => (i === head ? setAt(item, rest, replacement) : item));
  if (isObject(value) && typeof head === 'string') return { ...value, [head]: setAt(value[head] ?? null, rest, replacement) };
  return value;
}

/**
 * Over HTTP, what changes from run to run besides the messages: when each event arrived (`at`), the
 * session id the server made and the ids of its events. A re-recording whose frames are, one by
 * one, the same messages as before keeps the previous values of these, so that its diff shows only
 * real changes; a session id is replaced everywhere it appears, as one value.
 */
export function carryOverHttp(previous: Cassette, frames: Frame[], http: HttpSession): void {
  if (previous.frames.length !== frames.length) return;
  const same = previous.frames.every((before, i) => {
    const now = frames[i]!;
    if (before.from !== now.from) return false;
    return (before.from !== 'client' && before.from !== 'server') || sameMessage(before.message, (now as typeof before).message);
  });
  if (!same) return;
  const ids = new Map<string, string>();
  const pairIds = (old: string | undefined, current: string | undefined) => {
    if (old !== undefined && current !== undefined && old !== current && looksNondeterministic(old) && looksNondeterministic(current)) ids.set(current, old);
  };
  const pairHeaders = (old: Headers | undefined, current: Headers | undefined) => pairIds(old?.['mcp-session-id'], current?.['mcp-session-id']);
  pairHeaders(previous.http?.get?.headers, http.get?.headers);
  pairHeaders(previous.http?.delete?.headers, http.delete?.headers);
  for (const [i, before] of previous.frames.entries()) {
    const now = frames[i]!;
    if (before.from === 'client' && now.from === 'client') {
      pairHeaders(before.http?.headers, now.http?.headers);
      pairHeaders(before.http?.reply?.headers, now.http?.reply?.headers);
    } else if ((before.from === 'server' || before.from === 'sse') && (now.from === 'server' || now.from === 'sse') && before.http && now.http) {
      pairIds(before.http.id, now.http.id);
      if (before.http.at !== undefined && now.http.at !== undefined) now.http.at = before.http.at;
    }
  }
  const swap = (headers: Headers | undefined) => {
    const id = headers?.['mcp-session-id'];
    if (headers && id !== undefined && ids.has(id)) headers['mcp-session-id'] = ids.get(id)!;
  };
  swap(http.get?.headers);
  swap(http.delete?.headers);
  for (const frame of frames) {
    if (frame.from === 'client') {
      swap(frame.http?.headers);
      swap(frame.http?.reply?.headers);
    } else if ((frame.from === 'server' || frame.from === 'sse') && frame.http?.id !== undefined && ids.has(frame.http.id))
      frame.http.id = ids.get(frame.http.id)!;
  }
}
