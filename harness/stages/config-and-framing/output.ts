// Stage 1's output read against its contract: the frames and parsed values `mcp-frame` prints, the
// servers (or the refusal) `mcp-config` prints.
import { array, json, jsonObject, literal, object, optional, type Reader } from '../reading.ts';
import type { ConfigOutput, FrameOutput } from './contract.ts';

export type FramingPart = Partial<FrameOutput> & Partial<Extract<ConfigOutput, { servers: unknown }>> & Partial<Extract<ConfigOutput, { rejected: true }>>;

export const framingPart = object({
  frames: optional(array(json)),
  parsed: optional(array(json)),
  servers: optional(array(jsonObject)),
  rejected: optional(literal(true)),
}) satisfies Reader<FramingPart>;
