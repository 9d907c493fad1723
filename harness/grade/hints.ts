// Why an output differs from expected.json, in words: each hint names one mistake and its fix.
// The machinery at the top compares the two outputs as JSON (after setting aside what is wrong
// with the raw bytes: CRLF, log lines); the rules below it read that comparison. Rules for any
// JSON output come first; each stage's rules sit in their own list at the end.
import { isDeepStrictEqual } from 'node:util';
import { quote } from './escape.ts';

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

export interface Hint {
  /** Which mistake, so one mistake is hinted once however many places show it. */
  kind: string;
  /** One or two short lines: the mistake, then the fix. */
  lines: string[];
}

export interface Comparison {
  expectedText: string;
  actualText: string;
  expectedJson: Parsed;
  /** The actual output as printed, parsed. */
  actualRawJson: Parsed;
  /** The actual output parsed after undoing CRLF line ends and dropping log lines. */
  actualJson: Parsed;
  /** Raw CRLF line ends where expected.json has none. */
  crlf: boolean;
  /** Lines that are not part of the expected JSON, blank ones included, in output order. */
  strayLines: string[];
}

// ------------------------------------------------------------------ comparing outputs as JSON

export function parseJson(text: string): Parsed {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
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
  const split = expectedJson.ok && !actualJson.ok ? splitOffStrayLines(expectedText, withoutCr) : undefined;
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

function isNotBlank(line: string): boolean {
  return line.trim() !== '';
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
    return { path, kind: 'type', note: `expected ${describe(expected)}, yours is ${describe(actual)}` };
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

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return `a string ${quote(JSON.stringify(value), 30)}`;
  return `${typeof value === 'number' ? 'the number' : ''} ${JSON.stringify(value)}`.trim();
}

function joinPath(path: string, key: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(key) ? (path === '' ? key : `${path}.${key}`) : `${path}[${JSON.stringify(key)}]`;
}

// ------------------------------------------------------------------------ turning it into hints

type HintRule = (comparison: Comparison) => Hint[];

/** The hints for a failing output, most basic first, each kind of mistake once. */
export function hintsFor(comparison: Comparison): Hint[] {
  if (comparison.actualText.length === 0) {
    return [{ kind: 'empty', lines: ['your program printed nothing on stdout', 'if it crashed, its error is on stderr above'] }];
  }
  const hints: Hint[] = [];
  for (const rule of [...OUTPUT_RULES, ...STAGE_RULES]) {
    for (const hint of rule(comparison)) {
      if (!hints.some((known) => known.kind === hint.kind)) hints.push(hint);
    }
  }
  if (hints.length === 0) hints.push(...fallback(comparison));
  return hints;
}

/** Both outputs as JSON values, when both parse: what the JSON-level rules read. */
function values(comparison: Comparison): { expected: unknown; actual: unknown } | undefined {
  const { expectedJson, actualJson } = comparison;
  return expectedJson.ok && actualJson.ok ? { expected: expectedJson.value, actual: actualJson.value } : undefined;
}

// --------------------------------------------------------------- rules for any JSON output

const OUTPUT_RULES: HintRule[] = [
  function crlfLineEnds({ crlf }) {
    return crlf ? [{ kind: 'crlf-output', lines: ['your output ends its lines with \\r\\n (CRLF); write \\n only'] }] : [];
  },

  function logLinesOnStdout({ strayLines }) {
    const logLines = strayLines.filter(isNotBlank);
    if (logLines.length === 0) return [];
    const more = logLines.length > 1 ? ` (and ${logLines.length - 1} more)` : '';
    return [
      {
        kind: 'log-line',
        lines: [`a log line on stdout: ${quote(logLines[0]!)}${more}`, 'use console.error: stdout is the protocol channel'],
      },
    ];
  },

  function finalNewline({ expectedText, actualText, strayLines }) {
    const body = actualText.replace(/(\r?\n)+$/, '');
    if (expectedText.endsWith('\n') && !actualText.endsWith('\n')) {
      return [{ kind: 'final-newline', lines: ['your output does not end with a newline; end it with exactly one \\n'] }];
    }
    if (/\n\r?\n$/.test(actualText) && !/\n\n$/.test(expectedText)) {
      const extra = actualText.length - body.length;
      return [{ kind: 'final-newline', lines: [`your output ends with ${extra} line breaks; end it with exactly one \\n`] }];
    }
    if (strayLines.length > 0 && !strayLines.some(isNotBlank)) {
      return [{ kind: 'blank-line', lines: ['your output has an extra blank line: something printed an empty line on stdout'] }];
    }
    return [];
  },

  function keysInAnotherOrder(comparison) {
    const both = values(comparison);
    if (both === undefined) return [];
    const difference = firstJsonDifference(both.expected, both.actual);
    if (difference?.kind !== 'order') return [];
    const sorted = keysAreSorted(valueAt(both.actual, difference.path));
    return [
      {
        kind: 'key-order',
        lines: [
          `${describePath(difference.path)}: the same keys in another order${sorted ? ' (yours are sorted)' : ''}`,
          'the bytes are compared, so keep keys in the order expected.json has them; do not sort them',
        ],
      },
    ];
  },
];

/** When no rule knows the mistake: at least say what kind of difference it is. */
function fallback(comparison: Comparison): Hint[] {
  const both = values(comparison);
  if (both !== undefined && isDeepStrictEqual(both.expected, both.actual) && firstJsonDifference(both.expected, both.actual) === undefined) {
    return [{ kind: 'same-value', lines: ['the JSON value is right; only the whitespace or escaping between its tokens differs'] }];
  }
  return [];
}

// --------------------------------------------------------------- stage rules: config-and-framing

const STAGE_RULES: HintRule[] = [framesRule, parsedRule, configRule, initializeRule, toolListRule, callsRule];

/** How many differing frames are examined: enough to find every kind of mistake, bounded for huge cases. */
const FRAMES_EXAMINED = 50;

function framesRule(comparison: Comparison): Hint[] {
  const both = values(comparison);
  const expectedFrames = field(both?.expected, 'frames');
  const actualFrames = field(both?.actual, 'frames');
  if (!Array.isArray(expectedFrames) || !Array.isArray(actualFrames)) return [];
  const found = new Map<string, { hint: Hint; count: number }>();
  let examined = 0;
  for (let index = 0; index < Math.min(expectedFrames.length, actualFrames.length) && examined < FRAMES_EXAMINED; index++) {
    const expected = expectedFrames[index];
    const actual = actualFrames[index];
    if (typeof expected !== 'string' || expected === actual) continue;
    examined++;
    for (const hint of frameMistakes(expected, actual, `frames[${index}]`)) {
      const known = found.get(hint.kind);
      if (known) known.count++;
      else found.set(hint.kind, { hint, count: 1 });
    }
  }
  return [...found.values()].map(({ hint, count }) => {
    if (count === 1) return hint;
    // "frames[0] (and 2 more) is pretty-printed": the count sits with the place it counts.
    const [first = '', ...rest] = hint.lines;
    return { ...hint, lines: [first.replace(/^frames\[\d+\]/, (at) => `${at} (and ${count - 1} more)`), ...rest] };
  });
}

/** Everything wrong with one frame, compared with the reference `JSON.stringify(msg) + '\n'`. */
function frameMistakes(expected: string, actual: unknown, at: string): Hint[] {
  if (typeof actual !== 'string') {
    return [{ kind: 'frame-not-string', lines: [`${at}: frame() returned ${describe(actual)}, not a string`, "return JSON.stringify(msg) + '\\n'"] }];
  }
  const hints: Hint[] = [];
  const ending = /(\r?\n)*$/.exec(actual)![0];
  if (ending.includes('\r')) {
    hints.push({ kind: 'frame-crlf', lines: [`${at} ends with \\r\\n: a frame ends with \\n alone, never \\r\\n`] });
  } else if (ending === '') {
    hints.push({ kind: 'frame-no-newline', lines: [`${at} has no final newline: frame() must append exactly one '\\n'`] });
  } else if (ending.length > 1) {
    hints.push({ kind: 'frame-two-newlines', lines: [`${at} ends with ${ending.length} newlines: frame() must append exactly one '\\n'`] });
  }
  const expectedBody = expected.replace(/\n$/, '');
  const actualBody = actual.slice(0, actual.length - ending.length);
  if (actualBody === expectedBody) return hints;

  const parsedActual = parseJson(actualBody);
  if (!parsedActual.ok) {
    hints.push({ kind: 'frame-not-json', lines: [`${at} is not valid JSON (${parsedActual.error})`, "build it with JSON.stringify(msg) + '\\n'"] });
    return hints;
  }
  const expectedParsed = parseJson(expectedBody);
  if (!expectedParsed.ok) return hints;
  const expectedMessage = expectedParsed.value;
  const compact = removeWhitespaceBetweenTokens(actualBody);
  if (compact !== actualBody) {
    hints.push(
      actualBody.includes('\n')
        ? { kind: 'frame-pretty', lines: [`${at} is pretty-printed: never use JSON.stringify's indent argument`, "a frame is one compact line: JSON.stringify(msg) + '\\n'"] }
        : { kind: 'frame-spaces', lines: [`${at} has spaces between tokens: a frame is compact JSON, JSON.stringify(msg) with no other arguments`] },
    );
  }
  let normalised = compact;
  const unescapedUnicode = unescapeNonAscii(normalised);
  if (unescapedUnicode !== normalised && /[^\x00-\x7f]/.test(expectedBody)) {
    const example = /\\u[0-9a-fA-F]{4}/.exec(normalised)![0];
    hints.push({
      kind: 'frame-unicode-escaped',
      lines: [`${at} writes non-ASCII characters as \\uXXXX (${example}); JSON.stringify writes them as they are`, 'do not escape them: the bytes must match'],
    });
    normalised = unescapedUnicode;
  }
  const unescapedSlash = normalised.replace(/(?<!\\)((?:\\\\)*)\\\//g, '$1/');
  if (unescapedSlash !== normalised) {
    hints.push({ kind: 'frame-slash-escaped', lines: [`${at} escapes '/' as '\\/'; JSON.stringify does not, and the bytes must match`] });
    normalised = unescapedSlash;
  }
  if (normalised === expectedBody) return hints;

  const normalisedMessage = JSON.parse(normalised) as unknown;
  const difference = firstJsonDifference(expectedMessage, normalisedMessage);
  if (difference?.kind === 'order') {
    const sorted = keysAreSorted(valueAt(normalisedMessage, difference.path));
    hints.push({
      kind: 'frame-key-order',
      lines: [
        `${at}: the message's keys are in another order${sorted ? ' (yours are sorted)' : ''} at ${describePath(difference.path)}`,
        "frame() must keep the message's key order: JSON.stringify(msg), without sorting or rebuilding it",
      ],
    });
  } else if (difference !== undefined && isDeepStrictEqual(stripStringWhitespace(expectedMessage), stripStringWhitespace(normalisedMessage))) {
    const whitespace = (value: unknown) => JSON.stringify(value).replace(/\S/g, '').length;
    const what = whitespace(normalisedMessage) < whitespace(expectedMessage) ? 'removed' : 'changed';
    hints.push({
      kind: 'frame-string-whitespace',
      lines: [
        `${at}: whitespace inside strings was ${what} (at ${describePath(difference.path)})`,
        "JSON.stringify(msg) is already compact: leave the strings alone (no .replace(/\\s/g, ''))",
      ],
    });
  } else if (difference !== undefined && hints.length === 0) {
    hints.push({
      kind: 'frame-other',
      lines: [`${at} is not JSON.stringify(msg) + '\\n': the message differs at ${describePath(difference.path)} (${difference.note})`],
    });
  }
  return hints;
}

/** Parsed values where the frame was right: parseFrame's own mistakes. */
function parsedRule(comparison: Comparison): Hint[] {
  const both = values(comparison);
  const expectedFrames = field(both?.expected, 'frames');
  const actualFrames = field(both?.actual, 'frames');
  const expectedParsed = field(both?.expected, 'parsed');
  const actualParsed = field(both?.actual, 'parsed');
  if (![expectedFrames, actualFrames, expectedParsed, actualParsed].every(Array.isArray)) return [];
  const [framesE, framesA, parsedE, parsedA] = [expectedFrames, actualFrames, expectedParsed, actualParsed] as unknown[][];
  for (let index = 0; index < Math.min(parsedE!.length, parsedA!.length); index++) {
    if (framesE![index] !== framesA![index]) continue;
    const difference = firstJsonDifference(parsedE![index], parsedA![index], `parsed[${index}]`);
    if (difference === undefined) continue;
    const got = parsedA![index];
    const fix = 'parseFrame(line) is JSON.parse(line.trim())';
    if (typeof got === 'string') {
      return [{ kind: 'parse-frame', lines: [`parsed[${index}] is a string: parseFrame must JSON.parse the line, not return it`, fix] }];
    }
    if (got === null && parsedE![index] !== null) {
      return [{ kind: 'parse-frame', lines: [`parsed[${index}] is null: parseFrame returned nothing (undefined prints as null)`, fix] }];
    }
    return [
      {
        kind: 'parse-frame',
        lines: [`frames[${index}] is right but parsed[${index}] differs at ${describePath(difference.path)} (${difference.note}): parseFrame's fault`, fix],
      },
    ];
  }
  return [];
}

function configRule(comparison: Comparison): Hint[] {
  const both = values(comparison);
  if (both === undefined) return [];
  const expectedServers = field(both.expected, 'servers');
  const actualServers = field(both.actual, 'servers');
  if (field(both.expected, 'rejected') === true && Array.isArray(actualServers)) {
    return [{ kind: 'config-accepted', lines: [`an invalid config was accepted: parseConfig must throw on ${whyInvalid(actualServers)}`] }];
  }
  if (Array.isArray(expectedServers) && field(both.actual, 'rejected') === true) {
    return [
      {
        kind: 'config-rejected',
        lines: ['parseConfig threw on a valid config; its message is in the [your_program] lines below', 'a valid entry may leave out type, args, env and headers'],
      },
    ];
  }
  if (!Array.isArray(expectedServers) || !Array.isArray(actualServers)) return [];
  return serverMistakes(expectedServers as unknown[], actualServers as unknown[]);
}

const DEFAULTED_FIELDS = ['args', 'env', 'headers'];
const FIELDS_OF_TYPE: Record<string, string[]> = { stdio: ['command', 'args', 'env'], http: ['url', 'headers'] };

function serverMistakes(expected: unknown[], actual: unknown[]): Hint[] {
  const hints: Hint[] = [];
  const nameOf = (server: unknown) => String(field(server, 'name'));
  const expectedNames = expected.map(nameOf);
  const actualNames = actual.map(nameOf);
  if (!isDeepStrictEqual(expectedNames, actualNames)) {
    if (isDeepStrictEqual([...expectedNames].sort(), [...actualNames].sort())) {
      const sorted = isDeepStrictEqual(actualNames, [...actualNames].sort());
      hints.push({
        kind: 'config-order',
        lines: [`the servers are in another order${sorted ? ' (yours are sorted by name)' : ''}: keep the file's order`, 'Object.entries(mcpServers) gives them in file order'],
      });
    } else {
      const missing = expectedNames.filter((name) => !actualNames.includes(name));
      if (missing.length > 0) {
        hints.push({ kind: 'config-missing', lines: [`parseConfig left out ${missing.map((name) => JSON.stringify(name)).join(', ')}: return every server in mcpServers`] });
      }
    }
  }
  const missingDefaults: string[] = [];
  expected.forEach((expectedServer, index) => {
    const actualIndex = actualNames.indexOf(expectedNames[index]!);
    if (actualIndex < 0) return;
    const actualServer = actual[actualIndex];
    const at = `servers[${actualIndex}]`;
    const expectedType = field(expectedServer, 'type');
    const actualType = field(actualServer, 'type');
    if (expectedType !== undefined && actualType !== expectedType) {
      const what = actualType === undefined ? 'has no type' : `has type ${JSON.stringify(actualType)}`;
      hints.push({
        kind: 'config-type',
        lines: [`${at} ${what}, expected ${JSON.stringify(expectedType)}: infer the type when it is left out`, '"command" means stdio, "url" means http'],
      });
    }
    const withoutDefault = DEFAULTED_FIELDS.filter((key) => {
      const actualValue = field(actualServer, key);
      return isEmptyContainer(field(expectedServer, key)) && (actualValue === undefined || actualValue === null);
    });
    if (withoutDefault.length > 0) missingDefaults.push(`${at} has no ${withoutDefault.join(' or ')}`);
    const foreign = Object.keys(asRecord(actualServer)).filter((key) => fieldsOnlyOtherTypesHave(String(expectedType)).includes(key));
    if (foreign.length > 0) {
      hints.push({
        kind: 'config-foreign-fields',
        lines: [`${at} is ${expectedType} but has ${foreign.join(', ')}: a stdio server has command, args, env; an http one url, headers`],
      });
    }
  });
  if (missingDefaults.length > 0) {
    const more = missingDefaults.length > 2 ? `; and ${missingDefaults.length - 2} more` : '';
    hints.push({
      kind: 'config-defaults',
      lines: [`defaults are missing: ${missingDefaults.slice(0, 2).join('; ')}${more}`, 'args defaults to [], env and headers to {}'],
    });
  }
  return hints;
}

/** The fields a server of `type` must not carry: those of the other type (none for an unknown type). */
function fieldsOnlyOtherTypesHave(type: string): string[] {
  const own = FIELDS_OF_TYPE[type];
  if (own === undefined) return [];
  return Object.values(FIELDS_OF_TYPE).flat().filter((name) => !own.includes(name));
}

/** Reads the contract off the servers a config that should have been refused produced. */
function whyInvalid(servers: unknown[]): string {
  const names = servers.map((server) => String(field(server, 'name')));
  if (names.length > 0 && names.every((name, index) => name === String(index))) {
    return 'an "mcpServers" that is a list (it must be an object)';
  }
  if (servers.length === 0) return 'invalid JSON or a missing "mcpServers" object (yours returned no servers)';
  for (const [index, server] of servers.entries()) {
    const reason = whyServerInvalid(asRecord(server));
    if (reason !== undefined) return `${reason} (servers[${index}], ${JSON.stringify(names[index])})`;
  }
  return 'invalid JSON, a missing "mcpServers" object, or an entry that is neither a valid stdio nor a valid http server';
}

function whyServerInvalid(server: Record<string, unknown>): string | undefined {
  const { type, command, url, args, env, headers } = server;
  if (type === undefined) {
    return command !== undefined && url !== undefined ? 'an entry with both "command" and "url" and no type' : 'an entry that is not an object with a "command" or a "url"';
  }
  if (type === 'stdio') {
    if (typeof command !== 'string' || command === '') return 'a stdio entry without a "command" string';
    if (args !== undefined && !(Array.isArray(args) && args.every((item) => typeof item === 'string'))) return '"args" that is not a list of strings';
    if (env !== undefined && !isStringRecord(env)) return '"env" values that are not strings';
    return undefined;
  }
  if (type === 'http') {
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) return 'an http entry without an http(s) "url" string';
    if (headers !== undefined && !isStringRecord(headers)) return '"headers" values that are not strings';
    return undefined;
  }
  return `a type other than "stdio" or "http" (here ${JSON.stringify(type)})`;
}

// ------------------------------------------------------------------------------------ helpers

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function isStringRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string');
}

