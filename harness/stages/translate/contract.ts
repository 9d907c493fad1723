// Stage 5's contract: `translate` reads headers.json (as `http` does) and prints each tool as
// toClaudeTool made it.
import type { JsonObject } from '../contract.ts';

export interface TranslateOutput {
  /** Each tool translated, its fields in the order name, description, input_schema, then any other, sorted. */
  tools: JsonObject[];
  /** Whether every tool still holds, as JSON, what listTools returned. */
  unchanged: boolean;
}
