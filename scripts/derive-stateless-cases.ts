// Derives the stateless cases (stage 6) from the sessions recorded from the 2026-07-28 servers of
// scripts/stateless-servers/ and from server-everything probed with server/discover
// (cassettes/stateless-*.yaml), editing them only where no recorded session holds what a case needs;
// each edit is said in the case cassette's provenance. Run: node --import tsx scripts/derive-stateless-cases.ts
// then `npx theinference bless --stage stateless` for the expected output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette, saveCassette, type Cassette, type ClientFrame, type Frame, type Json, type JsonObject } from '../harness/cassette/index.ts';
import type { InputsInput } from '../harness/stages/stateless/contract.ts';

const ROOT = join(import.meta.dirname, '..');
const FOLDER = 'stateless';

const load = (name: string): Cassette => loadCassette(join(ROOT, 'cassettes', `${name}.yaml`));
const tools = load('stateless-tools');
const mismatch = load('stateless-header-mismatch');
const fallback = load('stateless-fallback');
const everything = load('everything-http-tools');

/** The answer of inputs.json to the deploy tool's question: yes. */
const CONFIRM = { 'elicitation/create': { action: 'accept', content: { confirm: true } } };
/** ...and no. */
const DECLINE = { 'elicitation/create': { action: 'decline' } };

const copy = (frames: Frame[]): Frame[] => structuredClone(frames).map(({ line: _line, ...frame }) => frame as Frame);
const isClient = (frame: Frame, method: string): frame is ClientFrame => frame.from === 'client' && frame.message.method === method;
const callOf = (frame: Frame) =>
  frame.from === 'client' && frame.message.method === 'tools/call' ? (frame.message.params as { name: string; arguments: object }) : undefined;

/** Whether a server or sse frame answers the request `id`, or went in its POST's stream or body. */
const answers = (frame: Frame, id: Json | undefined): boolean =>
  (frame.from === 'server' && frame.message.id === id) || ((frame.from === 'server' || frame.from === 'sse') && frame.http?.request === id);

/** The frames of a request: the client's, and every server and sse frame that answers its id. */
function exchange(frames: Frame[], at: number): Frame[] {
  const request = frames[at] as ClientFrame;
  const id = request.message.id;
  return copy([request, ...frames.filter((frame) => answers(frame, id))]);
}

/** The recorded calls of tools/call, by tool name (each exchange as recorded; deploy's two rounds). */
function callExchanges(frames: Frame[], name: string): Frame[] {
  return frames.flatMap((frame, at) => (callOf(frame)?.name === name ? exchange(frames, at) : []));
}

/** server/discover and the three pages of tools/list of the tools server (the second asked with cursor ""). */
const opening = (): Frame[] =>
  copy(
    tools.frames.slice(
      0,
      tools.frames.findIndex((frame) => isClient(frame, 'tools/call')),
    ),
  );

/** What calls.json holds for `frames`: each tools/call's name and arguments, in order, the retries of
 *  an input_required left out (the client makes them itself). */
function callsOf(frames: Frame[]): { name: string; arguments: object }[] {
  return frames.flatMap((frame) => {
    const call = callOf(frame);
    return call && !('requestState' in call) ? [{ name: call.name, arguments: call.arguments }] : [];
  });
}

/** A 2025 server's session (server-everything): initialize and initialized as the fallback recording
 *  has them, tools/list from its HTTP recording (the same server and version; its session id made the
 *  fallback's, its id 100), then echo; no GET stream (the course's client opens none). */
function legacySession(): Frame[] {
  const frames = copy(fallback.frames);
  // from initialize on: the probe and its answer are each case's own
  const initialize = frames.findIndex((frame) => isClient(frame, 'initialize'));
  const initialized = frames.findIndex((frame) => isClient(frame, 'notifications/initialized'));
  const list = everything.frames.findIndex((frame) => isClient(frame, 'tools/list'));
  const session = (fallback.frames.find((frame) => isClient(frame, 'initialize')) as ClientFrame).http!.reply!.headers!['mcp-session-id']!;
  const oldSession = (everything.frames.find((frame) => isClient(frame, 'initialize')) as ClientFrame).http!.reply!.headers!['mcp-session-id']!;
  const oldId = (everything.frames[list] as ClientFrame).message.id;
  const listing = exchange(everything.frames, list).map((frame) => {
    const renamed = JSON.parse(JSON.stringify(frame).replaceAll(oldSession, session)) as Frame;
    if (renamed.from === 'client' || (renamed.from === 'server' && renamed.message.id === oldId)) renamed.message.id = 100;
    if ((renamed.from === 'server' || renamed.from === 'sse') && renamed.http?.request === oldId) renamed.http.request = 100;
    return renamed;
  });
  return [...frames.slice(initialize, initialized + 1), ...listing, ...frames.slice(initialized + 1)];
}

