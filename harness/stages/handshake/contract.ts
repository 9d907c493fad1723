// Stage 2's contract: `handshake` reads nothing but the case's cassette (and a .mcp.json, where the
// client starts its server) and prints what initialize() came to.
import type { Outcome } from '../contract.ts';

/** After close(): `closed: false` where the wire to the server was left open. */
export interface AfterClose {
  closed?: false;
}

export interface HandshakeOutput extends AfterClose {
  initialize?: Outcome;
}
