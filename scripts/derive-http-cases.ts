// Derives the streamable-http cases from the HTTP session recorded from the real everything server
// (cassettes/everything-http-tools.yaml), editing it only where no real server produces what a case
// needs (JSON replies, keep-alive comments, a server that asks for a token); each edit is said in the
// case cassette's provenance. Run: node --import tsx scripts/derive-http-cases.ts
// then `npx theinference bless --stage streamable-http` for the expected output.
import type { Frame } from '../harness/cassette/index.ts';
import type { HeadersInput } from '../harness/stages/streamable-http/contract.ts';
import type { ToolCall, CallsInput } from '../harness/stages/tools/contract.ts';
import { formatSseEvent } from '../harness/transports/http/sse.ts';
import { recorded, recording, SOURCE as source, writeHttpCase } from './http-cases.ts';

/** What the `http` command calls after tools/list: the recorded session's calls, in turn. */
const CALLS: CallsInput = recorded.frames
  .flatMap((frame) => (frame.from === 'client' && frame.message.method === 'tools/call' ? [frame.message.params as ToolCall] : []))
  .map(({ name, arguments: args }) => ({ name, arguments: args }));

interface HttpCase {
  name: string;
  about: string;
  /** What was changed from the recording, for the provenance; none: as recorded. */
  edit?: string;
  frames(frames: Frame[]): Frame[];
  headers?: HeadersInput;
}

