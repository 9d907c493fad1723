// The recording model: what a cassette holds once loaded, independent of YAML. The format module
// turns files into these values and back; the player, recorder and verifier only see these.

import { isObject } from '../../exchange/json-path.ts';
import type { Json, JsonObject } from '../../json.ts';

export { isObject };

export type { Json, JsonObject };

/** The cassette version this code writes; it reads this one and version 1 (stdio only, the same frames). */
export const CASSETTE_VERSION = 2;
export type CassetteVersion = 1 | 2;

/** The transports a cassette is recorded over; any cassette plays over either where its messages allow.
 *  (A Transport of harness/transports/ is how a case runs on one.) */
export type CassetteTransport = 'stdio' | 'http';

/** HTTP header names in lower case, as recorded: only the headers that matter to MCP (http-headers.ts). */
export type Headers = Record<string, string>;

/** How the server answered an HTTP request of an HTTP cassette. */
export interface HttpReply {
  status: number;
  headers?: Headers;
  /** json: the body is the server message answering the request; sse: an event stream carrying the
   *  frames whose `request` is this request's id; none: no body (202 to a notification or response);
   *  text: a body that is not a message (an error page), kept in `text`. */
  body: 'json' | 'sse' | 'none' | 'text';
  text?: string;
}

/** The POST that carried a client message, and how the server answered it. */
export interface HttpCarrier {
  /** The request's path (e.g. /mcp). */
  path: string;
  headers?: Headers;
  /** Absent only in a `.partial` recording whose session ended before the server answered it. */
  reply?: HttpReply;
}

/** Where a server frame went on HTTP, and the event fields it went with on a stream. */
export interface HttpPlacement {
  /** The recorded id of the request whose POST stream (or JSON body) carried it; absent: the GET stream. */
  request?: Json;
  /** SSE fields of the event (a JSON body has none). */
  id?: string;
  event?: string;
  retry?: number;
  /** Comment lines (`: text`) written just before the event. */
  comments?: string[];
  /** How the event's lines end, when not in LF: CRLF (as Python servers send) or a bare CR. */
  lines?: 'crlf' | 'cr';
  /** Byte offsets where the event's bytes (as replayed) are cut into separate reads: a reader must
   *  join an event, or a multi-byte character, that two reads split. */
  cuts?: number[];
  /** Milliseconds from the start of the session to when it arrived (replay with --pace recorded). */
  at?: number;
  /** The server closed the connection after this event, before the stream's response: the client
   *  resumes the stream with a GET that says the last event id it received (Last-Event-ID), after
   *  waiting the `retry` the stream last gave. The stream's later events go on that GET. */
  closes?: true;
}

/** The requests without a message (GET opens the server's stream, DELETE ends the session), as answered. */
export interface HttpSession {
  /** The path the client used. */
  path: string;
  get?: HttpReply;
  delete?: HttpReply;
}

/** A message the client sent; matched against the live client's message, never replayed. */
export interface ClientFrame {
  from: 'client';
  message: JsonObject;
  /** JSON paths inside the message that are not compared (`params.clientInfo`, `params.items[0].at`). */
  free?: string[];
  /** 1-based line in the cassette file where the frame starts, when it came from a file. */
  line?: number;
  /** The comment lines a person wrote just above the frame (without their `#`); kept by load and save. */
  comment?: string;
  /** HTTP cassettes: the POST that carried it. */
  http?: HttpCarrier;
}

/** A message the server sent; replayed at its recorded place. */
export interface ServerFrame {
  from: 'server';
  message: JsonObject;
  free?: string[];
  /** The exact bytes the server wrote, terminator included, when they differ from compact JSON + '\n'. */
  raw?: string;
  /** The bytes cut into separate reads; they concatenate to `raw` (or to the compact JSON + '\n'). */
  chunks?: string[];
  /** Byte offsets (UTF-8) where reads split, for cuts inside a multi-byte character; instead of chunks. */
  cuts?: number[];
  /** false: the next stdout frame's bytes travel in the same read as this one's. */
  flush?: boolean;
  line?: number;
  comment?: string;
  /** HTTP cassettes: the stream or body it went in. */
  http?: HttpPlacement;
}

/** Bytes on the server's stdout that are not a JSON-RPC message (a careless log line). */
export interface StdoutFrame {
  from: 'stdout';
  /** Exact bytes, terminator included. */
  text: string;
  chunks?: string[];
  cuts?: number[];
  flush?: boolean;
  line?: number;
  comment?: string;
}

/** One line the server wrote on stderr (no terminator). */
export interface StderrFrame {
  from: 'stderr';
  text: string;
  line?: number;
  comment?: string;
}

