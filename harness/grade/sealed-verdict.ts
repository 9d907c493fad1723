// What a check tells where a secret is on the machine (docs/ci.md, "Sealed gradings"): a grading with
// hidden cases, or one of a class's (`classroom`: another student's work is graded beside it). Programs
// share a kernel, and a kernel has channels no sandbox closes (locks on a shared file, the page cache,
// timing): a program that met a secret (a hidden case's input, and so its answer) can hand it to any other
// program of the machine, whose words would then carry it to the student. So every check of such a grading,
// public, generated, property or hidden, tells only what the grader chose: its status, a fixed message for
// the status (an error names the kind of rule broken), its first hint in general words (Hint.general), and
// nothing else: no stderr, no error line, no output, no difference, no session, no advice, no duration.
// The teacher's report keeps the whole verdict. A check of a submission that was never run (it does not
// compile, or imports what it may not) keeps its words: they are of the submission's files, fixed before
// any program ran.
import { diagnosesOf, type Status, type Verdict } from '../run/verdict.ts';

const SAID: Record<Status, string> = {
  pass: 'passed',
  fail: 'its output is not the expected one',
  error: 'your client broke the protocol of the recorded session',
  timeout: 'it ran out of time and was stopped',
  crash: 'it exited with an error, was killed, or used too much memory',
  infra: 'the grader could not run it',
};

/** A property's own words for a status where they differ from a case's. */
const SAID_OF_PROPERTY: Partial<Record<Status, string>> = {
  fail: 'a generated input found a counterexample',
};

/** The hints a sealed check keeps: its first, the mistake the rest follow from. Each hint kept is a choice a
 *  program makes among the stage's kinds of hint, and so bits it can move: docs/ci.md counts them. */
export const SEALED_HINTS = 1;

/** What every report of a sealed grading says of it, before its checks. */
export const SEALED_NOTE =
  "sealed: hidden cases or other students' work were on the grading machine, so each check shows its verdict and first hint only, never what your program printed or how long it took; the teacher's report has the rest";

/** Under a failing hidden case: why there is no more to read. */
export const HIDDEN_DETAILS = 'a hidden case: what it is given, what it expects and what your program printed are not shown';

/** Under any other failing check of a sealed grading. */
export const SEALED_DETAILS =
  "a sealed grading (hidden cases or other students' work were on the machine): what your program printed is not shown; grade it yourself (npx theinference test) to see it";

export function sealedVerdict(verdict: Verdict, { hidden = false }: { hidden?: boolean } = {}): Verdict {
  if (verdict.notRun !== undefined) return { ...verdict, durationMs: 0 };
  const hints = (verdict.hints ?? []).slice(0, SEALED_HINTS).map(({ kind, lines, general, aboutTheCase }) => ({
    kind,
    lines: general ?? lines,
    ...(aboutTheCase && { aboutTheCase }),
  }));
  // which rule the client broke is a kind, as a hint's is: the player's words quote the recording
  const broken = verdict.status === 'error' ? diagnosesOf(verdict)[0]?.kind : undefined;
  const property = verdict.name.startsWith('property: ');
  const said = (property && SAID_OF_PROPERTY[verdict.status]) || SAID[verdict.status];
  return {
    name: verdict.name,
    status: verdict.status,
    message: broken === undefined ? said : `${SAID.error} (${broken})`,
    ...(verdict.status !== 'pass' && { details: hidden ? HIDDEN_DETAILS : SEALED_DETAILS }),
    ...(hints.length > 0 && { hints }),
    // the seed is the grader's: a property's replays on the student's machine, where every word shows
    ...(verdict.seed !== undefined && !hidden && { seed: verdict.seed }),
    durationMs: 0,
  };
}
