// The recording of a JSON-over-HTTP API, as the player reads it: the requests a client sent, in order,
// each with the response the server gave. format.ts reads it from YAML; nothing else knows the YAML.
import type { Json, JsonObject } from '../../json.ts';

/** The version of the recording format this code reads. */
export const RECORDING_VERSION = 1;

/** The APIs whose own rules the player holds on every request (rules.ts); a recording names its own. */
export const APIS = ['anthropic-messages'] as const;
export type ApiName = (typeof APIS)[number];

export interface RecordingProvenance {
  /** Where the API was, or would have been, recorded (https://api.anthropic.com). */
  url: string;
  /** YYYY-MM-DD */
  recorded: string;
  /** How it was made: a recorder, or the pages a person wrote it from. */
  recorder?: string;
  note?: string;
}

export interface ApiRecording {
  version: typeof RECORDING_VERSION;
  api: ApiName;
  provenance: RecordingProvenance;
  exchanges: RecordedExchange[];
  /** The file it was read from. */
  file?: string;
  /** The comment at the top of the file. */
  comment?: string;
}

export interface RecordedExchange {
  /** Line of the exchange in the file. */
  line?: number;
  /** The comment just above it. */
  comment?: string;
  request: RecordedRequest;
  response: RecordedResponse;
}

/** Header names in lower case, as recorded. */
export type HeaderMap = Record<string, string>;

export interface RecordedRequest {
  method: string;
  path: string;
  /** Only the headers that matter (REQUEST_HEADERS). */
  headers: HeaderMap;
  body: JsonObject;
  line?: number;
}

export interface RecordedResponse {
  status: number;
  headers: HeaderMap;
  /** A JSON body (`json`: the value, written compactly; `text`: its exact bytes), or an event stream. */
  body: { json: Json; text?: string } | { events: RecordedEvent[] };
  line?: number;
}

/** One server-sent event: its name and its data, a JSON value (written compactly) or its exact text. */
export interface RecordedEvent {
  event: string;
  data: Json;
  /** The data line's exact text, when it is not the compact JSON of `data` (`{"type": "ping"}`). */
  text?: string;
  /** Byte offsets into the event's bytes where the replay cuts it into separate writes. */
  cuts?: number[];
  line?: number;
}

/** The request headers a recording keeps and the player compares: the rest (user-agent, the SDKs'
 *  x-stainless-*, accept, the connection's) are the client's own and never compared. The key is
 *  never kept: the player is given the fake key the program was given. */
export const REQUEST_HEADERS = ['anthropic-version', 'anthropic-beta', 'content-type'] as const;
