// Comparing two outputs as JSON, after setting aside what is wrong with the raw bytes (CRLF line
// ends, log lines around the JSON), and reading the comparison: the ground every hint rule (the
// generic ones in hints.ts, each stage's in harness/stages/) stands on.
import { NESTED_TOO_DEEP, nestedDeeperThan } from '../json-depth.ts';
import { quote } from './escape.ts';

/** A text read as JSON: its value, or why not (`tooDeep`: JSON, nested deeper than the grader reads). */
export type JsonReading = { ok: true; value: unknown } | { ok: false; error: string; tooDeep?: true };

export interface Comparison {
  expectedText: string;
  actualText: string;
  expectedJson: JsonReading;
  /** The actual output as printed, parsed. */
  actualRawJson: JsonReading;
  /** The actual output parsed after undoing CRLF line ends and dropping log lines. */
  actualJson: JsonReading;
  /** Raw CRLF line ends where expected.json has none. */
  crlf: boolean;
  /** Lines that are not part of the expected JSON, blank ones included, in output order. */
  strayLines: string[];
}

// ------------------------------------------------------------------ comparing outputs as JSON

/** The one reading of a program's output (and of a frame it printed) as JSON: every rule walks the
 *  value, so one nested deeper than json-depth.ts allows is not read. */
export function parseJson(text: string): JsonReading {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  return nestedDeeperThan(value) ? { ok: false, error: NESTED_TOO_DEEP, tooDeep: true } : { ok: true, value };
}

export function compareOutputs(expected: Buffer, actual: Buffer): Comparison {
  const expectedText = expected.toString('utf8');
  const actualText = actual.toString('utf8');
  const expectedJson = parseJson(expectedText);
  const actualRawJson = parseJson(actualText);
  // Most line ends being \r\n is a CRLF habit; a stray \r\n in garbage output is not.
  const crlfCount = actualText.split('\r\n').length - 1;
  const crlf = crlfCount > 0 && crlfCount * 2 >= actualText.split('\n').length - 1 && !expectedText.includes('\r\n');
  const withoutCr = crlf ? actualText.replaceAll('\r\n', '\n') : actualText;
  let actualJson = crlf ? parseJson(withoutCr) : actualRawJson;
  let strayLines: string[] = [];
  const split = expectedJson.ok && !actualJson.ok && !actualJson.tooDeep ? splitOffStrayLines(expectedText, withoutCr) : undefined;
  if (split !== undefined) {
    strayLines = split.strayLines;
    actualJson = parseJson(split.rest);
  }
  return { expectedText, actualText, expectedJson, actualRawJson, actualJson, crlf, strayLines };
}

/**
 * Separates lines printed around (or between) the JSON from the JSON itself. First try: the
 * expected lines appear in order and everything else is extra. Second try, for when the JSON
 * is wrong too: the lines before the JSON's first line and after its last.
 */
function splitOffStrayLines(expectedText: string, actualText: string): { strayLines: string[]; rest: string } | undefined {
  const expectedLines = expectedText.split('\n');
  const actualLines = actualText.split('\n');
  const kept: string[] = [];
  const stray: string[] = [];
  let next = 0;
  for (const line of actualLines) {
    if (next < expectedLines.length && line === expectedLines[next]) {
      kept.push(line);
      next++;
    } else stray.push(line);
  }
  if (next === expectedLines.length && stray.length > 0) return { strayLines: stray, rest: kept.join('\n') };

  const opens = (line: string) => /^\s*[[{]/.test(line);
  const closes = (line: string) => /^\s*[\]}]\s*$/.test(line);
  const first = actualLines.findIndex(opens);
  let last = actualLines.length - 1;
  while (last > first && !closes(actualLines[last]!)) last--;
  if (first < 0 || last <= first) return undefined;
  const outside = [...actualLines.slice(0, first), ...actualLines.slice(last + 1)];
  if (!outside.some(isNotBlank)) return undefined;
  const rest = actualLines.slice(first, last + 1).join('\n') + '\n';
  if (!parseJson(rest).ok) return undefined;
  return { strayLines: outside.filter(isNotBlank), rest };
}

export function isNotBlank(line: string): boolean {
  return line.trim() !== '';
}

/** The line breaks (`\n` or `\r\n`) `text` ends with, read back from its end: a regular expression
 *  anchored there, `(\r?\n)+$`, scans each run of them from every place in it (quadratic). */
export function finalLineBreaks(text: string): string {
  let start = text.length;
  while (text[start - 1] === '\n') start -= text[start - 2] === '\r' ? 2 : 1;
  return text.slice(start);
}

