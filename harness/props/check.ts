// One property judged in the grader's own process: fast-check generates, shrinks and decides
// here, and the check runs here against a stand-in for the student's module (answers.ts) whose
// answers come from the oracle. Two steps:
// 1. The values fast-check will try for this seed are known beforehand (recorded by the caller).
//    Their calls are asked in batches: each round runs every undecided check, collects the calls
//    they miss and asks them at once (a call on an answer, parseFrame(frame(m)), takes a round
//    more). The first value whose check fails ends the list: fast-check never runs past it.
// 2. When one failed (or asking ahead was abandoned), the real fc.check runs with those answers at
//    hand, so that it shrinks and reports as it always did; only the values it shrinks to ask more,
//    one call at a time. When every value passed, fc.check would say so: it is not run.
// A Halt (the oracle died on a call, the time ran out) ends the property wherever it comes from.
import fc from 'fast-check';
import { encodeArgument, type Answers } from './answers.ts';
import type { Call } from './oracle-session.ts';
import { clip, show } from './show.ts';
import { describeThrown, type PropertyCheck, type StudentModule } from './suite.ts';

/** Why a property stopped before fast-check had its say; the runner words it (run.ts). */
export interface Halt {
  readonly halt: true;
}

/** What checking a property needs from the oracle, however many processes it takes. */
export interface Oracle<H extends Halt> {
  /** Asks for calls ahead of need. `abandon`: asking ahead is no longer worth it (an answer is slow
   *  in coming); the real run will ask for what it needs. */
  prefetch(calls: Call[]): Promise<H | 'abandon' | undefined>;
  /** Asks for a call the real run needs now. */
  demand(call: Call): Promise<H | undefined>;
  /** The halt a call is known to bring: it ended an oracle before. */
  deadly(key: string): H | undefined;
  /** A halt due now whatever happens (the time is up, the run was cancelled). */
  due(): H | undefined;
}

export interface PropertyOutcome {
  passed: boolean;
  numRuns: number;
  numShrinks: number;
  /** When failed: the shrunk counterexample, as fast-check prints it. */
  counterexample?: string;
  /** When failed: one line, what the check said about the counterexample. */
  problem?: string;
  /** When failed: more lines, what the student's code made of the counterexample. */
  explanation?: string[];
  /** fast-check gave up without a verdict (e.g. its own time limit); never expected. */
  interrupted?: boolean;
}

export interface JudgeOptions {
  seed: number;
  runs: number;
}

type Result<H> = { passed: true } | { error: unknown } | { halt: H };

/** Values already made, by arbitrary, then seed and runs: a grader that grades again with the same
 *  seed (watch mode, on every save) makes them once, since fast-check makes the same values from the
 *  same seed. Values are data the checks only read. */
const made = new WeakMap<fc.Arbitrary<unknown>, Map<string, readonly unknown[]>>();

/** The values fc.check tries first for this arbitrary, seed and number of runs, in its order. */
export function valuesTried(arbitrary: fc.Arbitrary<unknown>, options: JudgeOptions): readonly unknown[] {
  const key = `${options.seed}:${options.runs}`;
  let byKey = made.get(arbitrary);
  const known = byKey?.get(key);
  if (known !== undefined) return known;
  const values: unknown[] = [];
  fc.check(
    fc.property(arbitrary, (value) => {
      values.push(value);
    }),
    { seed: options.seed, numRuns: options.runs },
  );
  if (byKey === undefined) made.set(arbitrary, (byKey = new Map()));
  byKey.set(key, values);
  return values;
}

