// The http-api protocol: a JSON-over-HTTP API (first the Anthropic Messages API, POST /v1/messages)
// played from a recording. What the rest of theinference uses of it: read a recording (format.ts),
// serve it on 127.0.0.1 (serve.ts), or answer requests on a server of one's own (player.ts), and
// the report of what the client did, in the shape of the cassette player's.
export { loadRecording, parseRecording } from './format.ts';
export { HTTP_API_KINDS } from './kinds.ts';
export { canonical, requestDifference } from './matching.ts';
export type { LiveRequest, RequestDifference } from './matching.ts';
export { APIS, RECORDING_VERSION, REQUEST_HEADERS } from './model.ts';
export type { ApiName, RecordedEvent, RecordedExchange, RecordedRequest, RecordedResponse, ApiRecording, RecordingProvenance } from './model.ts';
export { ApiPlayer } from './player.ts';
export type { ApiPlayerOptions } from './player.ts';
export { ruleProblem } from './rules.ts';
export type { RuleKind, RuleProblem } from './rules.ts';
export { serveRecording } from './serve.ts';
export type { ApiReplay, ApiServeOptions } from './serve.ts';
export { KEY_SUFFIX, overHttp } from './transport.ts';
export { httpApi } from './protocol.ts';