function isEmptyContainer(value: unknown): boolean {
  return (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

function describePath(path: string): string {
  return path === '' ? 'the top level' : path;
}

/** The value at a path made by firstJsonDifference (keys and [index] / ["key"] steps). */
function valueAt(root: unknown, path: string): unknown {
  let value = root;
  for (const step of path.matchAll(/\.?([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)) {
    const key = step[1] ?? step[2] ?? (JSON.parse(step[3]!) as string);
    value = (value as Record<string, unknown> | undefined)?.[key];
  }
  return value;
}

function keysAreSorted(value: unknown): boolean {
  const keys = Object.keys(asRecord(value));
  return keys.length > 1 && keys.every((key, index) => index === 0 || keys[index - 1]! <= key);
}

/** Drops the whitespace outside string literals of a JSON text. */
function removeWhitespaceBetweenTokens(text: string): string {
  let result = '';
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index]!;
    if (inString) {
      result += character;
      if (character === '\\') result += text[++index] ?? '';
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
      result += character;
    } else if (!/\s/.test(character)) result += character;
  }
  return result;
}

/** Writes \uXXXX escapes of non-ASCII characters as the characters themselves (not escaped backslashes). */
function unescapeNonAscii(text: string): string {
  return text.replace(/(?<!\\)((?:\\\\)*)\\u([0-9a-fA-F]{4})/g, (whole, backslashes: string, hex: string) => {
    const code = parseInt(hex, 16);
    return code >= 0x7f ? backslashes + String.fromCharCode(code) : whole;
  });
}

function stripStringWhitespace(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(/\s/g, '');
  if (Array.isArray(value)) return value.map(stripStringWhitespace);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, stripStringWhitespace(item)]));
  }
  return value;
}

