// What a hidden case tells (docs/ci.md, "Hidden cases"): its verdict and its hints, in the grader's
// words. A student learns that a case they cannot see fails, and which mistake it shows; nothing of
// the case itself. Not what it expects (bytes, keys, JSON paths, offsets), nor what it was given or
// what its recording holds, nor what the program did with them: the program reads the hidden input,
// so its stdout, its stderr, its error line, its exit code, the messages it sent and the time it took
// could each carry that input into the report the student reads. So the message is a fixed one for
// the status, the hints are in their general wording (Hint.general), and the duration is not kept.
import type { Status, Verdict } from '../run/verdict.ts';

const SAID: Record<Status, string> = {
  pass: 'passed',
  fail: 'its output is not the expected one',
  error: 'your client broke the protocol of the recorded session',
  timeout: 'it ran out of time and was stopped',
  crash: 'it exited with an error, was killed, or used too much memory',
  infra: 'the grader could not run it',
};

/** Under a failing hidden case: why there is no more to read. */
export const HIDDEN_DETAILS = 'a hidden case: what it is given, what it expects and what your program printed are not shown';

export function toldOfHidden(verdict: Verdict): Verdict {
  const hints = (verdict.hints ?? []).map(({ kind, lines, general, aboutTheCase }) => ({
    kind,
    lines: general ?? lines,
    ...(aboutTheCase && { aboutTheCase }),
  }));
  // which rule the client broke is a kind, as a hint's is: the player's words quote the recording
  const broken = verdict.status === 'error' ? verdict.protocol?.diagnoses[0]?.kind : undefined;
  return {
    name: verdict.name,
    status: verdict.status,
    message: broken === undefined ? SAID[verdict.status] : `${SAID.error} (${broken})`,
    ...(verdict.status !== 'pass' && { details: HIDDEN_DETAILS }),
    ...(hints.length > 0 && { hints }),
    durationMs: 0,
  };
}
