// Checks beyond the format: that the conversation in a cassette can be played at all (over HTTP,
// that each message went where a server can send it), and that it names nothing of the machine it
// was recorded on (a home folder, a temporary folder).
import { roleOf, SECRET_FIELDS } from './placeholders.ts';
import { idKey, isObject, kindOf, type Cassette, type HttpPlacement, type Json } from './model.ts';

/** A path that exists on one machine only: a home folder, a temporary folder, a user's folder on Windows. */
const MACHINE_PATH = /(?:^|file:\/\/|[\s"'=:([])((?:\/home\/|\/Users\/|\/root\/|\/tmp\/|\/var\/folders\/|\/private\/var\/|[A-Za-z]:\\+Users\\+)[^\s"')\]]*)/;

export interface LintProblem {
  frame: number;
  line?: number;
  message: string;
}

export function lintCassette(cassette: Cassette): LintProblem[] {
  const problems: LintProblem[] = [];
  const clientRequests = new Set<string>();
  const serverRequests = new Set<string>();
  /** The line each response was on, by its side and id: a second one is named as such. */
  const answered = new Map<string, number | undefined>();
  let clientMessages = 0;
  for (const [index, frame] of cassette.frames.entries()) {
    if (frame.from !== 'client' && frame.from !== 'server') continue;
    const message = frame.message;
    const kind = kindOf(message);
    const own = frame.from === 'client' ? clientRequests : serverRequests;
    const other = frame.from === 'client' ? serverRequests : clientRequests;
    const problem = (text: string) => problems.push({ frame: index, line: frame.line, message: text });
    if (frame.from === 'client') clientMessages++;
    if (kind === 'request') {
      if (own.has(idKey(message.id))) problem(`${frame.from} request id ${JSON.stringify(message.id)} is used twice`);
      // a request the server refused at the HTTP level (401 before authorization) never reached MCP: its id is free again
      const refused =
        frame.from === 'client' &&
        frame.http?.reply !== undefined &&
        frame.http.reply.status >= 400 &&
        frame.http.reply.body !== 'json' &&
        frame.http.reply.body !== 'sse';
      if (!refused) own.add(idKey(message.id));
    } else if (kind === 'response' && message.id !== null) {
      const id = JSON.stringify(message.id);
      const key = `${frame.from} ${idKey(message.id)}`;
      if (other.has(idKey(message.id))) answered.set(key, frame.line);
      else if (answered.has(key)) {
        const first = answered.get(key);
        problem(`${frame.from} response to id ${id}, but request ${id} was answered already${first === undefined ? '' : ` (line ${first})`}`);
      } else problem(`${frame.from} response to id ${id}, but no earlier ${frame.from === 'client' ? 'server' : 'client'} request has that id`);
      other.delete(idKey(message.id));
    }
  }
  if (clientMessages === 0) problems.push({ frame: -1, message: 'the cassette has no client message: nothing to match' });
  // an authorization whose every exchange was refused (a client that looked for metadata and found none) answered nothing either
  else if (!cassette.frames.some((frame) => frame.from === 'server' || frame.from === 'sse' || (frame.from === 'auth' && frame.reply.status < 400)))
    problems.push({
      frame: -1,
      message:
        'the session has no server message (nor an exchange of an authorization that was not refused): nothing answered the client; a recording cut short is not a cassette',
    });
  const absolute = (cassette.provenance.command ?? []).find((arg) => arg.startsWith('/') || /^[A-Za-z]:\\/.test(arg));
  if (absolute !== undefined) {
    problems.push({
      frame: -1,
      message: `provenance.command names the absolute path ${JSON.stringify(absolute)}: record from the project folder, with the command as typed there`,
    });
  }
  for (const [index, frame] of cassette.frames.entries()) {
    const text =
      frame.from === 'client' || frame.from === 'server'
        ? frame.message
        : frame.from === 'sse'
          ? (frame.data ?? '')
          : frame.from === 'auth'
            ? ([frame.request, frame.reply] as unknown as Json)
            : frame.text;
    const path = machinePath(text);
    if (path) {
      problems.push({
        frame: index,
        line: frame.line,
        message: `${frame.from} frame names the machine path ${JSON.stringify(path)}: record in a folder whose path the cassette does not keep, or replace it by hand`,
      });
    }
  }
  if (cassette.transport === 'http') problems.push(...httpProblems(cassette));
  problems.push(...secretsInTheClear(cassette));
  return problems;
}

/** Over HTTP a server message can go only on the stream of a request still open (or as its JSON
 *  body), or on a GET stream the server held open; a notification or a response gets no body. */
function httpProblems(cassette: Cassette): LintProblem[] {
  const problems: LintProblem[] = [];
  /** The client requests whose POST is still open, by recorded id: how it was answered. */
  const open = new Map<string, 'json' | 'sse'>();
  /** The line of the response that closed each request's POST, by recorded id. */
  const closedAt = new Map<string, number | undefined>();
  const getStream = cassette.http?.get?.status === 200 && cassette.http.get.body === 'sse';
  const place = (placement: HttpPlacement, what: string): string | undefined => {
    if (placement.request === undefined) {
      return getStream ? undefined : `${what} was on the GET stream, but the recording has no GET stream the server held open`;
    }
    const body = open.get(idKey(placement.request));
    if (body === undefined && closedAt.has(idKey(placement.request))) {
      const line = closedAt.get(idKey(placement.request));
      return `${what} went with request ${JSON.stringify(placement.request)}, whose response${line === undefined ? '' : ` (line ${line})`} had ended its POST already`;
    }
    if (body === undefined) return `${what} went with request ${JSON.stringify(placement.request)}, which is not a client request still open at that point`;
    if (body === 'json' && what !== 'the response')
      return `${what} went with request ${JSON.stringify(placement.request)}, which was answered with a JSON body, not a stream`;
    return undefined;
  };
  for (const [index, frame] of cassette.frames.entries()) {
    const problem = (text: string | undefined) => text && problems.push({ frame: index, line: frame.line, message: text });
    if (frame.from === 'client') {
      const kind = kindOf(frame.message);
      const body = frame.http?.reply?.body;
      if (kind === 'request' && (body === 'json' || body === 'sse')) open.set(idKey(frame.message.id as Json), body);
      else if (kind !== 'request' && (body === 'json' || body === 'sse'))
        problem(`a client ${kind} was answered with a ${body} body; only a request's POST gets one`);
    } else if (frame.from === 'sse') problem(place(frame.http, 'an event without a message'));
    else if (frame.from === 'server' && frame.http) {
      const response = kindOf(frame.message) === 'response';
      problem(place(frame.http, response ? 'the response' : `server ${kindOf(frame.message)} ${String(frame.message.method)}`));
      if (response && frame.http.request !== undefined && open.delete(idKey(frame.http.request))) closedAt.set(idKey(frame.http.request), frame.line);
    }
  }
  return problems;
}

/** The first machine path in any string of `value`, keys included. */
function machinePath(value: Json): string | undefined {
  if (typeof value === 'string') return MACHINE_PATH.exec(value)?.[1];
  if (Array.isArray(value)) return value.map(machinePath).find(Boolean);
  if (isObject(value))
    return Object.entries(value)
      .flatMap(([key, item]) => [machinePath(key), machinePath(item)])
      .find(Boolean);
  return undefined;
}

/** An authorization frame whose code, token, client secret or PKCE value is a value and not its role:
 *  a secret on disk (a hand edit, or a recording by another tool), which replay could not mint anew either. */
function secretsInTheClear(cassette: Cassette): LintProblem[] {
  const problems: LintProblem[] = [];
  for (const [index, frame] of cassette.frames.entries()) {
    if (frame.from !== 'auth') continue;
    const fields: [string, Record<string, Json> | undefined][] = [
      ['auth.query', frame.request.query],
      ['auth.form', frame.request.form],
      ['reply.json', isObject(frame.reply.json) ? frame.reply.json : undefined],
    ];
    for (const [where, values] of fields) {
      for (const [name, value] of Object.entries(values ?? {})) {
        // shorter than a recording takes for random (SHORTEST_RANDOM): a word such as a fixed state
        if (!SECRET_FIELDS.has(name) || typeof value !== 'string' || value.length < 8 || roleOf(value) !== undefined) continue;
        problems.push({
          frame: index,
          line: frame.line,
          message: `${where}.${name} holds a value, not its role (such as <${SECRET_FIELDS.get(name)}>): a secret the cassette must not keep`,
        });
      }
    }
  }
  return problems;
}
