// Derives the handshake and tools cases from the cassettes recorded from real servers (cassettes/),
// editing them only where no real server produces the situation a case needs; each such edit is
// said in the case cassette's provenance. Run: node --import tsx scripts/derive-cases.ts
// then `npx theinference bless --stage handshake` and `--stage tools` for the expected output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette, saveCassette, type Cassette, type Frame, type JsonObject } from '../harness/cassette/index.ts';
import type { CallsInput } from '../harness/stages/tools/contract.ts';

const root = join(import.meta.dirname, '..');
const recorded = (name: string) => loadCassette(join(root, 'cassettes', `${name}.yaml`));
const clone = <T>(value: T): T => structuredClone(value);

const everythingHandshake = recorded('everything-handshake');
const everythingTools = recorded('everything-tools');
const memoryTools = recorded('memory-tools');

/** Client frames are matched by method; server frames found by the id or method they carry. */
const isClient = (frame: Frame, method: string) => frame.from === 'client' && frame.message.method === method;
const message = (frame: Frame): JsonObject => (frame.from === 'client' || frame.from === 'server' ? frame.message : {});

/** A client's initialize may differ in what the protocol leaves to it: its name and its capabilities. */
const FREE = ['params.clientInfo', 'params.capabilities'];

function handshakeFrames(source: Cassette): Frame[] {
  // initialize, the server's stderr, its result, then initialized (the recording's ping is not part of a handshake)
  const end = source.frames.findIndex((frame) => isClient(frame, 'notifications/initialized'));
  return clone(source.frames.slice(0, end + 1));
}

function derived(source: Cassette, sourceName: string, frames: Frame[], note: string): Cassette {
  return {
    version: 1,
    transport: 'stdio',
    provenance: { ...source.provenance, note: `derived from cassettes/${sourceName}.yaml: ${note}` },
    free: FREE,
    frames,
  };
}

function resultIndex(frames: Frame[], id: number): number {
  return frames.findIndex((frame) => frame.from === 'server' && frame.message.id === id && !('method' in frame.message));
}

interface CaseSpec {
  about: string;
  cassette: Cassette;
  calls?: CallsInput;
  /** The case's .mcp.json: program.ts starts its first server with the student's spawnWire. */
  config?: JsonObject;
}

const cases: Record<string, Record<string, CaseSpec>> = { handshake: {}, tools: {} };