// ---------------------------------------------------------------- stages 2 and 3: the client

/** The version a client of these stages asks for: a result with another one is a counter-offer. */
const REQUESTED_VERSION = '2025-11-25';

/** How program.ts prints an outcome: a result, `{ error: { code } }` for an McpError, or `{ refused: true }`. */
function outcomeOf(value: unknown): 'result' | 'error' | 'refused' | 'missing' {
  if (value === undefined) return 'missing';
  const record = asRecord(value);
  if (record.refused === true && Object.keys(record).length === 1) return 'refused';
  if (Object.keys(record).length === 1 && typeof asRecord(record.error).code === 'number') return 'error';
  return 'result';
}

/** The same outcome read the wrong way round, in words a student can act on. */
function outcomeMistake(expected: unknown, actual: unknown, what: string): string[] | undefined {
  const [want, got] = [outcomeOf(expected), outcomeOf(actual)];
  if (want === got) return undefined;
  if (want === 'error') {
    return [`the server answered ${what} with a JSON-RPC error (code ${field(field(expected, 'error'), 'code')})`, 'an error response must reject the request with McpError (its code, message and data)'];
  }
  if (want === 'result' && got === 'refused') {
    if (field(expected, 'isError') === true) return [`${what} is a result with isError: true: a tool that failed is still a result`, 'callTool must return it, not throw'];
    return [`${what} threw where the server gave a result; its message is in the [your_program] lines below`];
  }
  if (want === 'result' && got === 'error') return [`${what} rejected with McpError where the server gave a result`];
  if (want === 'refused') return [`${what} should have been refused, and yours went on`];
  return undefined;
}

