// The course driver: `program.ts <command> <case-dir>` feeds a case to the student's src/mcp.ts
// and prints the result as JSON on stdout, which the grader compares byte for byte with the
// case's expected.json. Everything printed here is decided by this file, never by prose or
// free choices in the student's code; the student's messages go to stderr.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, createConnection, createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import type { AuthorizationOutput, RegistrationsInput } from './harness/stages/authorization/contract.ts';
import type { ConfigOutput, FrameOutput, MessagesInput } from './harness/stages/config-and-framing/contract.ts';
import type { Json, JsonObject, MessageLine, Outcome } from './harness/stages/contract.ts';
import type { AfterClose, HandshakeOutput } from './harness/stages/handshake/contract.ts';
import type { ResourcesOutput, StepLine, StepsInput } from './harness/stages/resources-and-prompts/contract.ts';
import type { Connection, InputsInput, StatelessOutput } from './harness/stages/stateless/contract.ts';
import type { HeadersInput, HttpOutput } from './harness/stages/streamable-http/contract.ts';
import type { CallsInput, ToolsOutput } from './harness/stages/tools/contract.ts';
import type { TranslateOutput } from './harness/stages/translate/contract.ts';
import * as mcp from './src/mcp.ts';

// What each command reads from its case folder and prints is its stage's contract
// (harness/stages/<slug>/contract.ts), which the grader's hints read the output by.
type Command = (caseDir: string) => object | Promise<object>;

