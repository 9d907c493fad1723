// How a program reaches a server the grader listens on for its case, whatever the protocol: its URL in
// the variable its endpoint names, and for a program without network the case's gate beside it
// (gate.ts): a Unix socket of the case's own and the token its connections open with. program.ts offers
// the student's client a port on the program's own loopback, relayed there, at the URL's path.
import { join } from 'node:path';
import { socketsFolder } from '../sockets.ts';
import type { PlaySetting } from '../transport.ts';
import { openGate, type PlayerGate } from './gate.ts';

/** Where a program finds an HTTP endpoint that course.yaml gives no variable for (a replay by hand). */
export const SERVER_URL_VARIABLE = 'THEINFERENCE_SERVER_URL';
/** Beside the URL's variable (X): the gate's path in X_GATE, its token in X_GATE_TOKEN. */
export const GATE_SUFFIX = '_GATE';
export const GATE_TOKEN_SUFFIX = '_GATE_TOKEN';

export interface Reach {
  /** The variable holding the URL. */
  variable: string;
  /** The variables that tell the program where the server is. */
  env: Record<string, string>;
  /** The gate, for a program without network. */
  gate?: PlayerGate;
}

/** The variables (and gate) by which the program reaches the server listening at `url`. */
export async function reachFor(url: string, setting: PlaySetting): Promise<Reach> {
  const variable = setting.env ?? SERVER_URL_VARIABLE;
  if (setting.network) return { variable, env: { [variable]: url } };
  const gate = await openGate(gateSocket(), Number(new URL(url).port));
  return { variable, env: { [variable]: url, [`${variable}${GATE_SUFFIX}`]: gate.path, [`${variable}${GATE_TOKEN_SUFFIX}`]: gate.token }, gate };
}

let sockets = 0;
/** A socket path of its own for each case's gate, in the grader's folder of sockets (a sandbox shows its
 *  program its own gate there, and no other). */
function gateSocket(): string {
  sockets += 1;
  return join(socketsFolder(), `player-${process.pid}-${sockets}.sock`);
}
