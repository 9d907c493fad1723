// The http-api protocol as grading sees it (protocols/protocol.ts): its recordings, played over HTTP.
import type { Protocol } from '../protocol.ts';
import { loadRecording } from './format.ts';
import { HTTP_API_KINDS } from './kinds.ts';
import type { ApiRecording } from './model.ts';
import { overHttp } from './transport.ts';

export const httpApi: Protocol<ApiRecording> = {
  load: loadRecording,
  transports: { http: overHttp },
  kinds: HTTP_API_KINDS,
};