const commands: Record<string, Command> = {
  /** messages.json (an array of JSON-RPC messages) -> every message framed, then parsed back. */
  'mcp-frame': (caseDir): FrameOutput => {
    const messages = readJson(join(caseDir, 'messages.json')) as MessagesInput;
    const frames = messages.map((message) => mcp.frame(message));
    const parsed = frames.map((line) => mcp.parseFrame(line) as Json);
    return { frames, parsed };
  },

  /** .mcp.json -> the servers, each with its fields in one fixed order; or the fact of a refusal. */
  'mcp-config': (caseDir): ConfigOutput => {
    const text = readFileSync(join(caseDir, '.mcp.json'), 'utf8');
    let servers: mcp.ServerConfig[];
    try {
      servers = mcp.parseConfig(text);
    } catch (error) {
      rethrowIfNotWritten(error);
      console.error(`parseConfig threw: ${error instanceof Error ? error.message : String(error)}`);
      return { rejected: true };
    }
    return { servers: servers.map(canonicalServer) };
  },

  /** The handshake against the case's cassette: what initialize() returned, or how it failed. */
  handshake: async (caseDir): Promise<HandshakeOutput> => {
    const wire = await connect(caseDir);
    const client = new mcp.McpClient(new mcp.StdioTransport(wire));
    const initialize = await outcome(client.initialize());
    await client.close();
    return { initialize, ...(await afterClose(wire)) };
  },

  /** After the handshake: every tool (all pages), then the calls in calls.json, all at once. */
  tools: async (caseDir): Promise<ToolsOutput> => {
    const calls = readJson(join(caseDir, 'calls.json')) as CallsInput;
    const wire = await connect(caseDir);
    const client = new mcp.McpClient(new mcp.StdioTransport(wire));
    await client.initialize();
    const tools = await outcome(client.listTools());
    const results = await Promise.all(calls.map((call) => outcome(client.callTool(call.name, call.arguments))));
    await client.close();
    return { tools, calls: results, ...(await afterClose(wire)) };
  },

  /** Over Streamable HTTP: initialize, every tool, then the calls in calls.json one after another
   *  (each its own POST, in order); close() ends the session. headers.json: headers for every request.
   *  `notifications`: every notification the transport handed on, in order (a reply's progress among them). */
  http: async (caseDir): Promise<HttpOutput> => {
    const calls = optionalJson(join(caseDir, 'calls.json'), []) as CallsInput;
    const headers = optionalJson(join(caseDir, 'headers.json'), undefined) as HeadersInput | undefined;
    const server = await serverUrl(caseDir);
    try {
      const notifications: MessageLine[] = [];
      const client = new mcp.McpClient(noting(new mcp.HttpTransport(server.url, headers && { headers }), notifications));
      const initialize = await outcome(client.initialize());
      const tools = await outcome(client.listTools());
      const results: Outcome[] = [];
      for (const call of calls) results.push(await outcome(client.callTool(call.name, call.arguments)));
      await client.close();
      return { initialize, tools, calls: results, notifications };
    } finally {
      server.done();
    }
  },

  /** Over Streamable HTTP as `http` does: initialize, every tool, close; then each tool through
   *  toClaudeTool. `unchanged`: every tool still holds, as JSON, what listTools returned (a
   *  translation that edits the MCP tool, its schema or anything in it, makes it false). */
  translate: async (caseDir): Promise<TranslateOutput> => {
    const headers = optionalJson(join(caseDir, 'headers.json'), undefined) as HeadersInput | undefined;
    const server = await serverUrl(caseDir);
    let tools: mcp.Tool[];
    try {
      const client = new mcp.McpClient(new mcp.HttpTransport(server.url, headers && { headers }));
      await client.initialize();
      tools = await client.listTools();
      await client.close();
    } finally {
      server.done();
    }
    const listed = JSON.stringify(canonical(tools));
    const translations = tools.map((tool) => canonicalClaudeTool(mcp.toClaudeTool(tool)));
    return { tools: translations, unchanged: JSON.stringify(canonical(tools)) === listed };
  },

  /** Both eras over Streamable HTTP (stage 6): connect() (server/discover, or initialize for a 2025
   *  server), every tool, then the calls in calls.json one after another (each its own POST, in
   *  order); close(). An input request of the server (input_required) is answered from inputs.json,
   *  by its method (`{ "elicitation/create": { "action": "accept", "content": {...} } }`); the client
   *  declares the capabilities those answers cover. headers.json: headers for every request. */
  stateless: async (caseDir): Promise<StatelessOutput> => {
    const calls = optionalJson(join(caseDir, 'calls.json'), []) as CallsInput;
    const inputs = optionalJson(join(caseDir, 'inputs.json'), {}) as InputsInput;
    const headers = optionalJson(join(caseDir, 'headers.json'), undefined) as HeadersInput | undefined;
    const asked: MessageLine[] = [];
    const onInputRequest = (request: { method: string; params?: object }) => {
      asked.push(canonical({ method: request.method, ...(request.params !== undefined && { params: request.params }) }));
      if (!(request.method in inputs)) throw new Error(`the server asks for ${request.method}, which inputs.json does not answer`);
      return structuredClone(inputs[request.method]);
    };
    const capabilities = Object.fromEntries(Object.keys(inputs).flatMap((method) => (method in CAPABILITY_OF ? [CAPABILITY_OF[method]!] : [])));
    const server = await serverUrl(caseDir);
    try {
      const client = new mcp.McpClient(new mcp.HttpTransport(server.url, headers && { headers }), undefined, { capabilities, onInputRequest });
      const connect = await outcome(client.connect().then(connection));
      if (isFailure(connect)) {
        await client.close();
        return { connect };
      }
      const tools = await outcome(client.listTools());
      const results: Outcome[] = [];
      for (const call of calls) results.push(await outcome(client.callTool(call.name, call.arguments).then(withoutResultType)));
      await client.close();
      return { connect, tools, calls: results, asked };
    } finally {
      server.done();
    }
  },

  /** A server behind OAuth (stage 7), over Streamable HTTP: initialize (which the server refuses
   *  with 401 until the client has authorized), every tool, the calls in calls.json in turn (one may
   *  take a scope the token lacks: 403, a step-up), close(). The "user" signs in at once: signIn
   *  follows the authorization URL's redirects, as a browser does, to the redirect back.
   *  registrations.json: the registrations kept from an earlier run, by issuer (one on the server's
   *  origin as its path). `authorization`: what the client found and decided, its URLs as paths on
   *  the server's origin; `registrations`: the issuers the client keeps a registration for after the
   *  run (a client_id under each), for the next. */
  authorization: async (caseDir): Promise<AuthorizationOutput> => {
    const calls = optionalJson(join(caseDir, 'calls.json'), []) as CallsInput;
    const kept = optionalJson(join(caseDir, 'registrations.json'), {}) as RegistrationsInput;
    const server = await serverUrl(caseDir);
    try {
      const origin = new URL(server.url).origin;
      const registrations = new Map(Object.entries(kept).map(([issuer, registration]) => [issuer.startsWith('/') ? `${origin}${issuer}` : issuer, registration]));
      const oauth = new mcp.OAuthClient({
        redirectUri: REDIRECT_URI,
        clientName: 'MCP course client',
        clientMetadataUrl: CLIENT_METADATA_URL,
        registrations,
        signIn: browse,
      });
      const client = new mcp.McpClient(new mcp.HttpTransport(server.url, { oauth }));
      const initialize = await outcome(client.initialize());
      const tools = isFailure(initialize) ? undefined : await outcome(client.listTools());
      const results: Outcome[] = [];
      if (tools !== undefined) for (const call of calls) results.push(await outcome(client.callTool(call.name, call.arguments)));
      await client.close().catch(() => {});
      const found = oauth.found && Object.fromEntries(Object.entries(oauth.found).map(([key, value]) => [key, onOrigin(value, origin)]));
      const issuers = [...registrations].flatMap(([issuer, registration]) => (typeof registration?.client_id === 'string' ? [onOrigin(issuer, origin)] : []));
      return {
        authorization: canonical(found ?? null),
        initialize,
        ...(tools !== undefined && { tools }),
        ...(results.length > 0 && { calls: results }),
        registrations: (issuers as string[]).sort(),
      };
    } finally {
      server.done();
    }
  },

  /** Resources and prompts (stage 8), over stdio: initialize, then the steps of steps.json in turn, each
   *  printed as `{ step, result }` (see runSteps); `updated`: the URIs handed on by a subscription's
   *  onUpdated, in order. */
  resources: async (caseDir): Promise<ResourcesOutput> => {
    const steps = readJson(join(caseDir, 'steps.json')) as StepsInput;
    const wire = await connect(caseDir);
    const client = new mcp.McpClient(new mcp.StdioTransport(wire));
    await client.initialize();
    const output = await runSteps(client, steps);
    await client.close();
    return { ...output, ...(await afterClose(wire)) };
  },

  /** The same steps over Streamable HTTP: initialize, steps.json in turn, close() (which ends the session). */
  'resources-http': async (caseDir): Promise<ResourcesOutput> => {
    const steps = readJson(join(caseDir, 'steps.json')) as StepsInput;
    const server = await serverUrl(caseDir);
    try {
      const client = new mcp.McpClient(new mcp.HttpTransport(server.url));
      await client.initialize();
      const output = await runSteps(client, steps);
      await client.close();
      return output;
    } finally {
      server.done();
    }
  },
};

