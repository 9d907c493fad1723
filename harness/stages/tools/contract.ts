// Stage 3's contract: `tools` reads calls.json, and prints every tool and each call's outcome.
import type { JsonObject, Outcome } from '../contract.ts';
import type { AfterClose } from '../handshake/contract.ts';

/** One call of calls.json (here and in the later stages that call tools). */
export type ToolCall = {
  name: string;
  arguments?: JsonObject;
};
export type CallsInput = ToolCall[];

export interface ToolsOutput extends AfterClose {
  /** Every tool, all pages. */
  tools?: Outcome;
  calls: Outcome[];
}
