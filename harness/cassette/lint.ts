// Checks beyond the format: that the conversation in a cassette can be played at all.
import { idKey, kindOf, type Cassette } from './model.ts';

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
  return problems;
}
