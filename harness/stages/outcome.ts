// What the hint rules of the stages that call a server (handshake, tools) share: how program.ts
// prints the outcome of a request, and what it means when the student's differs.
import { MISMATCH_ERROR_CODE } from '../protocol.ts';
import type { Hint } from '../run/verdict.ts';
import type { Outcome } from './contract.ts';
import { fieldsOf } from './reading.ts';

/** How program.ts prints an outcome (contract.ts's Outcome): a result, `{ error: { code } }` for an McpError, or `{ refused: true }`. */
export function outcomeOf(value: Outcome | undefined): 'result' | 'error' | 'refused' | 'missing' {
  if (value === undefined) return 'missing';
  const record = fieldsOf(value);
  if (record.refused === true && Object.keys(record).length === 1) return 'refused';
  if (Object.keys(record).length === 1 && typeof errorCode(value) === 'number') return 'error';
  return 'result';
}

/** The code of an outcome's `error`, where it has one. */
const errorCode = (value: Outcome | undefined) => fieldsOf(fieldsOf(value).error).code;

/** The same outcome read the wrong way round, in words a student can act on: `what` names the
 *  request (`initialize`, `calls[1]`), `generally` names it in the general wording (grade/sealed-verdict.ts),
 *  which also leaves out the error code expected and what it points to that a hidden case does not show. */
export function outcomeMistake(
  expected: Outcome | undefined,
  actual: Outcome | undefined,
  what: string,
  generally: string,
): Pick<Hint, 'lines' | 'general'> | undefined {
  const lines = outcomeWords(expected, actual, what, true);
  return lines && { lines, general: outcomeWords(expected, actual, generally, false)! };
}

function outcomeWords(expected: Outcome | undefined, actual: Outcome | undefined, what: string, quoting: boolean): string[] | undefined {
  const [want, got] = [outcomeOf(expected), outcomeOf(actual)];
  if (want === got) return undefined;
  if (want === 'error') {
    return [
      `the server answered ${what} with a JSON-RPC error${quoting ? ` (code ${errorCode(expected)})` : ''}`,
      'an error response must reject the request with McpError (its code, message and data)',
    ];
  }
  if (want === 'result' && got === 'refused') {
    if (fieldsOf(expected).isError === true)
      return [`${what} is a result with isError: true: a tool that failed is still a result`, 'callTool must return it, not throw'];
    return [`${what} threw where the server gave a result${quoting ? '; its message is in the [your_program] lines below' : ''}`];
  }
  if (want === 'result' && got === 'error') {
    // The player answers a request that strays from the recording with this code, not the server.
    if (errorCode(actual) === MISMATCH_ERROR_CODE) {
      return [
        `${what} got error ${MISMATCH_ERROR_CODE}: the cassette player's answer to a request that differs from the recording`,
        ...(quoting ? ['what differs is in what the player says below'] : []),
      ];
    }
    return [`${what} rejected with McpError where the server gave a result`];
  }
  if (want === 'refused') return [`${what} should have been refused, and yours went on`];
  return undefined;
}
