// A recording's client side, written down (`record --script session.yaml`): the official SDK client
// makes the handshake, then each step in order, so that an author records a session without writing
// a client. A step is a method alone (`tools/list`, `ping`) or a method with its params
// (`tools/call: {name: echo, arguments: {message: hi}}`); a method under `notifications/` is sent as
// a notification. What the server answers, errors included, is recorded as it comes. Over stdio the
// client talks to the recorder through a pair of streams; over Streamable HTTP, to the recorder's URL,
// authorizing where the server asks (OAuth), and it ends the session with DELETE, as a client that is done does.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Readable, Writable } from 'node:stream';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { CassetteError } from '../format/format.ts';
import { isObject, type JsonObject } from '../format/model.ts';

export interface SessionScript {
  client: { name: string; version: string };
  /** What the client declares in initialize; `roots` makes it answer roots/list with `roots`. */
  capabilities: JsonObject;
  roots: { uri: string; name?: string }[];
  steps: { method: string; params?: JsonObject }[];
}

const KEYS = ['client', 'capabilities', 'roots', 'steps'];

/** The script in `file`; bad input names the file, the line and what was expected. */
export function loadScript(file: string): SessionScript {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CassetteError(file, undefined, '(file)', (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message);
  }
  const { LineCounter, parseDocument } = createRequire(import.meta.url)('yaml') as typeof import('yaml');
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true });
  const lineOf = (path: (string | number)[]) => {
    const range = (doc.getIn(path, true) as { range?: [number, number, number] } | undefined)?.range ?? (doc.contents as { range?: [number] } | null)?.range;
    return range ? lines.linePos(range[0]).line : undefined;
  };
  const fail = (path: (string | number)[], field: string, problem: string): never => {
    throw new CassetteError(file, lineOf(path), field, problem);
  };
  if (doc.errors.length > 0) throw new CassetteError(file, lines.linePos(doc.errors[0]!.pos[0]).line, '(yaml)', doc.errors[0]!.message.split('\n')[0]!);
  const root = doc.toJS() as unknown;
  if (!isObject(root)) return fail([], '(top level)', 'expected a mapping with steps (and optionally client, capabilities, roots)');
  for (const key of Object.keys(root)) if (!KEYS.includes(key)) fail([key], key, `unknown field (expected one of ${KEYS.join(', ')})`);
  const client = root.client ?? { name: 'theinference-record', version: '1.0.0' };
  if (!isObject(client) || typeof client.name !== 'string' || typeof client.version !== 'string') {
    fail(['client'], 'client', 'expected {name: <string>, version: <string>}');
  }
  const capabilities = root.capabilities ?? {};
  if (!isObject(capabilities)) fail(['capabilities'], 'capabilities', 'expected a mapping, as initialize declares it');
  const roots = root.roots ?? [];
  if (!Array.isArray(roots) || !roots.every((item) => isObject(item) && typeof item.uri === 'string')) {
    fail(['roots'], 'roots', 'expected a list of {uri, name}');
  }
  if (!Array.isArray(root.steps) || root.steps.length === 0) return fail(['steps'], 'steps', 'expected a list of steps (a method, or {method: params})');
  const steps = root.steps.map((step, index) => {
    if (typeof step === 'string' && step !== '') return { method: step };
    if (isObject(step) && Object.keys(step).length === 1) {
      const [method, params] = Object.entries(step)[0]!;
      if (params === null) return { method };
      if (isObject(params)) return { method, params };
    }
    return fail(['steps', index], `steps[${index}]`, 'expected a method (tools/list) or one method with its params ({tools/call: {name: echo}})');
  });
  return {
    client: client as SessionScript['client'],
    capabilities: capabilities as JsonObject,
    roots: roots as SessionScript['roots'],
    steps,
  };
}

/** Plays the script as the SDK client over a byte stream pair (to the server, from the server). */
export async function driveScript(script: SessionScript, toServer: Writable, fromServer: Readable): Promise<void> {
  const client = await scriptClient(script);
  await client.connect(await streamTransport(toServer, fromServer));
  await playSteps(client, script);
  await client.close();
}

/** How the scripted client authorizes where a server asks (harness/authorization/scripted-client.ts):
 *  its OAuth client provider, and the code the last redirect back carried, taken once. */
export interface ScriptOAuth {
  provider: OAuthClientProvider;
  code(): string | undefined;
}

/** Plays the script as the SDK client over Streamable HTTP at `url` (the recorder's): connect
 *  (initialize, initialized, the GET stream), the steps, then DELETE (terminateSession), which ends
 *  the recorded session, and close. With `oauth`, a server behind OAuth is authorized as it asks:
 *  the first request refused 401, the flow runs and the client connects again with its token; a
 *  step refused for a scope (403), the flow runs again and the step is sent again. */
export async function driveScriptOverHttp(script: SessionScript, url: string, oauth?: ScriptOAuth): Promise<void> {
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { UnauthorizedError } = await import('@modelcontextprotocol/sdk/client/auth.js');
  const open = () => new StreamableHTTPClientTransport(new URL(url), oauth && { authProvider: oauth.provider });
  /** After the transport sent the user to authorize (UnauthorizedError), trades the code: true when it did. */
  const authorized = async (error: unknown, transport: InstanceType<typeof StreamableHTTPClientTransport>) => {
    const code = error instanceof UnauthorizedError ? oauth?.code() : undefined;
    if (code === undefined) return false;
    await transport.finishAuth(code);
    return true;
  };
  let transport = open();
  let client = await scriptClient(script);
  try {
    await client.connect(transport);
  } catch (error) {
    if (!(await authorized(error, transport))) throw error;
    transport = open();
    client = await scriptClient(script);
    await client.connect(transport);
  }
  await playSteps(client, script, (error) => authorized(error, transport));
  await transport.terminateSession();
  await client.close();
}

/** The SDK client the script describes: its clientInfo, its capabilities, its answer to roots/list. */
async function scriptClient(script: SessionScript): Promise<Client> {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { ListRootsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const client = new Client(script.client, { capabilities: script.capabilities });
  if ('roots' in script.capabilities) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: script.roots }));
  return client;
}

/** Each step in turn; `again`: whether a request that failed so is to be sent again (authorized since). */
async function playSteps(client: Client, script: SessionScript, again: (error: unknown) => Promise<boolean> = async () => false): Promise<void> {
  const { ResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
  for (const { method, params } of script.steps) {
    if (method.startsWith('notifications/')) {
      await client.notification({ method, ...(params && { params }) });
      continue;
    }
    const send = () => client.request({ method, ...(params && { params }) }, ResultSchema);
    // an error is the server's answer: recorded
    await send().catch(async (error: unknown) => ((await again(error)) ? send().catch(() => undefined) : undefined));
  }
}

/** The SDK's stdio framing over two streams. */
async function streamTransport(toServer: Writable, fromServer: Readable): Promise<Transport> {
  const { ReadBuffer, serializeMessage } = await import('@modelcontextprotocol/sdk/shared/stdio.js');
  const buffer = new ReadBuffer();
  const transport: Transport = {
    async start() {
      fromServer.on('data', (chunk: Buffer) => {
        buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = buffer.readMessage();
          } catch {
            continue; // a line that is not JSON-RPC: the recorder keeps it (or refuses the session)
          }
          if (message === null) break;
          transport.onmessage?.(message);
        }
      });
      fromServer.once('end', () => transport.onclose?.());
    },
    async send(message) {
      toServer.write(serializeMessage(message));
    },
    async close() {
      toServer.end();
    },
  };
  return transport;
}
