// The transports the MCP protocol plays on (protocols/mcp/), each one folder here. A new transport is its
// folder and its line below; the grader asks it how its cases run (transport.ts), never its name.
import { http } from './http/index.ts';
import { stdio } from './stdio/index.ts';
import type { Transport } from './transport.ts';

export const TRANSPORTS = { stdio, http } as const satisfies Record<string, Transport>;

export type TransportName = keyof typeof TRANSPORTS;

/** Their names, as course.yaml's endpoints give them. */
export const TRANSPORT_NAMES: readonly TransportName[] = Object.keys(TRANSPORTS) as TransportName[];