export async function checkProperty<H extends Halt>(
  check: PropertyCheck,
  values: readonly unknown[],
  answers: Answers,
  exports: readonly string[],
  oracle: Oracle<H>,
  options: JudgeOptions,
): Promise<PropertyOutcome | H> {
  const student = answers.student(exports);
  const attempt = (value: unknown): Result<H> | { miss: Call } => {
    answers.takeMiss();
    let result: Result<H> = { passed: true };
    try {
      check.check(student, value);
    } catch (error) {
      result = { error };
    }
    // a miss, even one a check caught and swallowed, means the check has not run on real answers
    const miss = answers.takeMiss();
    if (miss === undefined) return result;
    const halt = oracle.deadly(miss.key);
    return halt ? { halt } : { miss };
  };

  // 1. every call the run will make on the values known beforehand, in a few batches
  const decided = new Map<number, Result<H>>();
  let end = values.length;
  for (;;) {
    const halt = oracle.due();
    if (halt) return halt;
    const misses = new Map<string, Call>();
    for (let index = 0; index < end; index += 1) {
      if (decided.has(index)) continue;
      const result = attempt(values[index]);
      if ('miss' in result) {
        misses.set(result.miss.key, result.miss);
        continue;
      }
      decided.set(index, result);
      if (!('passed' in result)) end = index + 1;
    }
    if (misses.size === 0) break;
    const asked = await oracle.prefetch([...misses.values()]);
    if (asked === 'abandon') break;
    if (asked) return asked;
  }
  // Every value fc.check would try passed: it would say just that, so it need not make them again.
  if (decided.size === values.length && [...decided.values()].every((result) => 'passed' in result)) {
    return { passed: true, numRuns: values.length, numShrinks: 0 };
  }

  // 2. the real run: decided values answer at once, others (shrinking) ask as they go
  const known = new Map<string | undefined, Result<H>>();
  for (const [index, result] of decided) known.set(valueKey(values[index]), result);
  known.delete(undefined);
  const settle = async (value: unknown): Promise<Result<H>> => {
    for (;;) {
      const result = attempt(value);
      if (!('miss' in result)) return result;
      const halt = await oracle.demand(result.miss);
      if (halt) return { halt };
    }
  };
  let halted: H | undefined;
  const details = await fc.check(
    fc.asyncProperty(check.arbitrary, async (value) => {
      halted ??= oracle.due();
      if (halted) return; // passes, so that fast-check ends quickly; the halt is the verdict
      const result = known.get(valueKey(value)) ?? (await settle(value));
      if ('halt' in result) halted = result.halt;
      else if ('error' in result) throw result.error;
    }),
    { seed: options.seed, numRuns: options.runs },
  );
  if (halted) return halted;

  const outcome: PropertyOutcome = {
    passed: !details.failed && !details.interrupted,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    interrupted: details.interrupted || undefined,
  };
  if (!details.failed || details.counterexample === null) return outcome;
  const [value] = details.counterexample;
  const explanation = await explain(check, value, student, answers, oracle);
  if (!Array.isArray(explanation)) return explanation;
  return { ...outcome, counterexample: show(value), problem: clip(describeFailure(details.errorInstance)), explanation };
}

/** The check's explanation lines, asking the oracle for any call it makes that is not answered yet. */
async function explain<H extends Halt>(
  check: PropertyCheck,
  value: unknown,
  student: StudentModule,
  answers: Answers,
  oracle: Oracle<H>,
): Promise<string[] | H> {
  if (!check.explain) return [];
  for (;;) {
    answers.takeMiss();
    let lines: string[];
    try {
      lines = check.explain(student, value);
    } catch (error) {
      lines = [`(could not explain the counterexample: ${describeThrown(error)})`];
    }
    const miss = answers.takeMiss();
    if (miss === undefined) return lines;
    const halt = oracle.deadly(miss.key) ?? (await oracle.demand(miss));
    if (halt) return halt;
  }
}

/** Values with the same encoding are the same to a check (values.ts writes every difference one could
 *  see); undefined for a value too big to encode, which is then always checked afresh. */
function valueKey(value: unknown): string | undefined {
  try {
    return encodeArgument(value);
  } catch {
    return undefined;
  }
}

/** The check's own message (a Broken), or what else went wrong in it. */
function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'Broken') return error.message;
  return `the check itself failed: ${describeThrown(error)}`;
}