function initializeRule(comparison: Comparison): Hint[] {
  const both = values(comparison);
  if (!both || !('initialize' in asRecord(both.expected))) return [];
  const expected = field(both.expected, 'initialize');
  const actual = field(both.actual, 'initialize');
  if (outcomeOf(expected) === 'refused' && outcomeOf(actual) === 'result') {
    const offered = field(actual, 'protocolVersion');
    return [{ kind: 'version-accepted', lines: [`the server offered protocol version ${JSON.stringify(offered)}, which your client does not support`, 'initialize must refuse it (throw, and send no notifications/initialized)'] }];
  }
  if (outcomeOf(expected) === 'result' && outcomeOf(actual) === 'refused') {
    const version = field(expected, 'protocolVersion');
    if (version !== REQUESTED_VERSION) {
      return [{ kind: 'version-refused', lines: [`initialize refused the protocol version the server offered in return, ${JSON.stringify(version)}`, 'a version your client supports is fine: go on with it'] }];
    }
    return [{ kind: 'initialize-threw', lines: ['initialize threw, though the server answered with a result; its message is in the [your_program] lines below', 'the response is the message with your request\'s id: notifications (no id) and other lines may come first'] }];
  }
  const lines = outcomeMistake(expected, actual, 'initialize');
  return lines ? [{ kind: 'initialize-outcome', lines }] : [];
}