/** The probe of the fallback recording, answered -32022 (HTTP 400, as the SDK v2 server refuses a
 *  version it does not support) with `supported`. */
function refusedProbe(supported: string[]): Frame[] {
  const [probe, answer] = copy(fallback.frames.slice(0, 2)) as [ClientFrame, Frame];
  if (answer.from !== 'server') throw new Error('stateless-fallback: its probe has no answer');
  answer.message = {
    jsonrpc: '2.0',
    error: { code: -32022, message: 'Unsupported protocol version: 2026-07-28', data: { supported, requested: '2026-07-28' } },
    id: probe.message.id!,
  };
  answer.free = ['error.message'];
  return [probe, answer];
}

/** A request and its answer made a refusal of the revision's (HTTP 400, a JSON-RPC error for its id), as
 *  the spec says a server refuses: the answer's recorded timing kept. */
function refused([request, answer]: Frame[], error: JsonObject): Frame[] {
  if (request?.from !== 'client' || answer?.from !== 'server') throw new Error('refused: a request and its answer');
  request.http = { ...request.http!, reply: { status: 400, headers: { 'content-type': 'application/json' }, body: 'json' } };
  answer.message = { jsonrpc: '2.0', error, id: request.message.id! };
  answer.free = ['error.message'];
  return [request, answer];
}

/** The error the spec has a server answer a request that needs a capability the client did not declare. */
const missingCapability = (capability: string): JsonObject => ({
  code: -32021,
  message: `Missing required client capability: ${capability}`,
  data: { requiredCapabilities: { [capability]: {} } },
});

/** Tools whose x-mcp-header annotations break the revision's rules, each its own way, and one that keeps
 *  them: a client leaves the others out of tools/list. */
const ANNOTATED_TOOLS: JsonObject[] = [
  {
    name: 'price',
    description: 'x-mcp-header on a number (not permitted)',
    inputSchema: { type: 'object', properties: { amount: { type: 'number', 'x-mcp-header': 'Amount' } } },
  },
  {
    name: 'tag-each',
    description: 'x-mcp-header under items (not statically reachable)',
    inputSchema: { type: 'object', properties: { tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } } } },
  },
  {
    name: 'twice',
    description: 'two x-mcp-header values alike but for case',
    inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Zone' }, b: { type: 'string', 'x-mcp-header': 'zone' } } },
  },
  {
    name: 'spaced',
    description: 'an x-mcp-header that is not a header name',
    inputSchema: { type: 'object', properties: { q: { type: 'string', 'x-mcp-header': 'Bad Name' } } },
  },
  {
    name: 'count',
    description: 'an integer, annotated as the rules allow',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', 'x-mcp-header': 'Count' } } },
  },
];

/** The opening with ANNOTATED_TOOLS added to the last page of tools/list. */
function withAnnotatedTools(frames: Frame[]): Frame[] {
  const pages = frames.filter((frame) => frame.from === 'server' && Array.isArray((frame.message.result as JsonObject | undefined)?.tools));
  const last = pages.at(-1);
  if (last?.from !== 'server') throw new Error('stateless-tools: no tools/list page');
  const result = last.message.result as JsonObject;
  result.tools = [...(result.tools as JsonObject[]), ...structuredClone(ANNOTATED_TOOLS)];
  return frames;
}

/** The opening with the last page of tools/list ending in nextCursor: null (no cursor given). */
function withNullCursor(frames: Frame[]): Frame[] {
  const last = frames.filter((frame) => frame.from === 'server' && Array.isArray((frame.message.result as JsonObject | undefined)?.tools)).at(-1);
  if (last?.from !== 'server') throw new Error('stateless-tools: no tools/list page');
  (last.message.result as JsonObject).nextCursor = null;
  return frames;
}

/** The recorded weather call (Île-de-France) made for another region and city: its arguments, its
 *  Mcp-Param-Region (encoded as the spec has a client encode it) and the server's answer, which names
 *  both ("Sunny in <city> (<region>)"). */
function weatherCall(region: string, city: string, id: number): Frame[] {
  const [request, answer] = copy(callExchanges(tools.frames, 'weather')) as [ClientFrame, Frame];
  if (answer.from !== 'server') throw new Error('stateless-tools: the weather call has no answer');
  request.message.id = id;
  (request.message.params as JsonObject).arguments = { region, city };
  request.http!.headers!['mcp-param-region'] = `=?base64?${Buffer.from(region, 'utf8').toString('base64')}?=`;
  answer.message.id = id;
  ((answer.message.result as JsonObject).content as JsonObject[])[0]!.text = `Sunny in ${city} (${region})`;
  answer.http = { ...answer.http!, request: id };
  return [request, answer];
}