/** An event on an HTTP stream that carries no message: the priming event (an id and empty data) a
 *  server may open each stream with, or a keep-alive comment. */
export interface SseFrame {
  from: 'sse';
  /** The data field; absent for a block of comments only. */
  data?: string;
  /** Where it went and its other fields, as for a server frame. */
  http: HttpPlacement;
  line?: number;
  comment?: string;
}

/** One HTTP exchange of the authorization, in its place among the MCP frames: the MCP server's
 *  protected resource metadata, or an authorization server's metadata, registration, authorize and
 *  token endpoints. URLs name the servers by stand-ins (`<mcp-server>`, `<authorization-server>`) and
 *  every value random by design by its role (`<code>`, `<access-token>`, `<code-verifier>`, …): the
 *  player mints the server's anew and holds the client's to the rules they obey (authorization.ts). */
export interface AuthFrame {
  from: 'auth';
  request: AuthRequest;
  reply: AuthReply;
  line?: number;
  comment?: string;
}

export interface AuthRequest {
  /** Whose endpoint: the MCP server's (`resource`) or the authorization server's. */
  server: 'resource' | 'authorization';
  method: string;
  path: string;
  query?: Record<string, string>;
  /** The headers that decide it (Authorization, Content-Type), the credentials among them by role. */
  headers?: Record<string, string>;
  /** An `application/x-www-form-urlencoded` body, field by field. */
  form?: Record<string, string>;
  /** A JSON body (a registration's client metadata). */
  json?: Json;
}

export interface AuthReply {
  status: number;
  /** The headers that matter (Location, WWW-Authenticate, Content-Type, Cache-Control). */
  headers?: Record<string, string>;
  json?: Json;
  /** A body that is not JSON. */
  text?: string;
}

export type Frame = ClientFrame | ServerFrame | StdoutFrame | StderrFrame | SseFrame | AuthFrame;

export interface Provenance {
  /** The server command as a person would type it (no machine paths); for HTTP, how it was started, when known. */
  command?: string[];
  /** HTTP cassettes: the server's URL as recorded (no credentials). */
  url?: string;
  package?: string;
  packageVersion?: string;
  /** YYYY-MM-DD */
  recorded: string;
  /** What made the file: `theinference record`, or `hand-written`. */
  recorder?: string;
  /** Anything else a person wants to say about where this came from. */
  note?: string;
  /** A folder (relative to where record ran) copied into the fresh folder `<setup>` stands for (setup.ts). */
  setup?: string;
  /** Variables the server was started with, beside the environment's; `<setup>` may stand in their values. */
  env?: Record<string, string>;
}

export interface Cassette {
  version: CassetteVersion;
  transport: CassetteTransport;
  provenance: Provenance;
  /** HTTP cassettes: the path and the answers to GET and DELETE. */
  http?: HttpSession;
  /** Paths free in every client message that has them (e.g. `params.clientInfo`). */
  free?: string[];
  frames: Frame[];
  /** Where it was loaded from, for messages; never saved. */
  file?: string;
  /** The comment lines at the top of the file (without their `#`); kept by load and save. */
  comment?: string;
}

/** `text` as it stands inside a JSON string: escaped, without the quotes. */
export function inJsonText(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

export type MessageKind = 'request' | 'notification' | 'response';

/** JSON-RPC shape only: a method with an id is a request, without one a notification; an id without a method a response. */
export function kindOf(message: JsonObject): MessageKind | undefined {
  if (typeof message.method === 'string') return 'id' in message ? 'request' : 'notification';
  if ('id' in message && ('result' in message || 'error' in message)) return 'response';
  return undefined;
}

/** A JSON-RPC id as a map key: 1 and "1" are different ids, so the type is part of the key. */
export function idKey(id: Json | undefined): string {
  return typeof id === 'number' ? `n${id}` : `s${String(id)}`;
}

/** The bytes a server frame puts on the wire when the cassette does not say otherwise. */
export function compactLine(message: Json): string {
  return JSON.stringify(message) + '\n';
}

/** `tools/call "echo" (id 3)`, `notifications/initialized`, `an error response to request 3`;
 *  `idLabel` says whose id it is where the two sides' ids meet (`your id 3`). */
export function describeMessage(message: JsonObject, idLabel = 'id'): string {
  const kind = kindOf(message);
  if (kind === 'response') return `${'error' in message ? 'an error response' : 'a response'} to request ${JSON.stringify(message.id)}`;
  if (kind === undefined) return `a message that is neither request, notification nor response`;
  let text = String(message.method);
  const params = message.params;
  if (text === 'tools/call' && isObject(params) && typeof params.name === 'string') text += ` "${params.name}"`;
  if (kind === 'request') text += ` (${idLabel} ${JSON.stringify(message.id)})`;
  return text;
}
