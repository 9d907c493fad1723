// What the 2026-07-28 revision (stateless MCP) adds to playback: every request carries its protocol
// version, client capabilities and client info in `_meta`; over HTTP it mirrors its method, name
// and annotated arguments into headers, which a server checks against the body; there is no
// session and no initialize. The player and its HTTP face ask this module whether a client's
// message keeps those rules, and answer a message that breaks one as a real server of the revision
// (the TypeScript SDK v2, which the committed stateless cassettes were recorded from) answers it:
// the same status, JSON-RPC error code, message and data.
import { isObject, kindOf, type Cassette, type Json, type JsonObject } from '../format/model.ts';

export const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_INFO = 'io.modelcontextprotocol/clientInfo';
/** The per-request keys, in the order the revision names them. */
export const META_KEYS = [META_VERSION, META_CAPABILITIES, META_INFO] as const;
/** Required: a request without one is malformed (-32602); clientInfo is a SHOULD. */
const REQUIRED_META: readonly string[] = [META_VERSION, META_CAPABILITIES];
/** The first revision without initialize: versions from it on are "modern". */
export const FIRST_STATELESS_VERSION = '2026-07-28';

/** JSON-RPC error codes of the revision. */
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;
export const MISSING_CLIENT_CAPABILITY = -32021;
const INVALID_PARAMS = -32602;

/** A JSON-RPC error and the HTTP status it goes with, as the server answers it. */
export interface StatelessError {
  status: number;
  error: { code: number; message: string; data?: Json };
}

/** The `_meta` of a message's params, when it has one. */
export function metaOf(message: JsonObject): JsonObject | undefined {
  const params = message.params;
  return isObject(params) && isObject(params._meta) ? params._meta : undefined;
}

/** The protocol version a request declares in its `_meta`, when it declares one. */
export function declaredVersion(message: JsonObject): string | undefined {
  const version = metaOf(message)?.[META_VERSION];
  return typeof version === 'string' ? version : undefined;
}

/** A message of the stateless revision: it declares a version from 2026-07-28 on in its `_meta`. */
export function isStatelessMessage(message: JsonObject): boolean {
  const version = declaredVersion(message);
  return version !== undefined && version >= FIRST_STATELESS_VERSION;
}

/** An HTTP cassette recorded without sessions: no reply gave an Mcp-Session-Id, and the client
 *  never sent initialize (it spoke the stateless revision, each request on its own). */
export function isSessionless(cassette: Cassette): boolean {
  if (cassette.transport !== 'http') return false;
  const replies = [cassette.http?.get, cassette.http?.delete];
  for (const frame of cassette.frames) {
    if (frame.from !== 'client') continue;
    if (frame.message.method === 'initialize') return false;
    replies.push(frame.http?.reply);
  }
  return !replies.some((reply) => reply?.headers?.['mcp-session-id'] !== undefined);
}

/** The per-request keys the recorded message had and the live one lacks, in the revision's order. */
export function missingMeta(recorded: JsonObject, actual: JsonObject): string[] {
  const had = metaOf(recorded) ?? {};
  const has = metaOf(actual) ?? {};
  return META_KEYS.filter((key) => key in had && !(key in has));
}

/** Whether a message the client sent lacks a required key of `_meta` (which a server refuses, -32602). */
export function lacksRequiredMeta(sent: Json | undefined): boolean {
  const meta = isObject(sent) ? (metaOf(sent) ?? {}) : {};
  return REQUIRED_META.some((key) => !(key in meta));
}

/** The server's answer to a request missing required per-request keys; undefined when only
 *  clientInfo is missing, which a server serves. */
export function envelopeRefusal(actual: JsonObject, missing: readonly string[], headerVersion: string): StatelessError | undefined {
  const required = missing.filter((key) => REQUIRED_META.includes(key));
  if (required.length === 0) return undefined;
  const meta = metaOf(actual);
  if (required.includes(META_VERSION)) {
    // without the version the body makes no claim: the header's version is what is missing its keys
    const keys = meta === undefined ? ['_meta'] : required;
    return {
      status: 400,
      error: {
        code: INVALID_PARAMS,
        message: `Invalid params: the MCP-Protocol-Version header names protocol revision ${headerVersion}, but the request is missing the required per-request envelope key(s): ${keys.join(', ')}`,
        data: { envelope: { missing: keys } },
      },
    };
  }
  const key = required[0]!;
  return {
    status: 400,
    error: {
      code: INVALID_PARAMS,
      message: `Invalid _meta envelope for protocol revision ${FIRST_STATELESS_VERSION}: ${key}: missing`,
      data: { envelope: { key, problem: 'missing' } },
    },
  };
}

