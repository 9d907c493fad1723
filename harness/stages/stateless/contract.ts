// Stage 6's contract: `stateless` reads calls.json, inputs.json and headers.json, and prints what
// connect() found, every tool, each call's outcome and what the server asked.
import type { Json, MessageLine, Outcome } from '../contract.ts';

/** inputs.json: the answer to each kind of input request of the server, by its method. */
export type InputsInput = Record<string, Json>;

/** What connect() found: the era, the version, and the server's name, version, capabilities and
 *  instructions (program.ts's `connection`). */
export interface Connection {
  era: Json;
  protocolVersion: Json;
  supportedVersions?: Json;
  serverInfo: Json;
  capabilities: Json;
  instructions?: Json;
}

/** Only `connect` where it failed. */
export interface StatelessOutput {
  /** A Connection, or how connect() failed. */
  connect?: Outcome;
  tools?: Outcome;
  calls?: Outcome[];
  asked?: MessageLine[];
}