/** Each step in turn, as the course prints it: lists as the server gave them (keys sorted); a read's
 *  contents, a prompt's messages and a call's content each by its type (showContent); a refusal or an
 *  error as `outcome` has them. */
async function runSteps(client: mcp.McpClient, steps: StepsInput): Promise<ResourcesOutput> {
  const updated: string[] = [];
  const results: StepLine[] = [];
  for (const step of steps) {
    if ('list' in step) {
      const lists: Record<string, () => Promise<unknown[]>> = { resources: () => client.listResources(), templates: () => client.listResourceTemplates(), prompts: () => client.listPrompts() };
      const list = Object.hasOwn(lists, step.list) ? lists[step.list] : undefined;
      if (list === undefined) throw new Error(`steps.json: no list named ${JSON.stringify(step.list)} (resources, templates, prompts)`);
      results.push({ step, result: await outcome(attempt(list)) });
    } else if ('read' in step) {
      const uri = typeof step.read === 'string' ? step.read : mcp.expandTemplate(step.read.template, step.read.values);
      const read = outcome(attempt(() => client.readResource(uri)).then((contents) => ({ contents: contents.map(showContents) })));
      results.push({ step, ...(typeof step.read !== 'string' && { uri }), result: await read });
    } else if ('prompt' in step) {
      const got = attempt(() => client.getPrompt(step.prompt, step.arguments ?? {})).then((prompt) => ({
        ...prompt,
        messages: prompt.messages.map((message) => ({ ...message, content: showContent(message.content) })),
      }));
      results.push({ step, result: await outcome(got) });
    } else if ('call' in step) {
      const called = attempt(() => client.callTool(step.call, step.arguments)).then((result) => ({ ...result, content: result.content.map(showContent) }));
      results.push({ step, result: await outcome(called) });
    } else if ('subscribe' in step) {
      results.push({ step, result: await outcome(attempt(() => client.subscribe(step.subscribe, (uri) => updated.push(uri))).then(() => ({}))) });
    } else if ('unsubscribe' in step) {
      results.push({ step, result: await outcome(attempt(() => client.unsubscribe(step.unsubscribe)).then(() => ({}))) });
    } else throw new Error(`steps.json: a step the course does not know: ${JSON.stringify(step)}`);
  }
  return { steps: results, updated };
}

