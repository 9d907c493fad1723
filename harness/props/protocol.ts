// What child.ts tells run.ts, one JSON object per line on a pipe of its own (fd 3), apart
// from the student's stdout and stderr.

/** The child's fd for protocol lines; run.ts opens it as the first extra pipe. */
export const PROTOCOL_FD = 3;

export type ChildMessage =
  /** The runner itself loaded (fast-check, the suite); the student's module comes next. */
  | { type: 'ready' }
  /** The student's module could not be used: it failed to load or lacks an export. */
  | { type: 'unusable'; message: string }
  /** About to check a property: if the process dies now, this property is the one. */
  | { type: 'start'; property: string }
  | PropertyOutcome
  /** Every asked property has an outcome. */
  | { type: 'done' };

export interface PropertyOutcome {
  type: 'outcome';
  property: string;
  passed: boolean;
  /** Runs fast-check made (up to and including the failing one). */
  numRuns: number;
  numShrinks: number;
  seed: number;
  durationMs: number;
  /** When failed: the shrunk counterexample, as fast-check prints it. */
  counterexample?: string;
  /** When failed: one line, what the check said about the counterexample. */
  problem?: string;
  /** When failed: more lines, what the student's code made of the counterexample. */
  explanation?: string[];
  /** fast-check gave up without a verdict (e.g. its own time limit); never expected. */
  interrupted?: boolean;
}

/** Protocol lines out of the bytes received; a torn or foreign line is skipped. */
export function parseChildMessages(text: string): ChildMessage[] {
  const messages: ChildMessage[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const message: unknown = JSON.parse(line);
      if (typeof message === 'object' && message !== null && 'type' in message) messages.push(message as ChildMessage);
    } catch {
      // a line cut off by a kill: whatever it said, the process ending says more
    }
  }
  return messages;
}
