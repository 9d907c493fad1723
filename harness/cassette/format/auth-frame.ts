// How an authorization frame reads from a cassette file: the request (whose endpoint, method, path,
// query, the headers that decide it, a form or JSON body) and the reply (status, headers, a JSON or
// text body), each field checked with the line it is on (format.ts gives the means).
import { isObject, type AuthFrame, type AuthReply, type AuthRequest, type Json, type JsonObject } from './model.ts';
import type { Segment } from '../../exchange/json-path.ts';

export interface FieldReading {
  fail: (path: Segment[], problem: string) => never;
  checkKeys: (value: JsonObject, allowed: string[], path: Segment[]) => void;
  readHeaders: (value: unknown, path: Segment[]) => Record<string, string>;
}

const SERVERS = ['resource', 'authorization'] as const;
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'];

export function readAuthFrame(entry: JsonObject, path: Segment[], read: FieldReading, line: number | undefined): AuthFrame {
  return { from: 'auth', request: readRequest(entry.auth, [...path, 'auth'], read), reply: readAuthReply(entry.reply, [...path, 'reply'], read), line };
}

function readRequest(value: unknown, path: Segment[], read: FieldReading): AuthRequest {
  if (!isObject(value)) return read.fail(path, 'expected the request: a mapping with server, method and path');
  read.checkKeys(value, ['server', 'method', 'path', 'query', 'headers', 'form', 'json'], path);
  if (!SERVERS.includes(value.server as AuthRequest['server']))
    read.fail([...path, 'server'], `expected whose endpoint it is: ${SERVERS.join(' (the MCP server) or ')} (the authorization server)`);
  if (typeof value.method !== 'string' || !METHODS.includes(value.method)) read.fail([...path, 'method'], `expected one of ${METHODS.join(', ')}`);
  if (typeof value.path !== 'string' || !value.path.startsWith('/') || value.path.includes('?'))
    read.fail([...path, 'path'], 'expected a path that starts with / (its query goes in query)');
  if (value.form !== undefined && value.json !== undefined) read.fail([...path, 'json'], 'a request has one body: form or json, not both');
  return {
    server: value.server as AuthRequest['server'],
    method: value.method as string,
    path: value.path as string,
    ...(value.query !== undefined && { query: readFields(value.query, [...path, 'query'], read) }),
    ...(value.headers !== undefined && { headers: read.readHeaders(value.headers, [...path, 'headers']) }),
    ...(value.form !== undefined && { form: readFields(value.form, [...path, 'form'], read) }),
    ...(value.json !== undefined && { json: value.json as Json }),
  };
}

function readAuthReply(value: unknown, path: Segment[], read: FieldReading): AuthReply {
  if (!isObject(value)) return read.fail(path, 'expected the reply: a mapping with status, and headers and a json or text body if it had them');
  read.checkKeys(value, ['status', 'headers', 'json', 'text'], path);
  const { status } = value;
  if (!Number.isInteger(status) || (status as number) < 100 || (status as number) > 599) read.fail([...path, 'status'], 'expected an HTTP status (100 to 599)');
  if (value.json !== undefined && value.text !== undefined) read.fail([...path, 'text'], 'a reply has one body: json or text, not both');
  if (value.text !== undefined && typeof value.text !== 'string') read.fail([...path, 'text'], 'expected the body as a string');
  return {
    status: status as number,
    ...(value.headers !== undefined && { headers: read.readHeaders(value.headers, [...path, 'headers']) }),
    ...(value.json !== undefined && { json: value.json as Json }),
    ...(value.text !== undefined && { text: value.text as string }),
  };
}

/** Query or form fields: names to one value each (a field given twice is refused at recording). */
function readFields(value: unknown, path: Segment[], read: FieldReading): Record<string, string> {
  if (!isObject(value)) return read.fail(path, 'expected a mapping of field names to values');
  for (const [name, text] of Object.entries(value)) if (typeof text !== 'string') read.fail([...path, name], 'expected the value as a string');
  return value as Record<string, string>;
}