/** What `start` returns, or what it throws at once as a rejection: a refusal is one either way. */
function attempt<T>(start: () => Promise<T>): Promise<T> {
  return Promise.resolve().then(start);
}

/** A content item by its type, as the course prints it: text as it is; image and audio with their
 *  data decoded (your decodeBase64) and shown as bytes (showBytes); an embedded resource with its
 *  contents shown as a read's are (a blob decoded); a resource_link as it is. Another type, or a
 *  field missing, shows as the item is. */
function showContent(item: Record<string, unknown>): unknown {
  if ((item.type === 'image' || item.type === 'audio') && typeof item.data === 'string') {
    const { data, ...rest } = item;
    return canonical({ ...rest, data: showBytes(mcp.decodeBase64(data), rest.mimeType) });
  }
  if (item.type === 'resource' && typeof item.resource === 'object' && item.resource !== null) {
    const resource = item.resource as Record<string, unknown>;
    if (typeof resource.blob !== 'string') return canonical(item);
    const { blob, ...rest } = resource;
    return canonical({ ...item, resource: showContents({ ...rest, bytes: mcp.decodeBase64(blob) } as mcp.ResourceContents) });
  }
  return canonical(item);
}

/** A resource's contents as readResource returned them: text as it is, bytes as showBytes shows them
 *  (under `blob`, where the server sent them). */
function showContents(contents: mcp.ResourceContents): unknown {
  if (!('bytes' in contents) || !(contents.bytes instanceof Uint8Array)) return canonical(contents);
  const { bytes, ...rest } = contents;
  return canonical({ ...rest, blob: showBytes(bytes, rest.mimeType) });
}

/** Bytes as the course prints them: how many, their SHA-256, and, for a text type whose bytes are
 *  UTF-8, the text they hold. */
function showBytes(bytes: Uint8Array, mimeType: unknown): object {
  const length = bytes.length;
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  let text: string | undefined;
  if (typeof mimeType === 'string' && mimeType.startsWith('text/')) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      text = undefined;
    }
  }
  return { length, sha256, ...(text !== undefined && { text }) };
}

/** Where the authorization server sends the course's client back: it listens nowhere, the browser
 *  (browse) stops there. */
const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

/** The course client's Client ID Metadata Document, its client_id where an authorization server takes
 *  one: it names the client and REDIRECT_URI (a name under .example, which the course's recordings
 *  answer for; a real client hosts its document at an HTTPS URL of its own). */
const CLIENT_METADATA_URL = 'https://client.example/mcp-course-client.json';

/** The user's browser: from the authorization URL, each redirect followed (a sign-in's on the way,
 *  cookies kept) until one goes to the redirect URI, which is returned. */
async function browse(authorizationUrl: string): Promise<string> {
  const cookies = new Map<string, string>();
  let target = new URL(authorizationUrl);
  for (let hop = 0; hop < 20; hop++) {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const reply = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of reply.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = reply.headers.get('location');
    await reply.body?.cancel();
    if (location === null) throw new Error(`the authorization server answered ${reply.status} without sending the browser on`);
    target = new URL(location, target);
    if (target.href.startsWith(REDIRECT_URI)) return target.href;
  }
  throw new Error('the authorization server sent the browser on 20 times without coming back');
}

/** A URL on the server's origin as its path (the port is the grader's to choose), anything else as it is. */
function onOrigin(value: unknown, origin: string): unknown {
  return typeof value === 'string' && value.startsWith(`${origin}/`) ? value.slice(origin.length) : value;
}

/** The capability (name and value) a client declares to be asked for input of each kind (stateless era). */
const CAPABILITY_OF: Record<string, [string, object]> = {
  'elicitation/create': ['elicitation', { form: {} }],
  'sampling/createMessage': ['sampling', {}],
  'roots/list': ['roots', {}],
};

/** What connect() found, as the protocol decides it: the era, the protocol version, and the server's
 *  name, version, capabilities and instructions (serverInfo of the initialize result; in the
 *  stateless era, the discover result's `_meta` has it), and the versions a discover result lists. */
