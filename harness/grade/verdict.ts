// What grading one case (or one property) comes to. Everything the reporters print or write
// is read off these values; nothing downstream looks at processes or bytes again.

export type Status =
  | 'pass'
  | 'fail' // the output differs from expected.json, or a property found a counterexample
  | 'error' // the cassette's verdict: the client broke the protocol
  | 'timeout'
  | 'crash' // non-zero exit or killed by a signal
  | 'infra'; // the grader itself could not run it

export interface Verdict {
  /** The case folder's name, or `property: <name>`. */
  name: string;
  status: Status;
  /** One line: what happened. */
  message: string;
  /** Several lines a student reads: the byte diff and hints, the counterexample, the diagnosis. */
  details?: string;
  /** What the program wrote on stderr, relayed under the case. */
  stderr?: string;
  /** What the program wrote on stdout (up to the output cap), for machine-read reports. */
  stdout?: Buffer;
  durationMs: number;
  /** For properties and randomised cases: the seed that replays this run. */
  seed?: number;
}
