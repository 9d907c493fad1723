// What every stage's contract (harness/stages/<slug>/contract.ts) is made of: JSON, and how program.ts
// prints the outcome of a request. The contracts are types only, importing nothing but each other and
// harness/json.ts: program.ts imports them (`import type`, gone once compiled), and `export` copies them into the
// student's repository beside program.ts, so that an editor there checks program.ts as here.

import type { Json } from '../json.ts';

export type { Json, JsonObject } from '../json.ts';

/** A request's outcome as program.ts prints it: its result (keys sorted at every depth), `{ error: { code } }`
 *  for an McpError (the server's code), `{ refused: true }` for any other failure. A result is what the
 *  student's code returned, so the grader reads it as any JSON; `Result` says what program.ts means it to be.
 *  A result that is undefined prints as nothing: a field of this type may be absent (and null in a list). */
export type Outcome<Result = Json> = Result | McpErrorOutcome | Refused;
export type McpErrorOutcome = { error: { code: number } };
export type Refused = { refused: true };

/** A notification the client handed on, or a request of the server's it answered: its method and params
 *  (as the student's transport passed them on: any JSON). */
export type MessageLine = Json;
