// Stage 4's contract: `http` reads calls.json and headers.json, and prints the handshake, every tool,
// each call's outcome and the notifications the transport handed on.
import type { MessageLine, Outcome } from '../contract.ts';

/** headers.json: headers for every request. */
export type HeadersInput = Record<string, string>;

export interface HttpOutput {
  initialize?: Outcome;
  tools?: Outcome;
  calls: Outcome[];
  notifications: MessageLine[];
}
