// Stage 4's output read against its contract: the outcomes of initialize and tools/list, and the
// notifications the transport handed on.
import { array, json, object, optional, type Reader } from '../reading.ts';
import type { HttpOutput } from './contract.ts';

export type HttpPart = Partial<Pick<HttpOutput, 'initialize' | 'tools' | 'notifications'>>;

export const httpPart = object({ initialize: optional(json), tools: optional(json), notifications: optional(array(json)) }) satisfies Reader<HttpPart>;