/** The server's answer to a version it does not support (an initialize, to a server of the
 *  stateless revision only, asks for one): the versions it supports, and the one asked for. */
export function unsupportedVersion(requested: string, supported: readonly string[]): StatelessError {
  return {
    status: 400,
    error: { code: UNSUPPORTED_PROTOCOL_VERSION, message: `Unsupported protocol version: ${requested}`, data: { supported: [...supported], requested } },
  };
}

/** The versions the recorded server said it supports: its server/discover result, else the data
 *  of an unsupported-version error it gave, else the versions the recorded client declared. */
export function supportedVersions(cassette: Cassette): string[] {
  for (const frame of cassette.frames) {
    if (frame.from !== 'server') continue;
    const result = frame.message.result;
    if (isObject(result) && Array.isArray(result.supportedVersions)) return result.supportedVersions.filter((v): v is string => typeof v === 'string');
  }
  for (const frame of cassette.frames) {
    if (frame.from !== 'server' || !isObject(frame.message.error) || frame.message.error.code !== UNSUPPORTED_PROTOCOL_VERSION) continue;
    const data = frame.message.error.data;
    if (isObject(data) && Array.isArray(data.supported)) return data.supported.filter((v): v is string => typeof v === 'string');
  }
  const declared = cassette.frames.flatMap((frame) => (frame.from === 'client' ? [declaredVersion(frame.message)] : []));
  return [...new Set(declared.filter((v): v is string => v !== undefined && v >= FIRST_STATELESS_VERSION))];
}

// ------------------------------------------------------------ headers

/** The headers of a POST that mirror its body (names in lower case). */
export interface MirrorHeaders {
  version?: string;
  method?: string;
  name?: string;
  /** `mcp-param-{name}` headers by their lower-case name. */
  params: Record<string, string>;
}

/** The body field the Mcp-Name header mirrors, by method. */
const NAME_SOURCE: Readonly<Record<string, string>> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** What a header value may hold (RFC 9110: visible ASCII, space, tab). Node hands a header's bytes on as
 *  Latin-1, so a client that wrote UTF-8 (or Latin-1) shows here as characters past 0x7E. The spec: a
 *  server MUST reject a value with invalid characters (-32020). */
const HEADER_SAFE = /^[\x20-\x7e\t]*$/;
const NOT_HEADER_SAFE = (header: string) =>
  `the ${header} header carries characters a header value may not (only visible ASCII, space and tab): a value that is not plain ASCII goes as =?base64?…?=`;

/** A mirrored header's value as the body has it: a `=?base64?…?=` value decoded (UTF-8), any
 *  other as it is; undefined when the sentinel holds no valid Base64 of UTF-8. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX) && value.length >= SENTINEL_PREFIX.length + SENTINEL_SUFFIX.length)) {
    return value;
  }
  const base64 = value.slice(SENTINEL_PREFIX.length, value.length - SENTINEL_SUFFIX.length);
  if (!CANONICAL_BASE64.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

/** An argument a tool's inputSchema mirrors into `Mcp-Param-{header}` (x-mcp-header). */
export interface ParamHeader {
  header: string;
  /** The chain of `properties` keys from the schema's root. */
  path: string[];
  type?: string;
}

/** The x-mcp-header declarations of every tool the recorded server listed, by tool name. */
export function paramHeaders(cassette: Cassette): Map<string, ParamHeader[]> {
  const byTool = new Map<string, ParamHeader[]>();
  for (const frame of cassette.frames) {
    if (frame.from !== 'server' || !isObject(frame.message.result) || !Array.isArray(frame.message.result.tools)) continue;
    for (const tool of frame.message.result.tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      const found: ParamHeader[] = [];
      collectParamHeaders(tool.inputSchema, [], found);
      if (found.length > 0) byTool.set(tool.name, found);
    }
  }
  return byTool;
}

function collectParamHeaders(schema: Json | undefined, path: string[], found: ParamHeader[]): void {
  if (!isObject(schema) || !isObject(schema.properties)) return;
  for (const [key, property] of Object.entries(schema.properties)) {
    if (!isObject(property)) continue;
    const header = property['x-mcp-header'];
    if (typeof header === 'string') found.push({ header, path: [...path, key], ...(typeof property.type === 'string' && { type: property.type }) });
    collectParamHeaders(property, [...path, key], found);
  }
}

