// An HTTP request the face refuses before the player is given a message of it, answered as a
// Streamable HTTP server answers it (a JSON-RPC error, worded as the SDK's servers word it, or no
// body), with the mistake said on what was sent and both drawn in the exchange; and what a request
// says in its headers.
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { DiagnosisKind, Json, JsonObject, MirrorHeaders, Player } from '../../cassette/index.ts';

export const JSON_TYPE = 'application/json';
export const SSE_TYPE = 'text/event-stream';

export interface Refusal {
  status: number;
  /** The JSON-RPC error of the body (a text: code -32000), or none: no body. */
  error?: string | JsonObject;
  id?: Json;
  headers?: Record<string, string>;
}

/** Refuses a request: `sent` is the message, when its body was read; else the request, or its text. */
export function refuseRequest(
  player: Player,
  sent: IncomingMessage | JsonObject | string,
  response: ServerResponse,
  refusal: Refusal,
  mistake?: [DiagnosisKind, string],
): void {
  const error = typeof refusal.error === 'string' ? { code: -32000, message: refusal.error } : refusal.error;
  const said = sent instanceof IncomingMessage ? requestText(sent) : sent;
  player.transportRefusal(said, refusal.status, error?.message, mistake && { kind: mistake[0], message: mistake[1] });
  if (error === undefined) return void response.writeHead(refusal.status, refusal.headers).end();
  response.writeHead(refusal.status, { ...refusal.headers, 'content-type': JSON_TYPE }).end(JSON.stringify({ jsonrpc: '2.0', error, id: refusal.id ?? null }));
}

/** The headers of a POST that mirror its body (the stateless revision). */
export function mirrorHeaders(request: IncomingMessage): MirrorHeaders {
  const one = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const params: Record<string, string> = {};
  for (const name of Object.keys(request.headers)) if (name.startsWith('mcp-param-')) params[name] = one(name)!;
  return { version: one('mcp-protocol-version'), method: one('mcp-method'), name: one('mcp-name'), params };
}

/** A request as the exchange draws it: its request line and the headers a Streamable HTTP server decides by. */
export function requestText(request: IncomingMessage): string {
  const shown = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id'];
  const headers = shown.filter((name) => request.headers[name] !== undefined).map((name) => `${name}: ${String(request.headers[name])}`);
  return [`${request.method} ${request.url}`, ...headers].join('\n');
}
