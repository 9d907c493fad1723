// The student's module as the grader's checks see it: a stand-in whose functions answer with what
// the oracle said for the same call (the function and its encoded arguments). A call not answered
// yet throws OracleMiss through the check; the runner asks the oracle and runs the check again
// from the start, which is sound because a check is a pure function of its value and the answers.
import { AnswerLater, type Answer, type Call } from './oracle-session.ts';
import { RUNNER_SIGNAL, type StudentModule } from './suite.ts';
import { encode, MAX_DEPTH, VALUE_BUDGET_BYTES, type Unexaminable } from './values.ts';

/** A call whose answer is not known yet. Not an Error: thrown thousands of times, it needs no stack. */
export class OracleMiss {
  readonly [RUNNER_SIGNAL] = true;
  constructor(readonly call: Call) {}
}

/** The student's value cannot be examined (too big, too deep, unreadable): the property fails with
 *  this message as a check's Broken would (same name), without a catch in the check rewording it. */
export class NotExaminable extends Error {
  readonly [RUNNER_SIGNAL] = true;
  override name = 'Broken';
}

/** Bytes of answers kept; past it the oldest go (and are asked again if needed). */
const ANSWERS_BUDGET_BYTES = 32 * 1024 * 1024;

export class Answers {
  private readonly known = new Map<string, { answer: Answer | AnswerLater; bytes: number }>();
  private bytes = 0;
  /** How many answers were dropped to stay within budget. */
  evictions = 0;
  /** The first call missed since takeMiss last looked: known even when a check swallowed the OracleMiss. */
  private firstMiss: Call | undefined;

  takeMiss(): Call | undefined {
    const miss = this.firstMiss;
    this.firstMiss = undefined;
    return miss;
  }

  has(key: string): boolean {
    return this.known.has(key);
  }

  add(call: Call, answer: Answer | AnswerLater, bytes: number): void {
    if (this.known.has(call.key)) return;
    this.known.set(call.key, { answer, bytes });
    this.bytes += bytes;
    for (const [key, entry] of this.known) {
      if (this.bytes <= ANSWERS_BUDGET_BYTES || key === call.key) break;
      this.known.delete(key);
      this.bytes -= entry.bytes;
      this.evictions += 1;
    }
  }

  /** A module with one function per name, each answering from what is known. */
  student(names: readonly string[]): StudentModule {
    const stand =
      (fn: string) =>
      (...args: unknown[]) => {
        const call = callOf(fn, args);
        const known = this.known.get(call.key);
        if (known === undefined) {
          this.firstMiss ??= call;
          throw new OracleMiss(call);
        }
        if (known.answer instanceof AnswerLater) known.answer = known.answer.read();
        return replay(fn, known.answer);
      };
    return Object.freeze(Object.fromEntries(names.map((name) => [name, stand(name)])));
  }
}

function replay(fn: string, answer: Answer): unknown {
  if ('value' in answer) return answer.value;
  if ('threw' in answer) throw answer.threw;
  throw new NotExaminable(notExaminable(fn, answer.unexaminable, answer.thrown === true));
}

function notExaminable(fn: string, marker: Unexaminable, thrown: boolean): string {
  const did = thrown ? 'threw' : 'returned';
  const cap = `${VALUE_BUDGET_BYTES / 1024 / 1024} MiB`;
  if (marker.$ === 'too-deep') return `${fn} ${did} a value nested more than ${MAX_DEPTH} levels deep, deeper than the grader examines`;
  if (marker.$ === 'unreadable') return `${fn} ${did} a value the grader could not copy out of your process (a getter or a proxy threw)`;
  if (marker.stringLength !== undefined) return `${fn} ${did} a string of ${marker.stringLength} characters, more than the ${cap} the grader examines`;
  return `${fn} ${did} a value of more than ${cap} as JSON, more than the grader examines`;
}

/** Encodings of the grader's own arguments (generated values, or answers passed back), kept per object. */
const encodings = new WeakMap<object, string>();

/** An argument's encoding: allowed twice an answer's budget, since an answer may come back as an argument. */
export function encodeArgument(value: unknown): string {
  if (typeof value !== 'object' || value === null) return checked(encode(value, 2 * VALUE_BUDGET_BYTES));
  let text = encodings.get(value);
  if (text === undefined) {
    text = checked(encode(value, 2 * VALUE_BUDGET_BYTES));
    encodings.set(value, text);
  }
  return text;
}

/** An encoding that is a marker (too big, too deep) cannot be sent; never the case for a generated value. */
function checked(text: string): string {
  if (/^\{"\$":"(too-big|too-deep|unreadable)"/.test(text)) throw new NotExaminable('an argument for your function is too big to send to your process');
  return text;
}

export function callOf(fn: string, args: readonly unknown[]): Call {
  const encoded = `[${args.map(encodeArgument).join(',')}]`;
  return { fn, args: encoded, key: `${fn}${encoded}` };
}