function toolListRule(comparison: Comparison): Hint[] {
  const both = values(comparison);
  const expected = field(both?.expected, 'tools');
  const actual = field(both?.actual, 'tools');
  if (!Array.isArray(expected) || !Array.isArray(actual) || actual.length >= expected.length) return [];
  if (!actual.every((tool, index) => isDeepStrictEqual(tool, expected[index]))) return [];
  return [{ kind: 'pagination', lines: [`your client listed ${actual.length} of the ${expected.length} tools: the rest are on further pages`, 'follow nextCursor (tools/list with { cursor }) until the server gives none'] }];
}

function callsRule(comparison: Comparison): Hint[] {
  const both = values(comparison);
  const expected = field(both?.expected, 'calls');
  const actual = field(both?.actual, 'calls');
  if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return [];
  const hints: Hint[] = [];
  for (let index = 0; index < expected.length; index++) {
    if (isDeepStrictEqual(expected[index], actual[index])) continue;
    const elsewhere = expected.findIndex((candidate, other) => other !== index && isDeepStrictEqual(candidate, actual[index]));
    if (elsewhere >= 0) {
      hints.push({ kind: 'responses-swapped', lines: [`calls[${index}] got the answer to calls[${elsewhere}]: responses can come back in any order`, 'match each response to its request by id'] });
      continue;
    }
    const lines = outcomeMistake(expected[index], actual[index], `calls[${index}]`);
    if (lines) {
      hints.push({ kind: `call-${outcomeOf(expected[index])}`, lines });
      continue;
    }
    const wanted = contentTypes(expected[index]);
    const missing = [...wanted].filter((type) => !contentTypes(actual[index]).has(type));
    if (missing.length > 0) hints.push({ kind: 'content-dropped', lines: [`calls[${index}] lost its ${missing.join(', ')} content`, 'keep every content item of a result, whatever its type'] });
  }
  return hints;
}

function contentTypes(result: unknown): Set<string> {
  const content = field(result, 'content');
  return new Set(Array.isArray(content) ? content.map((item) => String(field(item, 'type'))) : []);
}
