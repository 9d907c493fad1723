// Checks each message a client sends against the MCP schema of the negotiated protocol version.
// The schemas are the official SDK's (zod, the 2025-11-25 schema, lenient with extra fields);
// what differs between versions (methods that only exist from some version on) is listed here.
import { isObject, kindOf, type JsonObject } from '../format/model.ts';

interface Schema {
  safeParse(value: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
}
interface Union extends Schema {
  options: (Schema & { shape: { method: { value: string } } })[];
}

interface Schemas {
  requests: Map<string, Schema>;
  notifications: Map<string, Schema>;
  result: Schema | undefined;
}

function byMethod(union: unknown): Map<string, Schema> {
  const map = new Map<string, Schema>();
  for (const option of (union as Union | undefined)?.options ?? []) map.set(option.shape.method.value, option);
  return map;
}

let schemas: Schemas | undefined;
let loading: Promise<void> | undefined;
/**
 * Loads the SDK's schemas, once (they take longer to import than a replay takes to answer
 * initialize, so nothing waits for them up front); until they are loaded `checkClientMessage`
 * says `PENDING`. The SDK is a dev dependency: without it, only the JSON-RPC shape is checked.
 */
export function loadSchemas(): Promise<void> {
  loading ??= import('@modelcontextprotocol/sdk/types.js').then(
    (sdk) => {
      schemas = {
        requests: byMethod(sdk.ClientRequestSchema),
        notifications: byMethod(sdk.ClientNotificationSchema),
        result: sdk.ClientResultSchema as Schema,
      };
    },
    () => {
      schemas = { requests: new Map(), notifications: new Map(), result: undefined };
    },
  );
  return loading;
}

export const PENDING = Symbol('schemas not loaded yet');

/** Methods a client may only use from a version on. */
const INTRODUCED: Record<string, string> = {
  'tasks/get': '2025-11-25',
  'tasks/result': '2025-11-25',
  'tasks/list': '2025-11-25',
  'tasks/cancel': '2025-11-25',
  'notifications/tasks/status': '2025-11-25',
  'server/discover': '2026-07-28',
};
/** Methods of versions newer than the SDK's schema: shape-checked only. */
const EXTRA_REQUESTS = new Set(['server/discover']);

/** A problem in plain words, or undefined when the message is valid for `version`. */
export function checkClientMessage(message: JsonObject, version: string | undefined): string | undefined | typeof PENDING {
  if (schemas === undefined) {
    void loadSchemas();
    return PENDING;
  }
  if (message.jsonrpc !== '2.0') return 'jsonrpc must be "2.0"';
  const kind = kindOf(message);
  if (kind === undefined) return 'not a JSON-RPC request, notification or response';
  if (kind !== 'notification' && typeof message.id !== 'string' && (typeof message.id !== 'number' || !Number.isInteger(message.id))) {
    return 'id must be a string or an integer';
  }
  if ('params' in message && !isObject(message.params)) return 'params must be an object';
  if (kind === 'response') {
    if ('result' in message && 'error' in message) return 'a response has either result or error, not both';
    if ('result' in message) return explain(schemas.result, message.result, 'result');
    const error = message.error;
    if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return 'error must have an integer code and a string message';
    return undefined;
  }
  const method = message.method as string;
  const since = INTRODUCED[method];
  if (since !== undefined && version !== undefined && version < since) return `${method} does not exist in protocol version ${version} (it came in ${since})`;
  if (schemas.result === undefined) return undefined; // no SDK: shape only
  const table = kind === 'request' ? schemas.requests : schemas.notifications;
  const schema = table.get(method);
  if (schema === undefined) {
    if (kind === 'request' && EXTRA_REQUESTS.has(method)) return undefined;
    const other = (kind === 'request' ? schemas.notifications : schemas.requests).has(method);
    if (other) return `${method} is a ${kind === 'request' ? 'notification' : 'request'}: it must ${kind === 'request' ? 'not have' : 'have'} an id`;
    return `${method} is not a client ${kind} in MCP`;
  }
  return explain(schema, message, '');
}

function explain(schema: Schema | undefined, value: unknown, prefix: string): string | undefined {
  if (schema === undefined) return undefined;
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error?.issues[0];
  if (!issue) return 'does not match the MCP schema';
  const path = [prefix, ...issue.path.map(String)].filter((part) => part !== '').join('.');
  return `${path === '' ? 'message' : path}: ${issue.message}`;
}
