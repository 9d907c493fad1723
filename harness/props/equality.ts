// Deep equality for what parseFrame returns, with deep-equal (the course's choice, strict mode)
// as the authority. deep-equal takes about 2 ms on a deep generated message, which over three
// thousand comparisons is most of a suite's time; so a plain JSON tree equal to the expected
// one (which deep-equal would accept too) is accepted directly, and anything else, unequal or
// unusual (other prototypes, extra keys), goes to deep-equal for the final word.
import { createRequire } from 'node:module';

// Loaded on first use (with its two dozen polyfill packages, 30 ms of a grader's start): a parseFrame
// that returns plain JSON never needs it.
type DeepEqual = typeof import('deep-equal');
let deepEqualLibrary: DeepEqual | undefined;
const deepEqual = (): DeepEqual => (deepEqualLibrary ??= createRequire(import.meta.url)('deep-equal') as DeepEqual);

export function equalsJson(actual: unknown, expected: unknown): boolean {
  return samePlainJson(actual, expected) || deepEqual()(actual, expected, { strict: true });
}

const { getPrototypeOf, keys, hasOwn } = Object;
const isArray = Array.isArray;

/** True only for two trees of plain objects, arrays and primitives that are equal node by node. */
function samePlainJson(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (getPrototypeOf(a) !== getPrototypeOf(b)) return false;
  if (isArray(a)) {
    if (!isArray(b) || getPrototypeOf(a) !== Array.prototype || a.length !== b.length) return false;
    if (keys(a).length !== a.length || keys(b).length !== b.length) return false; // holes or extra keys
    return a.every((item, index) => samePlainJson(item, b[index]));
  }
  if (isArray(b) || getPrototypeOf(a) !== Object.prototype) return false;
  const aKeys = keys(a);
  if (aKeys.length !== keys(b).length) return false;
  const aRecord = a as Record<string, unknown>;
  const bRecord = b as Record<string, unknown>;
  return aKeys.every((key) => hasOwn(bRecord, key) && samePlainJson(aRecord[key], bRecord[key]));
}