// ------------------------------------------------------------------------------ handshake
{
  const base = handshakeFrames(everythingHandshake);
  const result = resultIndex(base, 0);
  const listChanged: Frame = { from: 'server', message: { method: 'notifications/tools/list_changed', jsonrpc: '2.0' } };
  const add = (name: string, about: string, frames: Frame[], note: string, config?: JsonObject) =>
    (cases.handshake![name] = { about, cassette: derived(everythingHandshake, 'everything-handshake', frames, note), ...(config && { config }) });

  add(
    'everything-server',
    'The handshake with the real everything server: initialize, its result (keys in the order the server writes them: result, jsonrpc, id), then notifications/initialized.',
    clone(base),
    'the handshake only (the ping after it is left out)',
  );

  let frames = clone(base);
  frames.splice(result, 0, clone(listChanged));
  add(
    'notification-before-result',
    'A notification (tools/list_changed) arrives before the initialize result: the client must not take it for the response.',
    frames,
    'notifications/tools/list_changed moved before the initialize result, where a server may send it',
  );

  frames = clone(base);
  frames.splice(result, 0, {
    from: 'server',
    message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'everything-server', data: 'starting up' } },
  });
  add(
    'log-message-before-result',
    'A log message (notifications/message) arrives before the initialize result.',
    frames,
    'a notifications/message added before the initialize result',
  );

  frames = clone(base);
  frames.splice(result, 0, { from: 'stdout', text: 'Everything server listening on stdio\n' });
  add(
    'non-json-line-before-result',
    'A careless server printed a log line on stdout before its result: the client skips the line that is not JSON and goes on.',
    frames,
    'a non-JSON log line added on stdout before the initialize result, as a server that logs with console.log does',
  );

  frames = clone(base);
  const splitResult = frames[result] as Extract<Frame, { from: 'server' }>;
  const bytes = Buffer.from(`${JSON.stringify(splitResult.message)}\n`);
  const emoji = bytes.indexOf(Buffer.from('🎉'));
  splitResult.cuts = [Math.floor(emoji / 2), emoji + 2]; // the second cut falls inside the emoji's four bytes
  add(
    'result-split-across-reads',
    'The initialize result arrives in three reads, one of them cut inside a four-byte emoji (program.ts decodes the wire as UTF-8: this case tests that the client buffers a message across reads).',
    frames,
    'the initialize result cut into three reads, one cut inside the 🎉 of its instructions',
  );

  frames = clone(base);
  const cutResult = frames[result] as Extract<Frame, { from: 'server' }>;
  cutResult.cuts = [Buffer.from(`${JSON.stringify(cutResult.message)}\n`).indexOf(Buffer.from('🎉')) + 2];
  add(
    'server-spawned-from-config',
    "Your spawnWire starts the server of the case's .mcp.json: theinference-case-server (it carries the recorded everything server's side), found on the PATH the child inherits, given the entry's args and env. The initialize result arrives in two reads cut inside a four-byte emoji: spawnWire decodes the child's stdout as one stream (a read decoded alone turns the cut character into U+FFFD).",
    frames,
    "the initialize result cut into two reads inside the 🎉 of its instructions; the server is started from the case's .mcp.json",
    { mcpServers: { everything: { command: 'theinference-case-server', args: ['stdio'], env: { CASE_SERVER_GREETING: 'grüß dich 👋' } } } },
  );

  frames = clone(base);
  frames.splice(result, 0, { ...(clone(listChanged) as Extract<Frame, { from: 'server' }>), flush: false });
  add(
    'two-messages-in-one-read',
    'A notification and the initialize result arrive in the same read: two lines in one chunk.',
    frames,
    'notifications/tools/list_changed moved before the initialize result, both written in one read',
  );

  frames = clone(base);
  (message(frames[result]!).result as JsonObject).protocolVersion = '2025-06-18';
  add(
    'version-counter-offer-supported',
    'The server answers with an older protocol version (2025-06-18) than the client asked for; the client supports it, so it goes on with notifications/initialized.',
    frames,
    'the result offers protocolVersion 2025-06-18 instead of 2025-11-25',
  );

  frames = clone(base).slice(0, result + 1);
  (message(frames[result]!).result as JsonObject).protocolVersion = '2099-01-01';
  add(
    'version-counter-offer-unsupported',
    'The server answers with a protocol version the client does not support: the client must refuse it (no notifications/initialized) and close.',
    frames,
    'the result offers protocolVersion 2099-01-01, which no client supports; nothing follows it',
  );

  frames = clone(base).slice(0, result + 1);
  // Older than every MCP revision: 2024-10-07, a pre-release one, is still supported by the official SDK.
  (message(frames[result]!).result as JsonObject).protocolVersion = '2000-01-01';
  add(
    'version-counter-offer-older-unsupported',
    'The server answers with a protocol version older than any the client supports (2000-01-01): the client must refuse it as it refuses a newer one (no notifications/initialized), which a client that only compares dates does not.',
    frames,
    'the result offers protocolVersion 2000-01-01, older than every MCP revision; nothing follows it',
  );

  frames = clone(base).slice(0, result + 1);
  frames[result] = {
    from: 'server',
    message: {
      jsonrpc: '2.0',
      id: 0,
      error: { code: -32602, message: 'Unsupported protocol version', data: { supported: ['2024-11-05'], requested: '2025-11-25' } },
    },
  };
  add(
    'initialize-error',
    'The server answers initialize with a JSON-RPC error: the client reports it (an McpError with the code) and sends nothing more.',
    frames,
    'the initialize result replaced by the error a server that only speaks 2024-11-05 answers, as the 2025-11-25 lifecycle describes',
  );

  cases.handshake!['memory-server'] = {
    about: 'The handshake with the real memory server, which declares other capabilities and no instructions.',
    cassette: derived(memoryTools, 'memory-tools', handshakeFrames(memoryTools), 'the handshake only'),
  };
}