function connection(found: mcp.Connection): Connection {
  const server = found.server as Record<string, unknown>;
  const meta = (server._meta ?? {}) as Record<string, unknown>;
  const info = found.era === 'modern' ? meta['io.modelcontextprotocol/serverInfo'] : server.serverInfo;
  return {
    era: found.era,
    protocolVersion: found.protocolVersion,
    ...(found.era === 'modern' && { supportedVersions: server.supportedVersions as Json }),
    serverInfo: info as Json,
    capabilities: server.capabilities as Json,
    ...(server.instructions !== undefined && { instructions: server.instructions as Json }),
  };
}

/** A call's result without `resultType`: which round of the exchange ended it (a client may keep
 *  the field or drop it, as the SDK does), not part of the tool's result. A result that is not
 *  complete prints as what it is: no content, its inputRequests and requestState. */
function withoutResultType(result: mcp.CallToolResult): object {
  if (result?.resultType !== 'complete') return result;
  const { resultType: _complete, ...rest } = result;
  return rest;
}

/** The transport as it is, noting each notification it hands on: the events of a reply before its
 *  response are the client's too, and a transport that drops them shows here. */
function noting(transport: mcp.Transport, notes: unknown[]): mcp.Transport {
  const messages = {
    async *[Symbol.asyncIterator]() {
      for await (const message of transport.messages) {
        if (message !== null && typeof message === 'object' && 'method' in message && !('id' in message)) {
          const { method, params } = message as { method: unknown; params?: unknown };
          notes.push(canonical({ method, ...(params !== undefined && { params }) }));
        }
        yield message;
      }
    },
  };
  return { send: (message) => transport.send(message), close: () => transport.close(), messages };
}

function isFailure(outcome: unknown): boolean {
  return typeof outcome === 'object' && outcome !== null && ('error' in outcome || 'refused' in outcome);
}

/** The URL of the case's server: under the grader, its player's (on 127.0.0.1, a port the grader
 *  owns); by hand, a `theinference replay` of the case's cassette started here. */
async function serverUrl(caseDir: string): Promise<{ url: string; done: () => void }> {
  const url = process.env.THEINFERENCE_SERVER_URL;
  const gate = process.env.THEINFERENCE_SERVER_URL_GATE;
  if (url !== undefined && gate !== undefined) return relayedUrl(url, gate, process.env.THEINFERENCE_SERVER_URL_GATE_TOKEN ?? '');
  if (url !== undefined) return { url, done: () => {} };
  const { bin, cassette } = replayByHand(caseDir);
  const player = spawn(process.execPath, [bin, 'replay', cassette], { stdio: ['ignore', 'pipe', 'inherit'] });
  player.stdout.setEncoding('utf8');
  let printed = '';
  for await (const chunk of player.stdout) {
    printed += chunk;
    if (printed.includes('\n')) break;
  }
  // it ends by itself at the client's DELETE; one that never came must not leave it running
  return { url: printed.trim(), done: () => process.once('exit', () => player.kill()) };
}

/** Graded without network, this program has a loopback of its own, which the grader's 127.0.0.1 is not:
 *  the player is reached through its gate, a Unix socket the grader made in the run root. The client is
 *  given a port on this loopback at the player's path, and each of its connections is relayed to the
 *  gate, byte for byte, after the case's token (the player still hears everything and decides). */
async function relayedUrl(url: string, gate: string, token: string): Promise<{ url: string; done: () => void }> {
  // noDelay: a relay passes on each read as it comes. With Nagle's algorithm a write waits while the last
  // is unacknowledged, and a client's kernel delays its ACK up to 40 ms: an event on the GET stream came
  // after the answers to two later requests, and the program had printed without it.
  const relay = createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
    const player = createConnection({ path: gate, allowHalfOpen: true });
    // The relay keeps nothing alive: the client's own connection does, as it would to the player direct.
    client.unref();
    player.unref();
    player.on('error', () => client.destroy());
    client.on('error', () => player.destroy());
    player.write(`${token}\n`);
    client.pipe(player);
    player.pipe(client);
  });
  await new Promise<void>((listening) => relay.listen(0, '127.0.0.1', listening));
  relay.unref();
  const { pathname, search } = new URL(url);
  return { url: `http://127.0.0.1:${(relay.address() as AddressInfo).port}${pathname}${search}`, done: () => relay.close() };
}

