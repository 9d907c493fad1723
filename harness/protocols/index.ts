// The protocols an endpoint of course.yaml may name: what is said between a case's program and the
// server it talks to, and how the grader judges it. `mcp`: the Model Context Protocol (JSON-RPC, its
// lifecycle, its stateless revision, and the authorization of a remote server), played from a recording
// by the cassette engine (harness/cassette/) over a transport of harness/transports/.
export const PROTOCOL_NAMES = ['mcp'] as const;

export type ProtocolName = (typeof PROTOCOL_NAMES)[number];