// ------------------------------------------------------------------------------ tools
{
  const source = everythingTools.frames;
  const upToList = (cassette: Cassette) => {
    const list = cassette.frames.findIndex((frame) => isClient(frame, 'tools/list'));
    const listId = message(cassette.frames[list]!).id as number;
    return clone(cassette.frames.slice(0, resultIndex(cassette.frames, listId) + 1));
  };
  const call = (id: number): Frame[] => {
    const request = source.findIndex((frame) => frame.from === 'client' && frame.message.id === id);
    return clone([source[request]!, source[resultIndex(source, id)]!]);
  };
  const argsOf = (frames: Frame[]) =>
    frames.filter((frame) => isClient(frame, 'tools/call')).map((frame) => message(frame).params as { name: string; arguments: JsonObject });
  const add = (name: string, about: string, frames: Frame[], note: string, from = everythingTools, fromName = 'everything-tools') =>
    (cases.tools![name] = { about, cassette: derived(from, fromName, frames, note), calls: argsOf(frames) });

  const calls = [2, 3, 4, 5, 6, 7].flatMap(call);
  add(
    'everything-server',
    'The real everything server: every tool listed, then calls whose results hold text, an image, resource links, an embedded resource and structured content.',
    [...upToList(everythingTools), ...calls],
    'tools/list and six calls (the error cases are cases of their own)',
  );

  add(
    'is-error-results',
    'Two calls whose results say isError: true (an unknown tool, invalid arguments): a failed tool is a result, not an exception.',
    [...upToList(everythingTools), ...[8, 9].flatMap(call)],
    'tools/list and the two calls that end in isError results',
  );

  let frames = [...upToList(everythingTools), ...call(8)];
  frames[frames.length - 1] = {
    from: 'server',
    message: { jsonrpc: '2.0', id: 8, error: { code: -32602, message: 'MCP error -32602: Tool no-such-tool not found' } },
  };
  add(
    'json-rpc-error',
    'A call answered with a JSON-RPC error rather than a result: the client throws McpError with the code.',
    frames,
    'the isError result of the unknown tool replaced by the JSON-RPC error servers on earlier SDKs answered with',
  );

  const [requestA, answerA] = call(2);
  const [requestB, answerB] = call(3);
  frames = [...upToList(everythingTools), requestA!, requestB!, answerB!, answerA!];
  add(
    'responses-out-of-order',
    'Two calls in flight at once, answered in the other order: each response goes to the request with its id.',
    frames,
    'two calls sent together, the second answered first, as a server that runs them concurrently may',
  );

  frames = [...upToList(everythingTools), ...call(2)];
  const listAt = frames.findIndex((frame) => isClient(frame, 'tools/list'));
  const listResult = resultIndex(frames, message(frames[listAt]!).id as number);
  const allTools = (message(frames[listResult]!).result as { tools: JsonObject[] }).tools;
  const pages = [allTools.slice(0, 5), allTools.slice(5, 10), allTools.slice(10)];
  const cursors = ['eyJwYWdlIjoyfQ==', 'eyJwYWdlIjozfQ=='];
  const paged: Frame[] = pages.flatMap((tools, page): Frame[] => [
    { from: 'client', message: { method: 'tools/list', ...(page > 0 && { params: { cursor: cursors[page - 1]! } }), jsonrpc: '2.0', id: 100 + page } },
    { from: 'server', message: { result: { tools, ...(page < 2 && { nextCursor: cursors[page]! }) }, jsonrpc: '2.0', id: 100 + page } },
  ]);
  frames.splice(listAt, listResult - listAt + 1, ...paged, ...frames.slice(listAt + 1, listResult));
  add(
    'pagination',
    'The tool list comes in three pages: the client follows nextCursor until the server gives none.',
    frames,
    "the everything server's tools served in three pages of at most five, with opaque cursors",
  );

  const [audioRequest, audioAnswer] = call(4);
  (message(audioRequest!).params as JsonObject).name = 'get-tiny-audio';
  (message(audioAnswer!).result as JsonObject).content = [
    { type: 'text', text: "Here's the audio you requested:" },
    { type: 'audio', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=', mimeType: 'audio/wav' },
  ];
  add(
    'audio-content',
    'A result whose content is audio (base64 data and a mimeType).',
    [...upToList(everythingTools), audioRequest!, audioAnswer!],
    'the image call turned into an audio one: no recorded server offers audio, and the 2025-11-25 schema defines it',
  );

  // Requests from the server come while the client waits for a response of its own: the only place
  // where every correct client answers them before its next message, whatever its reads.
  frames = [...upToList(everythingTools), ...call(2)];
  const listed = frames.findIndex((frame) => isClient(frame, 'tools/list'));
  frames.splice(
    listed + 1,
    0,
    { from: 'server', message: { method: 'ping', jsonrpc: '2.0', id: 0 } },
    { from: 'client', message: { result: {}, jsonrpc: '2.0', id: 0 } },
  );
  add(
    'ping-from-server',
    'The server pings the client while the client waits for its tool list: the client answers at once with an empty result, then gets its list.',
    frames,
    'a ping from the server (its own id 0) and the empty result every client answers it with, added between tools/list and its result: MCP lets either side ping at any time',
  );

  const serverRequests = recorded('everything-server-requests');
  const rootsRequest = serverRequests.frames.find((frame) => frame.from === 'server' && frame.message.method === 'roots/list')!;
  frames = [...upToList(everythingTools), ...call(2)];
  frames.splice(frames.length - 1, 0, clone(rootsRequest), {
    from: 'client',
    message: { error: { code: -32601, message: 'Method not found' }, jsonrpc: '2.0', id: message(rootsRequest).id! },
  });
  add(
    'request-not-handled',
    "While the client waits for a tool call's result, the server asks it for roots/list, a request this client does not handle: it answers with a -32601 error (Method not found) and gets its result.",
    frames,
    "the roots/list request of cassettes/everything-server-requests.yaml sent while the echo call runs; the client's -32601 answer written by hand (the recorded client had roots to give)",
  );

  add(
    'memory-server',
    'The real memory server: its tools, then five calls that build a small knowledge graph and read it back.',
    [...upToList(memoryTools), ...memoryTools.frames.slice(upToList(memoryTools).length)],
    'tools/list and every call',
    memoryTools,
    'memory-tools',
  );
}

for (const [stage, stageCases] of Object.entries(cases)) {
  for (const [name, spec] of Object.entries(stageCases)) {
    const caseDir = join(root, 'cases', stage, name);
    mkdirSync(caseDir, { recursive: true });
    writeFileSync(join(caseDir, 'case.md'), `${spec.about}\n`);
    if (spec.calls) writeFileSync(join(caseDir, 'calls.json'), `${JSON.stringify(spec.calls, null, 2)}\n`);
    if (spec.config) writeFileSync(join(caseDir, '.mcp.json'), `${JSON.stringify(spec.config, null, 2)}\n`);
    const fixtureDir = join(root, 'fixtures', stage, name);
    mkdirSync(fixtureDir, { recursive: true });
    saveCassette(spec.cassette, join(fixtureDir, 'cassette.yaml'), { overwrite: true });
  }
}
console.log(
  Object.entries(cases)
    .map(([stage, stageCases]) => `${stage}: ${Object.keys(stageCases).join(', ')}`)
    .join('\n'),
);