const CASES: HttpCase[] = [
  {
    name: 'everything-server',
    about:
      'The real everything server over Streamable HTTP: every reply is an event stream that opens with an empty priming event, and the long operation sends two progress notifications on its stream before its result.',
    frames: (frames) => frames,
  },
  {
    name: 'server-requests',
    about:
      "The server pings the client (a server request) on the stream of the echo call, before that call's result: the client answers it on a POST of its own (an empty result, with the server's id), and only then does the result come. A transport that hands on only a reply's last event never answers, and waits for good.",
    edit: "a ping request (the server's id 0) on the echo call's stream after its priming event, the client's empty result to it (a POST answered 202), then the echo result",
    frames: (frames) => {
      const echo = frames.findIndex((frame) => frame.from === 'client' && (frame.message.params as { name?: string } | undefined)?.name === 'echo');
      const call = frames[echo];
      if (call?.from !== 'client' || call.http === undefined) throw new Error(`${source}: no echo call over HTTP`);
      const result = frames.findIndex((frame, at) => at > echo && frame.from === 'server' && frame.message.id === call.message.id);
      const ping: Frame = { from: 'server', message: { jsonrpc: '2.0', id: 0, method: 'ping' }, http: { request: call.message.id, event: 'message' } };
      const answer: Frame = {
        from: 'client',
        message: { jsonrpc: '2.0', id: 0, result: {} },
        http: { path: call.http.path, headers: call.http.headers, reply: { status: 202, body: 'none' } },
      };
      return [...frames.slice(0, result), ping, answer, ...frames.slice(result)];
    },
  },
  {
    name: 'json-replies',
    about: 'A server that answers each request with one JSON body (Content-Type: application/json) instead of an event stream.',
    edit: 'every reply made a JSON body: the priming events and the progress notifications (which only a stream can carry) left out',
    frames: (frames) =>
      frames.flatMap((frame): Frame[] => {
        if (frame.from === 'sse') return [];
        if (frame.from === 'server') {
          if (frame.message.method !== undefined) return [];
          return [{ ...frame, http: { request: frame.http?.request } }];
        }
        if (frame.from === 'client' && frame.http?.reply?.body === 'sse') {
          const headers = { ...frame.http.reply.headers, 'content-type': 'application/json' };
          return [{ ...frame, http: { ...frame.http, reply: { ...frame.http.reply, headers, body: 'json' } } }];
        }
        return [frame];
      }),
  },
  {
    name: 'keepalive-comments',
    about:
      'Event streams with what the SSE format allows beside data: comment lines (keep-alives) before events, a retry field, and a block of comments alone in the middle of a stream.',
    edit: 'a ": keepalive" comment before each message event, "retry: 3000" on each priming event, and a comment-only block between the two progress notifications',
    frames: (frames) =>
      frames.flatMap((frame): Frame[] => {
        if (frame.from === 'sse') return [{ ...frame, http: { ...frame.http, retry: 3000 } }];
        if (frame.from !== 'server' || frame.http?.request === undefined) return [frame];
        const commented: Frame = { ...frame, http: { ...frame.http, comments: ['keepalive'] } };
        const first = frame.message.method === 'notifications/progress' && (frame.message.params as { progress?: number }).progress === 1;
        return first ? [commented, { from: 'sse', http: { request: frame.http.request, comments: ['still working', 'keepalive'] } }] : [commented];
      }),
  },
  {
    name: 'split-reads',
    about:
      "Events that reach the client in several reads: the initialize result cut inside the 3-byte '–' of its instructions, and the tools/list result cut in the middle of its data line and again just before its blank line.",
    edit: "the initialize result's event cut into reads inside its first '–', the tools/list result's in the middle and before its last byte",
    frames: (frames) =>
      frames.map((frame): Frame => {
        if (frame.from !== 'server' || frame.http === undefined || frame.message.method !== undefined) return frame;
        const bytes = Buffer.from(formatSseEvent(frame.http, JSON.stringify(frame.message)));
        const result = frame.message.result as Record<string, unknown>;
        if ('protocolVersion' in result) {
          const dash = bytes.indexOf(Buffer.from('–'));
          return { ...frame, http: { ...frame.http, cuts: [dash + 1, dash + 2] } };
        }
        if ('tools' in result) return { ...frame, http: { ...frame.http, cuts: [bytes.length >> 1, bytes.length - 1] } };
        return frame;
      }),
  },
  {
    name: 'line-endings',
    about:
      "Event streams whose lines end in CRLF, as Python servers (sse-starlette, FastMCP) write them, and the long operation's progress notifications in a lone CR, which the SSE format allows too; the initialize result reaches the client in two reads cut between a CR and its LF.",
    edit: "every event's lines ended in CRLF, the progress notifications' in CR; the initialize result's event cut into reads between the CR and the LF that end its first line",
    frames: (frames) =>
      frames.map((frame): Frame => {
        if ((frame.from !== 'server' && frame.from !== 'sse') || frame.http?.request === undefined) return frame;
        const http = { ...frame.http, lines: frame.from === 'server' && frame.message.method === 'notifications/progress' ? 'cr' : 'crlf' } as const;
        if (frame.from === 'server' && frame.message.id === 0 && frame.message.method === undefined) {
          const bytes = Buffer.from(formatSseEvent(http, JSON.stringify(frame.message)));
          return { ...frame, http: { ...http, cuts: [bytes.indexOf('\r\n') + 1] } };
        }
        return { ...frame, http };
      }),
  },
  {
    name: 'session-lost',
    about:
      'A server that lost the session (it restarted): it answers tools/list with 404; the client starts a new session (initialize, initialized, without the old id) once, and sends tools/list again.',
    edit: 'tools/list answered 404 (session not found), then a second initialize and initialized, copies of the first with a new session id, before tools/list again',
    frames: (frames) => loseSession(frames, firstRequest(frames, 'tools/list'), 'a-second-session', 100),
  },
  {
    name: 'session-lost-twice',
    about:
      'The same server loses the new session too, at the next request (echo): the client renews it again (a third initialize and initialized, without the old id), once for that request, and sends echo again.',
    edit: 'as session-lost; then echo answered 404 in the second session, and a third initialize and initialized, copies of the first with another session id, before echo again',
    frames: (frames) => {
      const once = loseSession(frames, firstRequest(frames, 'tools/list'), 'a-second-session', 100);
      return loseSession(once, firstRequest(once, 'tools/call'), 'a-third-session', 200, 'a-second-session');
    },
  },
  {
    name: 'bearer-token',
    about: 'A server that needs a bearer token: headers.json holds it, and it must go with every request (POST and DELETE).',
    edit: 'each request recorded as carrying an Authorization header (its value redacted)',
    headers: { Authorization: 'Bearer course-token' },
    frames: (frames) =>
      frames.map((frame) =>
        frame.from === 'client' && frame.http ? { ...frame, http: { ...frame.http, headers: { ...frame.http.headers, authorization: '<redacted>' } } } : frame,
      ),
  },
];