interface StatelessCase {
  name: string;
  about: string;
  source: Cassette;
  sourceName: string;
  /** What was changed from the recording, for the provenance. */
  edit: string;
  frames: Frame[];
  inputs?: InputsInput;
  /** GET and DELETE as the recorded server answered them (none: a server without sessions). */
  http?: Cassette['http'];
}

const deploy = callExchanges(tools.frames, 'deploy');

const CASES: StatelessCase[] = [
  {
    name: 'tools-server',
    about:
      'A server of the 2026-07-28 revision: server/discover lists the version, so every request after it carries the _meta of the revision and its headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name), with no session; tools/list comes in three pages, the first of which ends with nextCursor "" (a cursor, not the end); text, structured and isError results.',
    source: tools,
    sourceName: 'stateless-tools',
    edit: 'the discover, the three pages and the echo, add and divide calls only (weather and deploy are the cases mirrored-headers and input-required)',
    frames: [...opening(), ...callExchanges(tools.frames, 'echo'), ...callExchanges(tools.frames, 'add'), ...callExchanges(tools.frames, 'divide')],
  },
  {
    name: 'input-required',
    about:
      "A tool that asks for input: deploy's first answer is resultType input_required with an elicitation and a requestState; the client answers it (inputs.json) and sends the call again, with a new id, inputResponses and the requestState unchanged.",
    source: tools,
    sourceName: 'stateless-tools',
    edit: 'the discover, the three pages and the two rounds of the deploy call only',
    frames: [...opening(), ...deploy],
    inputs: CONFIRM,
  },
  {
    name: 'input-declined',
    about: 'The same tool, and the user says no (inputs.json declines): the retry carries that answer as it is, and the server cancels the deployment.',
    source: tools,
    sourceName: 'stateless-tools',
    edit: 'the discover, the three pages and the two rounds of the deploy call only; the retry\'s inputResponses made { confirm: { action: "decline" } } and its result "deployment to staging cancelled", what the server answers a decline',
    frames: [
      ...opening(),
      ...copy(deploy).map((frame) => {
        if (isClient(frame, 'tools/call') && 'requestState' in (frame.message.params as JsonObject)) {
          (frame.message.params as JsonObject).inputResponses = { confirm: { action: 'decline' } };
        } else if (frame.from === 'server' && (frame.message.result as JsonObject)?.resultType === 'complete') {
          (frame.message.result as JsonObject).content = [{ type: 'text', text: 'deployment to staging cancelled' }];
        }
        return frame;
      }),
    ],
    inputs: DECLINE,
  },
  {
    name: 'mirrored-headers',
    about:
      "Headers that mirror the body, which the server checks (-32020 when they disagree): weather's region argument is annotated x-mcp-header Region, so each call sends Mcp-Param-Region (plain for eu-west, =?base64?...?= for Île-de-France, which is not ASCII), and every tools/call its Mcp-Name.",
    source: mismatch,
    sourceName: 'stateless-header-mismatch',
    edit: "the discover and the three pages of stateless-tools.yaml (the same server; this recording listed the first page only); of this recording, the two calls the server accepted (weather with Mcp-Param-Region: eu-west, echo), its -32020 refusals left out (a client that sends the right headers meets none; the player refuses one that does not, as the server did); stateless-tools.yaml's weather call (Île-de-France, Base64)",
    frames: [
      ...opening(),
      ...mismatch.frames.flatMap((frame, at) =>
        callOf(frame) && frame.from === 'client' && frame.http?.reply?.status === 200 ? exchange(mismatch.frames, at) : [],
      ),
      ...callExchanges(tools.frames, 'weather'),
    ],
  },
  {
    name: 'fallback-2025',
    about:
      'A server of 2025 (server-everything): it answers the server/discover probe with HTTP 400 and a -32000 error, so the client falls back to initialize and initialized on the same URL, with the session the initialize response gives, and closes with DELETE.',
    source: fallback,
    sourceName: 'stateless-fallback',
    edit: "the GET stream left out (the course's client opens none, and the protocol does not ask it to); tools/list and its reply from everything-http-tools.yaml (the same server and version), its session id made this recording's and its id 100",
    frames: [...copy(fallback.frames.slice(0, 2)), ...legacySession()],
    http: { path: fallback.http!.path, ...(fallback.http!.delete && { delete: fallback.http!.delete }) },
  },
  {
    name: 'unsupported-version',
    about:
      'A server of 2025 that knows the error of the revision: it refuses the probe with -32022 and data.supported [2025-11-25, 2025-06-18]; the client answers it once with a version both speak, which is of 2025: initialize and initialized (and a session), as with any 2025 server.',
    source: fallback,
    sourceName: 'stateless-fallback',
    edit: "the probe answered HTTP 400 with -32022, data.supported [2025-11-25, 2025-06-18] (in the words the SDK v2 server answers a version it does not support); the GET stream left out; tools/list and its reply from everything-http-tools.yaml (the same server and version), its session id made this recording's and its id 100",
    frames: [...refusedProbe(['2025-11-25', '2025-06-18']), ...legacySession()],
    http: { path: fallback.http!.path, ...(fallback.http!.delete && { delete: fallback.http!.delete }) },
  },
  {
    name: 'capability-required',
    about:
      "A server of the revision refuses a call that needs a capability the client did not declare: deploy asks for confirmation (an elicitation), and a client without elicitation (no inputs.json) is answered HTTP 400 with -32021 (MissingRequiredClientCapability, data.requiredCapabilities): the request's response is that error, an McpError with its code.",
    source: tools,
    sourceName: 'stateless-tools',
    edit: "the discover, the three pages and deploy's first call, answered HTTP 400 with -32021 and data.requiredCapabilities { elicitation } (what the spec has a server answer a client that did not declare a capability a request needs; the recorded client declared it)",
    frames: [...opening(), ...refused(copy(deploy.slice(0, 2)), missingCapability('elicitation'))],
  },
  {
    name: 'probe-refused-by-the-revision',
    about:
      'A server of the revision that refuses the probe itself with one of its own errors: server/discover answered HTTP 400 with -32021 (it needs the roots capability). The error comes from a server of 2026-07-28, so connect() throws it (McpError -32021): falling back to initialize would speak 2025 to a server that does not.',
    source: tools,
    sourceName: 'stateless-tools',
    edit: 'the discover only, answered HTTP 400 with -32021 and data.requiredCapabilities { roots } (what the spec has a server answer a client that did not declare a capability a request needs)',
    frames: refused(copy(tools.frames.slice(0, 2)), missingCapability('roots')),
  },
  {
    name: 'invalid-header-annotations',
    about:
      "tools/list names tools whose x-mcp-header annotations break the revision's rules: on a number, under items, two alike but for case, one that is not a header name; the client leaves each out of the list (the spec: it MUST exclude them), and keeps the one annotated as the rules allow (an integer).",
    source: tools,
    sourceName: 'stateless-tools',
    edit: 'the discover and the three pages only; five tools added to the last page (price, tag-each, twice, spaced, count), each annotated as its description says',
    frames: withAnnotatedTools(opening()),
  },
  {
    name: 'null-cursor-ends-list',
    about:
      'The last page of tools/list says nextCursor: null: no cursor given, so the list ends there (the spec: a client makes no determination from a cursor but whether a non-null value was given; "" on the first page is a cursor).',
    source: tools,
    sourceName: 'stateless-tools',
    edit: 'the discover and the three pages only; the last page given nextCursor: null',
    frames: withNullCursor(opening()),
  },
  {
    name: 'header-values-encoded',
    about:
      'Arguments whose Mcp-Param-Region cannot go as they are: a region with spaces around it (a header value loses them) and one that looks like the encoded form itself (=?base64?...?=); the spec has a client send both as =?base64?<UTF-8 in Base64>?=, and the server checks the header against the body (-32020 when they disagree).',
    source: tools,
    sourceName: 'stateless-tools',
    edit: "the discover and the three pages; the weather call made twice more, for the regions '  north  ' (Cork) and '=?base64?bm9ydGg=?=' (Galway), each with its Mcp-Param-Region in Base64 and the server's answer as it words one (Sunny in <city> (<region>))",
    frames: [...opening(), ...weatherCall('  north  ', 'Cork', 7), ...weatherCall('=?base64?bm9ydGg=?=', 'Galway', 8)],
  },
];

for (const testCase of CASES) {
  const cassette: Cassette = {
    version: 2,
    transport: 'http',
    provenance: { ...testCase.source.provenance, note: `derived from cassettes/${testCase.sourceName}.yaml: ${testCase.edit}` },
    http: testCase.http ?? { path: testCase.source.http!.path },
    free: ['params.clientInfo', 'params.capabilities'],
    frames: testCase.frames,
  };
  const caseDir = join(ROOT, 'cases', FOLDER, testCase.name);
  const fixtureDir = join(ROOT, 'fixtures', FOLDER, testCase.name);
  mkdirSync(caseDir, { recursive: true });
  mkdirSync(fixtureDir, { recursive: true });
  writeFileSync(join(caseDir, 'case.md'), `${testCase.about}\n`);
  const files = { 'calls.json': callsOf(testCase.frames), ...(testCase.inputs && { 'inputs.json': testCase.inputs }) };
  for (const [file, value] of Object.entries(files)) writeFileSync(join(caseDir, file), `${JSON.stringify(value, null, 2)}\n`);
  saveCassette(cassette, join(fixtureDir, 'cassette.yaml'), { overwrite: true });
  console.log(`${FOLDER}/${testCase.name}: ${cassette.frames.length} frames`);
}
