// What a property suite is: named properties over the exports of a student's module. A suite
// names the exports it needs; each property pairs a generator with a check that throws a
// `Broken` error saying, in a student's words, what went wrong for one generated value.
import type fc from 'fast-check';

/** The student's module, as `import()` returns it. */
export type StudentModule = Readonly<Record<string, unknown>>;

export interface PropertyCheck<T = unknown> {
  /** Stable and short; how the runner names the property in its bookkeeping. */
  id: string;
  /** What holds, for the student: the verdict is named `property: <description>`. */
  description: string;
  arbitrary: fc.Arbitrary<T>;
  /** Returns when the property holds for `value`; throws (a `Broken`, ideally) when not. */
  check(student: StudentModule, value: T): void;
  /** Extra lines under a counterexample: what the student's code made of it. Must not throw. */
  explain?(student: StudentModule, value: T): string[];
}

export interface PropertySuite {
  /** As course.yaml names it: `properties: <name>`. */
  name: string;
  /** Functions the module must export; a module without them fails every property up front. */
  requiredExports: readonly string[];
  properties: readonly PropertyCheck[];
}

/** A property does not hold; the message is one line a student reads. */
export class Broken extends Error {
  override name = 'Broken';
}

/** Lets a typed property sit in a suite's list; the runner only ever feeds it its own values. */
export function property<T>(definition: PropertyCheck<T>): PropertyCheck {
  return definition as unknown as PropertyCheck;
}

/** The student's code threw: said with the function's name and the error's own message. */
export class StudentThrew extends Broken {
  constructor(
    readonly functionName: string,
    readonly thrown: unknown,
  ) {
    super(`${functionName} threw ${describeThrown(thrown)}`);
  }
}

/** Marks what the runner's stand-in for the student's module throws through a check (an answer
 *  not known yet, say), never the student's code: every catch in a check rethrows it untouched. */
export const RUNNER_SIGNAL: unique symbol = Symbol('runner signal');

/** The first line of every catch block in a check or an explanation. */
export function rethrowRunnerSignal(error: unknown): void {
  if (typeof error === 'object' && error !== null && RUNNER_SIGNAL in error) throw error;
}

/** Calls into the student's code, turning whatever it throws into a `StudentThrew`. */
export function callStudent<R>(student: StudentModule, functionName: string, ...args: unknown[]): R {
  const fn = student[functionName] as (...args: unknown[]) => R;
  try {
    return fn(...args);
  } catch (error) {
    rethrowRunnerSignal(error);
    throw new StudentThrew(functionName, error);
  }
}

/** `Error: message`, or what was thrown when it is not an Error. */
export function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) return `${thrown.name}: ${thrown.message}`;
  try {
    return `the value ${JSON.stringify(thrown) ?? String(thrown)}`;
  } catch {
    return `the value ${String(thrown)}`;
  }
}