/** Where a request's headers and body disagree, in the words a server of the revision answers
 *  with (HTTP 400, -32020), checked in its order: the version, the method, then the headers each
 *  request needs, then a tool's Mcp-Param headers. Only for a request whose `_meta` is whole (a
 *  request missing its keys is refused for that first, by the player). */
export function headerMismatch(message: JsonObject, headers: MirrorHeaders, declarations: Map<string, ParamHeader[]>): StatelessError | undefined {
  const method = String(message.method);
  const claimed = declaredVersion(message)!;
  const refuse = (header: string, body: string): StatelessError => ({
    status: 400,
    error: { code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } },
  });
  if (headers.version !== undefined && headers.version !== claimed) {
    return refuse(headers.version, `the body envelope names protocol version ${claimed} but the MCP-Protocol-Version header names ${headers.version}`);
  }
  if (headers.method !== undefined && headers.method !== method) {
    return refuse(headers.method, `the body names method ${method} but the Mcp-Method header names ${headers.method}`);
  }
  if (headers.version === undefined) {
    return refuse('(missing)', `the body envelope names protocol version ${claimed} but the required MCP-Protocol-Version header is absent`);
  }
  if (headers.method === undefined) return refuse('(missing)', `the body names method ${method} but the required Mcp-Method header is absent`);
  const params = isObject(message.params) ? message.params : {};
  const field = NAME_SOURCE[method];
  const bodyName = field === undefined ? undefined : params[field];
  if (field !== undefined && typeof bodyName === 'string') {
    if (headers.name === undefined) return refuse('(missing)', `the body carries params.${field}="${bodyName}" but the required Mcp-Name header is absent`);
    const sent = headers.name.trim();
    if (!HEADER_SAFE.test(sent)) return refuse(sent, NOT_HEADER_SAFE('Mcp-Name'));
    const decoded = decodeHeaderValue(sent);
    if (decoded === undefined) return refuse(sent, 'the Mcp-Name header carries an invalid Base64 sentinel value');
    if (decoded !== bodyName) return refuse(sent, `the body carries params.${field}="${bodyName}" but the Mcp-Name header names "${decoded}"`);
  }
  if (method !== 'tools/call' || typeof params.name !== 'string') return undefined;
  for (const declaration of declarations.get(params.name) ?? []) {
    const headerName = `Mcp-Param-${declaration.header}`;
    let value: Json | undefined = isObject(params.arguments) ? params.arguments : undefined;
    for (const key of declaration.path) value = isObject(value) ? value[key] : undefined;
    if (value === undefined || value === null || typeof value === 'object') continue;
    const where = declaration.path.join('.');
    const sent = headers.params[headerName.toLowerCase()];
    if (sent === undefined) return refuse(headerName, `the body carries ${where}=${JSON.stringify(value)} but the ${headerName} header is absent`);
    if (!HEADER_SAFE.test(sent)) return refuse(headerName, NOT_HEADER_SAFE(headerName));
    const decoded = decodeHeaderValue(sent.trim());
    if (decoded === undefined) return refuse(headerName, `the ${headerName} header carries an invalid Base64 sentinel value`);
    const same = typeof value === 'number' && /^-?\d+(?:\.\d+)?$/.test(decoded) ? Number(decoded) === value : decoded === String(value);
    if (!same)
      return refuse(headerName, `the ${headerName} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(value)}`);
  }
  return undefined;
}

/** A recorded input_required result, by the requestState it gave the retry to echo. */
export function inputRequiredResults(cassette: Cassette): Map<string, JsonObject> {
  const byState = new Map<string, JsonObject>();
  for (const frame of cassette.frames) {
    if (frame.from !== 'server' || kindOf(frame.message) !== 'response') continue;
    const result = frame.message.result;
    if (isObject(result) && result.resultType === 'input_required' && typeof result.requestState === 'string') byState.set(result.requestState, frame.message);
  }
  return byState;
}

/** The recorded server speaks the stateless revision: it answered server/discover with the versions
 *  it supports, or refused a request with one of the revision's errors (-32020 to -32022; a 2025
 *  server that a client probed with server/discover answers otherwise, and is played as recorded). */
export function speaksStateless(cassette: Cassette): boolean {
  return cassette.frames.some((frame) => {
    if (frame.from !== 'server') return false;
    const { result, error } = frame.message;
    if (isObject(result) && Array.isArray(result.supportedVersions)) return true;
    return isObject(error) && [HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION].includes(error.code as number);
  });
}
