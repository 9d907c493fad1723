// The protocols an endpoint of course.yaml may name, each one folder here: what is said between a case's
// program and a server it talks to, how a recording of it is read, and the transports it plays on. A new
// protocol is its folder and its line below; grading asks the protocol, never its name.
import type { DiagnosisKind } from '../exchange/diagnosis.ts';
import type { KindRow } from '../exchange/rows.ts';
import { httpApi } from './http-api/index.ts';
import { mcp } from './mcp/index.ts';
import type { Protocol } from './protocol.ts';

export type { Protocol } from './protocol.ts';

/** Each protocol reads its own kind of recording and hands it to its own transports' players. */
export const PROTOCOLS: Readonly<Record<string, Protocol>> = { mcp, 'http-api': httpApi };

/** Every diagnosis kind of every protocol, a row each, in the order the docs list them and a case shows
 *  their hints (grade/hints.ts). */
export const KINDS = Object.assign({}, ...Object.values(PROTOCOLS).map((protocol) => protocol.kinds)) as Readonly<Record<DiagnosisKind, KindRow>>;

/** Each protocol's name, and the transports it plays on: what course.yaml's endpoints may name. */
export function protocolTransports(protocols: Readonly<Record<string, Protocol>> = PROTOCOLS): Record<string, readonly string[]> {
  return Object.fromEntries(Object.entries(protocols).map(([name, protocol]) => [name, Object.keys(protocol.transports)]));
}