/** A result in canonical form, an McpError by its code (the server's), any other failure as a refusal. */
async function outcome(promise: Promise<unknown>): Promise<Outcome> {
  try {
    return canonical(await promise);
  } catch (error) {
    rethrowIfNotWritten(error);
    if (error instanceof mcp.McpError) return { error: { code: error.code } };
    console.error(`refused: ${error instanceof Error ? error.message : String(error)}`);
    return { refused: true };
  }
}

/** The starter's functions throw "not implemented yet: <name>" until written: a function not written
 *  is never a right refusal, so the case ends with that error instead of passing by it. */
function rethrowIfNotWritten(error: unknown): void {
  if (error instanceof Error && error.message.startsWith('not implemented yet')) throw error;
}

/** Keys sorted at every depth: the server's data, independent of how the client copied it (as JSON
 *  prints it: whatever else it holds, JSON.stringify makes JSON of it). */
function canonical(value: unknown): Json {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value as Json;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, canonical(record[key])]));
}

/** A wire that knows whether the client closed it. */
interface TrackedWire extends mcp.Wire {
  readonly closed: boolean;
  /** Whether the end of what the client wrote reached the player: at once on the grader's wire; for a
   *  spawned server, once the server saw its input end and the relay passed that on. */
  delivered(): Promise<boolean>;
}

/** After close(): the wire still open means close() never reached it (the program's exit would hide
 *  that, closing everything), and the output says so. Nothing is added when it was closed, which for
 *  a spawned server means its input ended: waited for, since the program exits right after printing. */
async function afterClose(wire: TrackedWire): Promise<AfterClose> {
  if (wire.closed && (await wire.delivered())) return {};
  console.error('close() returned, and the wire to the server is still open: close the transport, and the transport its wire');
  return { closed: false };
}

/** The wire to the server. A case whose folder has a .mcp.json starts its server with your spawnWire;
 *  any other reaches the cassette player directly: under the grader on fd 3, a socket the grader's
 *  player owns; by hand through `theinference replay`, whose diagnoses show on stderr. */
async function connect(caseDir: string): Promise<TrackedWire> {
  const { wire, delivered } = existsSync(join(caseDir, '.mcp.json')) ? await spawnedWire(caseDir) : { wire: openWire(caseDir), delivered: async () => true };
  let closed = false;
  return {
    delivered,
    write: (data) => wire.write(data),
    chunks: wire.chunks,
    close: () => {
      closed = true;
      wire.close();
    },
    get closed() {
      return closed;
    },
  };
}

function openWire(caseDir: string): mcp.Wire {
  const fd = process.env.THEINFERENCE_WIRE_FD;
  if (fd !== undefined) {
    const socket = graderWire(fd);
    socket.setEncoding('utf8');
    return { write: (data) => void socket.write(data), chunks: socket, close: () => void socket.end() };
  }
  const { bin, cassette } = replayByHand(caseDir);
  const player = spawn(process.execPath, [bin, 'replay', cassette], { stdio: ['pipe', 'pipe', 'inherit'] });
  player.stdout.setEncoding('utf8');
  return { write: (data) => void player.stdin.write(data), chunks: player.stdout, close: () => void player.stdin.end() };
}

/** The first server of the case's .mcp.json (as your parseConfig reads it), started by your spawnWire. It
 *  names theinference-case-server, which carries the session to the cassette player: it finds the player
 *  through what this adds to the entry's env, and is found itself on the PATH your program passes on. */
async function spawnedWire(caseDir: string): Promise<{ wire: mcp.Wire; delivered: () => Promise<boolean> }> {
  const [server] = mcp.parseConfig(readFileSync(join(caseDir, '.mcp.json'), 'utf8'));
  if (server?.type !== 'stdio') throw new Error(`parseConfig read no stdio server first in ${join(caseDir, '.mcp.json')}`);
  const fd = process.env.THEINFERENCE_WIRE_FD;
  let reach: Record<string, string>;
  let serverDir: string;
  let delivered = async () => true;
  if (fd !== undefined) {
    const relay = await relayToGrader(fd);
    reach = { THEINFERENCE_SERVER_SOCKET: relay.name };
    delivered = relay.delivered;
    serverDir = resolve('.theinference', 'case-server'); // put there by the grader, read-only
  } else {
    const { bin, cassette } = replayByHand(caseDir);
    reach = { THEINFERENCE_CASSETTE: cassette, THEINFERENCE_BIN: bin };
    serverDir = join(dirname(dirname(bin)), 'harness', 'case-server');
  }
  process.env.PATH = `${serverDir}${delimiter}${process.env.PATH ?? ''}`;
  return { wire: mcp.spawnWire({ ...server, env: { ...server.env, ...reach } }), delivered };
}