/** The index of the first client request of `method`. */
function firstRequest(frames: Frame[], method: string): number {
  return frames.findIndex((frame) => frame.from === 'client' && frame.message.method === method);
}

/** The server lost session `current` at the request frames[at] (answered 404); a new session `renewed` follows:
 *  initialize (id `initializeId`) and initialized, copies of the recording's first, then that request again
 *  and everything after, in the new session (their requests and replies carry its id). */
function loseSession(frames: Frame[], at: number, renewed: string, initializeId: number, current = sessionOf(frames)): Frame[] {
  const first = sessionOf(frames);
  const opening = frames.slice(0, firstRequest(frames, 'tools/list')); // initialize, its priming event and result, initialized
  const lost = structuredClone(frames[at]!) as Frame;
  if (lost.from === 'client' && lost.http) {
    lost.message.id = initializeId + 1; // the retry in the new session may carry the same live id: the recording's differ
    lost.http.reply = {
      status: 404,
      headers: { 'content-type': 'application/json' },
      body: 'text',
      text: JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
    };
  }
  const inSession = (frame: Frame, from: string) => JSON.parse(JSON.stringify(frame).replaceAll(from, renewed)) as Frame;
  const again = structuredClone(opening).map((frame): Frame => {
    const renamed = inSession(frame, first);
    if (renamed.from === 'client' && renamed.message.method === 'initialize') renamed.message.id = initializeId;
    if (renamed.from === 'server' && renamed.message.id === 0) renamed.message.id = initializeId;
    if ((renamed.from === 'server' || renamed.from === 'sse') && renamed.http?.request === 0) renamed.http.request = initializeId;
    return renamed;
  });
  return [...frames.slice(0, at), lost, ...again, ...frames.slice(at).map((frame) => inSession(frame, current))];
}

/** The session id the recording's initialize reply gave. */
function sessionOf(frames: Frame[]): string {
  const initialize = frames.find((frame) => frame.from === 'client' && frame.message.method === 'initialize');
  const id = initialize?.from === 'client' ? initialize.http?.reply?.headers?.['mcp-session-id'] : undefined;
  if (id === undefined) throw new Error(`${source}: its initialize reply gives no session id`);
  return id;
}

for (const testCase of CASES) {
  const inputs = { 'calls.json': CALLS, ...(testCase.headers && { 'headers.json': testCase.headers }) };
  writeHttpCase('streamable-http', testCase.name, testCase.about, testCase.edit ?? 'as recorded', testCase.frames(structuredClone(recorded.frames)), inputs);
}

// A server of its own: one that closes a call's stream before the result (the spec's polling), recorded
// from scripts/resumable-server.ts with the official SDK client, which resumed it.
const resumable = recording('resumable-http');
const resumableCalls = resumable.cassette.frames.flatMap((frame) =>
  frame.from === 'client' && frame.message.method === 'tools/call' ? [frame.message.params as { name: string; arguments: object }] : [],
);
writeHttpCase(
  'streamable-http',
  'resumption',
  "A server that closes the stream of a long call after its first log message, before the result (the spec's polling): its priming event gave an id and `retry: 500`. The client waits 500 ms, then resumes the stream with a GET whose Last-Event-ID is the last event id it got; the other log messages and the result come on that GET.",
  'as recorded',
  structuredClone(resumable.cassette.frames),
  { 'calls.json': resumableCalls.map(({ name, arguments: args }) => ({ name, arguments: args })) },
  resumable,
);
