// Checks beyond the format: that the conversation in a cassette can be played at all, and that it
// names nothing of the machine it was recorded on (a home folder, a temporary folder).
import { idKey, isObject, kindOf, type Cassette, type Json } from './model.ts';

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
      own.add(idKey(message.id));
    } else if (kind === 'response' && message.id !== null) {
      if (!other.has(idKey(message.id))) {
        problem(
          `${frame.from} response to id ${JSON.stringify(message.id)}, but no earlier ${frame.from === 'client' ? 'server' : 'client'} request has that id`,
        );
      }
      other.delete(idKey(message.id));
    }
  }
  if (clientMessages === 0) problems.push({ frame: -1, message: 'the cassette has no client message: nothing to match' });
  const absolute = (cassette.provenance.command ?? []).find((arg) => arg.startsWith('/') || /^[A-Za-z]:\\/.test(arg));
  if (absolute !== undefined) {
    problems.push({
      frame: -1,
      message: `provenance.command names the absolute path ${JSON.stringify(absolute)}: record from the project folder, with the command as typed there`,
    });
  }
  for (const [index, frame] of cassette.frames.entries()) {
    const text = frame.from === 'client' || frame.from === 'server' ? frame.message : frame.from === 'sse' ? (frame.data ?? '') : frame.text;
    const path = machinePath(text);
    if (path) {
      problems.push({
        frame: index,
        line: frame.line,
        message: `${frame.from} frame names the machine path ${JSON.stringify(path)}: record in a folder whose path the cassette does not keep, or replace it by hand`,
      });
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
