// Stage 6's output read against its contract: what connect() found, the tools, the calls and the
// input requests the client answered.
import { array, json, object, optional, type Reader } from '../reading.ts';
import type { StatelessOutput } from './contract.ts';

export type StatelessPart = Partial<StatelessOutput>;

export const statelessPart = object({
  connect: optional(json),
  tools: optional(json),
  calls: optional(array(json)),
  asked: optional(array(json)),
}) satisfies Reader<StatelessPart>;