export interface JsonDifference {
  /** Where, as in `frames[2]` or `servers[0].args`; '' for the whole value. */
  path: string;
  /** What differs there, e.g. `missing in yours` or `same keys in another order`. */
  note: string;
  kind: 'value' | 'type' | 'missing' | 'extra' | 'order';
}

/** The first place (in output order) where two JSON values differ, key order included. */
export function firstJsonDifference(expected: unknown, actual: unknown, path = ''): JsonDifference | undefined {
  const expectedType = jsonType(expected);
  const actualType = jsonType(actual);
  if (expectedType !== actualType) {
    return { path, kind: 'type', note: `expected ${describeValue(expected)}, yours is ${describeValue(actual)}` };
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const common = Math.min(expected.length, actual.length);
    for (let index = 0; index < common; index++) {
      const difference = firstJsonDifference(expected[index], actual[index], `${path}[${index}]`);
      if (difference) return difference;
    }
    if (expected.length === actual.length) return undefined;
    const counts = `expected ${expected.length} items, yours has ${actual.length}`;
    return expected.length > actual.length
      ? { path: `${path}[${common}]`, kind: 'missing', note: `missing in yours (${counts})` }
      : { path: `${path}[${common}]`, kind: 'extra', note: `not expected (${counts})` };
  }
  if (expectedType === 'object') {
    const expectedRecord = expected as Record<string, unknown>;
    const actualRecord = actual as Record<string, unknown>;
    const expectedKeys = Object.keys(expectedRecord);
    const actualKeys = Object.keys(actualRecord);
    for (let index = 0; index < expectedKeys.length; index++) {
      const key = expectedKeys[index]!;
      const actualKey = actualKeys[index];
      if (actualKey !== key) {
        if (!Object.hasOwn(actualRecord, key)) return { path: joinPath(path, key), kind: 'missing', note: 'missing in yours' };
        if (actualKey !== undefined && !Object.hasOwn(expectedRecord, actualKey)) {
          return { path: joinPath(path, actualKey), kind: 'extra', note: 'not expected' };
        }
        return {
          path,
          kind: 'order',
          note: `same keys in another order: expected ${expectedKeys.join(', ')}; yours ${actualKeys.join(', ')}`,
        };
      }
      const difference = firstJsonDifference(expectedRecord[key], actualRecord[key], joinPath(path, key));
      if (difference) return difference;
    }
    const extra = actualKeys[expectedKeys.length];
    return extra === undefined ? undefined : { path: joinPath(path, extra), kind: 'extra', note: 'not expected' };
  }
  if (Object.is(expected, actual)) return undefined;
  if (typeof expected === 'string' && typeof actual === 'string' && Math.max(expected.length, actual.length) > 30) {
    let at = 0;
    while (expected[at] === actual[at]) at++;
    return { path, kind: 'value', note: `the strings differ from character ${at + 1} on` };
  }
  return { path, kind: 'value', note: `expected ${quote(JSON.stringify(expected), 40)}, yours is ${quote(JSON.stringify(actual), 40)}` };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A JSON value in a few words: `an array of 3`, `a string "abc"`, `the number 4`. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string ${quote(JSON.stringify(value), 30)}`;
  return `${typeof value === 'number' ? 'the number' : ''} ${JSON.stringify(value)}`.trim();
}

function joinPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;
}

// ------------------------------------------------------------------ readers for the rules

/** Both outputs as JSON values, when both parse: what the JSON-level rules read. */
export function bothValues(comparison: Comparison): { expected: unknown; actual: unknown } | undefined {
  const { expectedJson, actualJson } = comparison;
  return expectedJson.ok && actualJson.ok ? { expected: expectedJson.value, actual: actualJson.value } : undefined;
}

/** The fields of a JSON object; none for anything else. */
export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** A path made by firstJsonDifference, as a sentence names it. */
export function describePath(path: string): string {
  return path === '' ? 'the top level' : path;
}

/** The value at a path made by firstJsonDifference (keys and [index] / ["key"] steps). */
export function valueAt(root: unknown, path: string): unknown {
  let value = root;
  for (const step of path.matchAll(/\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    const key = step[1] ?? step[2] ?? (JSON.parse(step[3]!) as string);
    value = (value as Record<string, unknown> | undefined)?.[key];
  }
  return value;
}

/** Whether an object's keys (two or more) are in sorted order: a sign of code that sorts them. */
export function keysAreSorted(value: unknown): boolean {
  const keys = Object.keys(asRecord(value));
  return keys.length > 1 && keys.every((key, index) => index === 0 || keys[index - 1]! <= key);
}
