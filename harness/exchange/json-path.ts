// JSON paths as people write them in cassettes and read them in diagnoses: `params.arguments.message`,
// `result.content[0].text`, `*` for any key or index. Also the comparison that says where two
// values first differ, skipping free paths and every `_meta`.
import type { Json, JsonObject } from '../json.ts';

/** A JSON object: not null, not an array. */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export type Segment = string | number;

export function parsePath(text: string): Segment[] {
  const segments: Segment[] = [];
  for (const part of text.split('.')) {
    const match = /^([^[\]]*)((?:\[(?:\d+|\*)\])*)$/.exec(part);
    if (match === null || part === '') throw new Error(`not a JSON path: "${text}"`);
    if (match[1] !== '') segments.push(match[1]!);
    for (const index of match[2]!.matchAll(/\[(\d+|\*)\]/g)) segments.push(index[1] === '*' ? '*' : Number(index[1]));
  }
  if (segments.length === 0) throw new Error(`not a JSON path: "${text}"`);
  return segments;
}

export function formatPath(segments: readonly Segment[]): string {
  let text = '';
  for (const segment of segments) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text === '' ? '(the whole message)' : text;
}

/** A compiled set of free paths, checked at every step of a comparison. */
export class FreePaths {
  private readonly patterns: Segment[][];
  constructor(paths: readonly string[]) {
    this.patterns = paths.map(parsePath);
  }
  get empty(): boolean {
    return this.patterns.length === 0;
  }
  has(path: readonly Segment[]): boolean {
    return this.patterns.some(
      (pattern) =>
        pattern.length === path.length && pattern.every((segment, i) => segment === '*' || segment === path[i] || String(segment) === String(path[i])),
    );
  }
}

export interface MatchDifference {
  path: Segment[];
  expected: Json | undefined;
  actual: Json | undefined;
}

const NO_FREE = new FreePaths([]);

/** The first place where `actual` differs from `expected`, or undefined when they are equal as JSON. */
export function firstDifference(
  expected: Json | undefined,
  actual: Json | undefined,
  free: FreePaths = NO_FREE,
  path: Segment[] = [],
): MatchDifference | undefined {
  if (!free.empty && free.has(path)) return undefined;
  if (expected === actual) return undefined;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const length = Math.max(expected.length, actual.length);
    for (let i = 0; i < length; i++) {
      const found = firstDifference(expected[i], actual[i], free, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (isObject(expected) && isObject(actual)) {
    for (const key of Object.keys(expected)) {
      if (key === '_meta') continue;
      const found = firstDifference(expected[key], actual[key], free, [...path, key]);
      if (found) return found;
    }
    for (const key of Object.keys(actual)) {
      if (key === '_meta' || key in expected) continue;
      const found = firstDifference(undefined, actual[key], free, [...path, key]);
      if (found) return found;
    }
    return undefined;
  }
  return { path, expected, actual };
}

/** How many leaf differences there are (capped), for ranking the nearest recorded message. */
export function countDifferences(expected: Json | undefined, actual: Json | undefined, cap = 50): number {
  if (expected === actual) return 0;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    let count = 0;
    for (let i = 0; i < Math.max(expected.length, actual.length) && count < cap; i++) count += countDifferences(expected[i], actual[i], cap);
    return count;
  }
  if (isObject(expected) && isObject(actual)) {
    let count = 0;
    for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
      if (key === '_meta') continue;
      count += countDifferences(expected[key], actual[key], cap);
      if (count >= cap) break;
    }
    return count;
  }
  return 1;
}

export function getAt(value: Json | undefined, path: readonly Segment[]): Json | undefined {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isObject(current) && typeof segment === 'string') current = current[segment];
    else return undefined;
  }
  return current;
}
