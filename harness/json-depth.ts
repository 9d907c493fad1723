// How deep the grader reads a JSON value a program sent (a client's message, a program's output, the
// report a case's server sends first). JSON.parse reads any depth, but what comes after it recurses:
// matching, the schema checks, a diff, JSON.stringify in a diagnosis or a report. A value nested a few
// thousand levels deep overflows the stack there, and the RangeError would end the whole grading.
// JSON-RPC and MCP set no bound: this one is the grader's own, checked where a program's bytes are
// parsed, far above anything a course sends or expects (its deepest value is 14 levels) and well below
// where the first of those walks overflows (util.isDeepStrictEqual, at 1,250 levels; JSON.stringify at
// 5,000). The property oracle's answers have the same bound of their own (props/values.ts MAX_DEPTH).

/** The most levels of arrays and objects a value the grader reads may nest: `[]` is one, `[[]]` two. */
export const MAX_JSON_DEPTH = 500;

/** What the grader says of a value nested deeper, after the thing it names ("a message"). */
export const NESTED_TOO_DEEP = `nested deeper than ${MAX_JSON_DEPTH} levels, which the grader does not read`;

/** Whether a parsed JSON value nests arrays and objects more than `max` levels deep. A loop with its
 *  own stack, not recursion, so that it reads any depth; each value is looked at once. */
export function nestedDeeperThan(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const pending: object[] = [];
  const depths: number[] = [];
  if (typeof value === 'object' && value !== null) {
    pending.push(value);
    depths.push(1);
  }
  while (pending.length > 0) {
    const container = pending.pop()!;
    const depth = depths.pop()!;
    if (depth > max) return true;
    // JSON.parse's objects: own enumerable keys only, a "__proto__" key among them
    for (const child of Array.isArray(container) ? container : Object.values(container)) {
      if (typeof child !== 'object' || child === null) continue;
      pending.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}
