// The protocol constants the harness relies on, in one place: which MCP versions the course's
// client speaks, and the JSON-RPC error codes the harness sends or generates. The student's
// code, the starter and program.ts declare their own on purpose: they are not the harness's.

/** The version the course's client asks for in initialize: a result with another one is a counter-offer. */
export const REQUESTED_VERSION = '2025-11-25';

/** What the course's client supports: a server may offer any of these in return, newest first. */
export const SUPPORTED_VERSIONS: readonly string[] = [REQUESTED_VERSION, '2025-06-18', '2025-03-26', '2024-11-05'];

/** The error codes JSON-RPC 2.0 itself defines. */
export const JSON_RPC_ERROR = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** What the cassette player answers a message it did not expect with: the first of the server-error codes (-32000 to -32099). */
export const MISMATCH_ERROR_CODE = -32000;