/** A socket that theinference-case-server connects to, relayed byte for byte to the grader's wire: the
 *  grader's player still decides, and reads the server's report of how it was started first. A file
 *  in the temporary folder, not a Linux abstract socket: Node 20 and 22 name those differently, and the
 *  server runs on whichever `node` the PATH gives it. `delivered()`: true once the server's end
 *  of input has been passed on to the grader, or at once when no server ever connected; false when
 *  that has not come within SERVER_END_WAIT_MS (a spawnWire whose close() leaves the child's stdin open). */
async function relayToGrader(fd: string): Promise<{ name: string; delivered: () => Promise<boolean> }> {
  const grader = graderWire(fd);
  const passedOn = new Promise<true>((done) => grader.once('finish', () => done(true)).once('close', () => done(true)));
  let connected = false;
  const id = `theinference-case-server-${process.pid}-${randomBytes(6).toString('hex')}`;
  const listening = createServer((server) => {
    connected = true;
    listening.close(); // one server a case
    server.on('error', () => grader.end()); // the server went away: so did its session
    server.pipe(grader);
    grader.pipe(server);
  });
  const name = join(tmpdir(), id);
  await new Promise<void>((done) => listening.listen(name, done));
  process.once('exit', () => rmSync(name, { force: true })); // closing removes it; exiting does not
  const waited = () => new Promise<false>((done) => setTimeout(() => done(false), SERVER_END_WAIT_MS));
  return { name, delivered: async () => !connected || Promise.race([passedOn, waited()]) };
}

/** Far above the few milliseconds the end takes through two processes, even on a loaded machine. */
const SERVER_END_WAIT_MS = 5000;

function graderWire(fd: string): Socket {
  return new Socket({ fd: Number(fd), readable: true, writable: true });
}

/** By hand: the case's cassette, and the theinference that plays it. */
function replayByHand(caseDir: string): { bin: string; cassette: string } {
  const cassette = join('fixtures', relative('cases', caseDir), 'cassette.yaml');
  const bin = ['bin/theinference.js', 'node_modules/theinference/bin/theinference.js'].find((path) => existsSync(path));
  if (!existsSync(cassette) || bin === undefined) throw new Error(`run this from the course directory: no ${cassette} or theinference here`);
  return { bin: resolve(bin), cassette: resolve(cassette) };
}

const CLAUDE_TOOL_FIELDS = ['name', 'description', 'input_schema'];

/** A translated tool with its fields in the order name, description, input_schema, then any other
 *  field it has (the API refuses those, so they show), sorted; the schema's keys sorted at every
 *  depth. The order in which the student's object holds them is the student's own. */
function canonicalClaudeTool(tool: object): JsonObject {
  const fields = tool as Record<string, unknown>;
  const others = Object.keys(fields)
    .filter((key) => !CLAUDE_TOOL_FIELDS.includes(key))
    .sort();
  return Object.fromEntries([...CLAUDE_TOOL_FIELDS.filter((key) => key in fields), ...others].map((key) => [key, canonical(fields[key])]));
}

const SERVER_FIELDS = ['name', 'type', 'command', 'args', 'env', 'url', 'headers'];

function canonicalServer(server: object): JsonObject {
  const fields = server as Record<string, unknown>;
  return Object.fromEntries(SERVER_FIELDS.filter((key) => key in fields).map((key) => [key, fields[key] as Json]));
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

function optionalJson(path: string, otherwise: unknown): unknown {
  return existsSync(path) ? readJson(path) : otherwise;
}

const [command, caseDir] = process.argv.slice(2);
const run = command === undefined ? undefined : commands[command];
if (run === undefined || caseDir === undefined) {
  console.error(`usage: your_program.sh <command> <case-dir>\ncommands: ${Object.keys(commands).join(', ')}`);
  process.exit(2);
}
const result = await run(caseDir);
// Exit once printed: a connection the client left open must not keep the case running.
process.stdout.write(JSON.stringify(result, null, 2) + '\n', () => process.exit(0));
