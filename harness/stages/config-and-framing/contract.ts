// Stage 1's contract: what its commands read from a case folder and what program.ts prints for them.
import type { Json, JsonObject } from '../contract.ts';

/** messages.json (`mcp-frame`): JSON-RPC messages, each framed and parsed back. */
export type MessagesInput = JsonObject[];

/** `mcp-frame`: every message as frame() made it, then each frame as parseFrame() read it (the student's
 *  functions' values: any JSON). */
export interface FrameOutput {
  frames: Json[];
  parsed: Json[];
}

/** `mcp-config` (its input is the case's .mcp.json as it is): the servers parseConfig() read, each with
 *  its fields in the order name, type, command, args, env, url, headers; or the fact that it threw. */
export type ConfigOutput = { servers: JsonObject[] } | { rejected: true };
