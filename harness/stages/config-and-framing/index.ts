// Stage 1, `config-and-framing`: frame, parseFrame and parseConfig, each a pure function. Its
// hints read the `frames`, `parsed` and `servers` (or `rejected`) program.ts prints; its generators
// write messages.json and .mcp.json; its property suite is `framing` (props.ts).
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import {
  describePath,
  describeValue,
  finalLineBreaks,
  firstJsonDifference,
  keysAreSorted,
  parseJson,
  valueAt,
  type Comparison,
} from '../../grade/comparison.ts';
import type { Hint } from '../../run/verdict.ts';
import { builtWhenUsed, jsonRpcMessage } from '../../props/arbitraries.ts';
import type { StageContent } from '../stage-content.ts';
import type { JsonObject } from '../contract.ts';
import { readBoth } from '../reading.ts';
import { framingPart } from './output.ts';
import { framingSuite } from './props.ts';
import { draw, text, word } from '../generated.ts';

// ------------------------------------------------------------------------------------ hints

/** How many differing frames are examined: enough to find every kind of mistake, bounded for huge cases. */
const FRAMES_EXAMINED = 50;

function framesRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, framingPart);
  const expectedFrames = both?.expected.frames;
  const actualFrames = both?.actual.frames;
  if (expectedFrames === undefined || actualFrames === undefined) return [];
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
    return [
      {
        kind: 'frame-not-string',
        lines: [`${at}: frame() returned ${describeValue(actual)}, not a string`, "return JSON.stringify(msg) + '\\n'"],
        general: ['frame() returned something other than a string', "return JSON.stringify(msg) + '\\n'"],
      },
    ];
  }
  const hints: Hint[] = [];
  const ending = finalLineBreaks(actual);
  if (ending.includes('\r')) {
    hints.push({
      kind: 'frame-crlf',
      lines: [`${at} ends with \\r\\n: a frame ends with \\n alone, never \\r\\n`],
      general: ['a frame of yours ends with \\r\\n: a frame ends with \\n alone, never \\r\\n'],
    });
  } else if (ending === '') {
    hints.push({
      kind: 'frame-no-newline',
      lines: [`${at} has no final newline: frame() must append exactly one '\\n'`],
      general: ["a frame of yours has no final newline: frame() must append exactly one '\\n'"],
    });
  } else if (ending.length > 1) {
    hints.push({
      kind: 'frame-two-newlines',
      lines: [`${at} ends with ${ending.length} newlines: frame() must append exactly one '\\n'`],
      general: ["a frame of yours ends with more than one newline: frame() must append exactly one '\\n'"],
    });
  }
  const expectedBody = expected.replace(/\n$/, '');
  const actualBody = actual.slice(0, actual.length - ending.length);
  if (actualBody === expectedBody) return hints;

  const parsedActual = parseJson(actualBody);
  if (!parsedActual.ok && parsedActual.tooDeep) {
    hints.push({
      kind: 'frame-too-deep',
      lines: [`${at} is JSON ${parsedActual.error}`, "build it with JSON.stringify(msg) + '\\n'"],
      general: ['a frame of yours is JSON nested deeper than the grader reads', "build it with JSON.stringify(msg) + '\\n'"],
    });
    return hints;
  }
  if (!parsedActual.ok) {
    hints.push({
      kind: 'frame-not-json',
      lines: [`${at} is not valid JSON (${parsedActual.error})`, "build it with JSON.stringify(msg) + '\\n'"],
      general: ['a frame of yours is not valid JSON', "build it with JSON.stringify(msg) + '\\n'"],
    });
    return hints;
  }
  const expectedParsed = parseJson(expectedBody);
  if (!expectedParsed.ok) return hints;
  const expectedMessage = expectedParsed.value;
  const compact = removeWhitespaceBetweenTokens(actualBody);
  if (compact !== actualBody) {
    hints.push(
      actualBody.includes('\n')
        ? {
            kind: 'frame-pretty',
            lines: [`${at} is pretty-printed: never use JSON.stringify's indent argument`, "a frame is one compact line: JSON.stringify(msg) + '\\n'"],
            general: [
              "a frame of yours is pretty-printed: never use JSON.stringify's indent argument",
              "a frame is one compact line: JSON.stringify(msg) + '\\n'",
            ],
          }
        : {
            kind: 'frame-spaces',
            lines: [`${at} has spaces between tokens: a frame is compact JSON, JSON.stringify(msg) with no other arguments`],
            general: ['a frame of yours has spaces between tokens: a frame is compact JSON, JSON.stringify(msg) with no other arguments'],
          },
    );
  }
  let normalised = compact;
  const unescapedUnicode = unescapeNonAscii(normalised);
  if (unescapedUnicode !== normalised && /[^\x00-\x7f]/.test(expectedBody)) {
    const example = /\\u[0-9a-fA-F]{4}/.exec(normalised)![0];
    hints.push({
      kind: 'frame-unicode-escaped',
      lines: [`${at} writes non-ASCII characters as \\uXXXX (${example}); JSON.stringify writes them as they are`, 'do not escape them: the bytes must match'],
      general: ['a frame of yours writes non-ASCII characters as \\uXXXX; JSON.stringify writes them as they are', 'do not escape them: the bytes must match'],
    });
    normalised = unescapedUnicode;
  }
  const unescapedSlash = normalised.replace(/(?<!\\)((?:\\\\)*)\\\//g, '$1/');
  if (unescapedSlash !== normalised) {
    hints.push({
      kind: 'frame-slash-escaped',
      lines: [`${at} escapes '/' as '\\/'; JSON.stringify does not, and the bytes must match`],
      general: ["a frame of yours escapes '/' as '\\/'; JSON.stringify does not, and the bytes must match"],
    });
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
      general: [
        "a frame of yours has the message's keys in another order",
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
      general: [
        "a frame of yours changed the whitespace inside the message's strings",
        "JSON.stringify(msg) is already compact: leave the strings alone (no .replace(/\\s/g, ''))",
      ],
    });
  } else if (difference !== undefined && hints.length === 0) {
    hints.push({
      kind: 'frame-other',
      lines: [`${at} is not JSON.stringify(msg) + '\\n': the message differs at ${describePath(difference.path)} (${difference.note})`],
      general: ["a frame of yours is not JSON.stringify(msg) + '\\n': the message differs"],
    });
  }
  return hints;
}

/** Parsed values where the frame was right: parseFrame's own mistakes. */
function parsedRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, framingPart);
  const framesE = both?.expected.frames;
  const framesA = both?.actual.frames;
  const parsedE = both?.expected.parsed;
  const parsedA = both?.actual.parsed;
  if (framesE === undefined || framesA === undefined || parsedE === undefined || parsedA === undefined) return [];
  for (let index = 0; index < Math.min(parsedE.length, parsedA.length); index++) {
    if (framesE[index] !== framesA[index]) continue;
    const difference = firstJsonDifference(parsedE[index], parsedA[index], `parsed[${index}]`);
    if (difference === undefined) continue;
    const got = parsedA[index];
    const fix = 'parseFrame(line) is JSON.parse(line.trim())';
    if (typeof got === 'string') {
      return [
        {
          kind: 'parse-frame',
          lines: [`parsed[${index}] is a string: parseFrame must JSON.parse the line, not return it`, fix],
          general: ['a parsed value is a string: parseFrame must JSON.parse the line, not return it', fix],
        },
      ];
    }
    if (got === null && parsedE[index] !== null) {
      return [
        {
          kind: 'parse-frame',
          lines: [`parsed[${index}] is null: parseFrame returned nothing (undefined prints as null)`, fix],
          general: ['a parsed value is null: parseFrame returned nothing (undefined prints as null)', fix],
        },
      ];
    }
    return [
      {
        kind: 'parse-frame',
        lines: [`frames[${index}] is right but parsed[${index}] differs at ${describePath(difference.path)} (${difference.note}): parseFrame's fault`, fix],
        general: ["a frame is right but its parsed value differs: parseFrame's fault", fix],
      },
    ];
  }
  return [];
}

function configRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, framingPart);
  if (both === undefined) return [];
  const expectedServers = both.expected.servers;
  const actualServers = both.actual.servers;
  if (both.expected.rejected === true && actualServers !== undefined) {
    const { rule, where } = whyInvalid(actualServers);
    // Each rule of the contract is a mistake of its own: a missed env check is not a missed headers check.
    return [
      {
        kind: `config-accepted: ${rule}`,
        lines: [`an invalid config was accepted: parseConfig must throw on ${rule}${where}`],
        general: [`an invalid config was accepted: parseConfig must throw on ${rule}`],
      },
    ];
  }
  if (expectedServers !== undefined && both.actual.rejected === true) {
    return [
      {
        kind: 'config-rejected',
        lines: [
          'parseConfig threw on a valid config; its message is in the [your_program] lines below',
          'a valid entry may leave out type, args, env and headers',
        ],
        general: ['parseConfig threw on a valid config', 'a valid entry may leave out type, args, env and headers'],
      },
    ];
  }
  if (expectedServers === undefined || actualServers === undefined) return [];
  return serverMistakes(expectedServers, actualServers);
}

const DEFAULTED_FIELDS = ['args', 'env', 'headers'];
const FIELDS_OF_TYPE: Record<string, string[]> = { stdio: ['command', 'args', 'env'], http: ['url', 'headers'] };

function serverMistakes(expected: JsonObject[], actual: JsonObject[]): Hint[] {
  const hints: Hint[] = [];
  const nameOf = (server: JsonObject) => String(server.name);
  const expectedNames = expected.map(nameOf);
  const actualNames = actual.map(nameOf);
  if (!isDeepStrictEqual(expectedNames, actualNames)) {
    if (isDeepStrictEqual([...expectedNames].sort(), [...actualNames].sort())) {
      const sorted = isDeepStrictEqual(actualNames, [...actualNames].sort());
      // what a JavaScript object does to keys like "2": ahead of the rest, in numeric order
      const integerLike = (name: string) => /^(0|[1-9]\d*)$/.test(name);
      const integersFirst =
        !sorted &&
        isDeepStrictEqual(actualNames, [
          ...expectedNames.filter(integerLike).sort((a, b) => Number(a) - Number(b)),
          ...expectedNames.filter((name) => !integerLike(name)),
        ]);
      hints.push({
        kind: 'config-order',
        lines: [
          `the servers are in another order${sorted ? ' (yours are sorted by name)' : integersFirst ? ' (yours put the names that look like integers first: a JavaScript object does, whatever the order of the file)' : ''}: keep the file's order`,
          integersFirst
            ? 'the object JSON.parse makes cannot hold that order: take the names in the order the text has them (a key with a mark in front is never integer-like)'
            : 'Object.entries(mcpServers) gives them in file order (all but names like "2", which an object puts first)',
        ],
      });
    } else {
      const missing = expectedNames.filter((name) => !actualNames.includes(name));
      if (missing.length > 0) {
        hints.push({
          kind: 'config-missing',
          lines: [`parseConfig left out ${missing.map((name) => JSON.stringify(name)).join(', ')}: return every server in mcpServers`],
          general: ['parseConfig left out a server: return every server in mcpServers'],
        });
      }
    }
  }
  const missingDefaults: string[] = [];
  expected.forEach((expectedServer, index) => {
    const actualIndex = actualNames.indexOf(expectedNames[index]!);
    if (actualIndex < 0) return;
    const actualServer = actual[actualIndex]!;
    const at = `servers[${actualIndex}]`;
    const expectedType = expectedServer.type;
    const actualType = actualServer.type;
    if (expectedType !== undefined && actualType !== expectedType) {
      const what = actualType === undefined ? 'has no type' : `has type ${JSON.stringify(actualType)}`;
      hints.push({
        kind: 'config-type',
        lines: [`${at} ${what}, expected ${JSON.stringify(expectedType)}: infer the type when it is left out`, '"command" means stdio, "url" means http'],
        general: ['a server has another type, or none: infer the type when it is left out', '"command" means stdio, "url" means http'],
      });
    }
    const withoutDefault = DEFAULTED_FIELDS.filter((key) => {
      const actualValue = actualServer[key];
      return isEmptyContainer(expectedServer[key]) && (actualValue === undefined || actualValue === null);
    });
    if (withoutDefault.length > 0) missingDefaults.push(`${at} has no ${withoutDefault.join(' or ')}`);
    const foreign = Object.keys(actualServer).filter((key) => fieldsOnlyOtherTypesHave(String(expectedType)).includes(key));
    if (foreign.length > 0) {
      hints.push({
        kind: 'config-foreign-fields',
        lines: [`${at} is ${expectedType} but has ${foreign.join(', ')}: a stdio server has command, args, env; an http one url, headers`],
        general: ['a server has fields of the other type: a stdio server has command, args, env; an http one url, headers'],
      });
    }
  });
  if (missingDefaults.length > 0) {
    const more = missingDefaults.length > 2 ? `; and ${missingDefaults.length - 2} more` : '';
    hints.push({
      kind: 'config-defaults',
      lines: [`defaults are missing: ${missingDefaults.slice(0, 2).join('; ')}${more}`, 'args defaults to [], env and headers to {}'],
      general: ['defaults are missing: a server has no args, env or headers', 'args defaults to [], env and headers to {}'],
    });
  }
  return hints;
}

/** The fields a server of `type` must not carry: those of the other type (none for an unknown type). */
function fieldsOnlyOtherTypesHave(type: string): string[] {
  const own = FIELDS_OF_TYPE[type];
  if (own === undefined) return [];
  return Object.values(FIELDS_OF_TYPE)
    .flat()
    .filter((name) => !own.includes(name));
}

/** Reads the contract's broken rule off the servers a config that should have been refused produced, and where it shows. */
function whyInvalid(servers: JsonObject[]): { rule: string; where: string } {
  const names = servers.map((server) => String(server.name));
  if (names.length > 0 && names.every((name, index) => name === String(index))) {
    return { rule: 'an "mcpServers" that is a list (it must be an object)', where: '' };
  }
  if (servers.length === 0) return { rule: 'invalid JSON or a missing "mcpServers" object (yours returned no servers)', where: '' };
  for (const [index, server] of servers.entries()) {
    const rule = whyServerInvalid(server);
    // the rule names the mistake (and the hint's kind): the value that broke it is said beside it
    const here = rule === OTHER_TYPE ? `, here ${JSON.stringify(server.type)}` : '';
    if (rule !== undefined) return { rule, where: ` (servers[${index}], ${JSON.stringify(names[index])}${here})` };
  }
  return { rule: 'invalid JSON, a missing "mcpServers" object, or an entry that is neither a valid stdio nor a valid http server', where: '' };
}

function whyServerInvalid(server: Record<string, unknown>): string | undefined {
  const { type, command, url, args, env, headers } = server;
  if (type === undefined) {
    return command !== undefined && url !== undefined
      ? 'an entry with both "command" and "url" and no type'
      : 'an entry that is not an object with a "command" or a "url"';
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
  return OTHER_TYPE;
}

const OTHER_TYPE = 'a type other than "stdio" or "http"';

function isStringRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.values(value).every((item) => typeof item === 'string');
}

function isEmptyContainer(value: unknown): boolean {
  return (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
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

// ----------------------------------------------------------------------------- random cases

const stringMap = fc.dictionary(
  builtWhenUsed(() => fc.stringMatching(/^[A-Z][A-Z0-9_]{0,9}$/)),
  text,
  { maxKeys: 3, noNullPrototype: true },
);

/** One `.mcp.json` entry: stdio or http, `type` written or left to be inferred, defaults sometimes left out. */
const serverEntry = fc.oneof(
  fc.record(
    {
      type: fc.constant('stdio'),
      command: fc.oneof(word, fc.constantFrom('npx', 'node', 'uvx', '/usr/bin/env')),
      args: fc.array(text, { maxLength: 3 }),
      env: stringMap,
    },
    { requiredKeys: ['command'], noNullPrototype: true },
  ),
  fc.record(
    { type: fc.constant('http'), url: word.map((host) => `https://${host}.example/mcp`), headers: stringMap },
    { requiredKeys: ['url'], noNullPrototype: true },
  ),
);

/** Entries parseConfig must refuse. */
const invalidEntry = fc.oneof(
  fc.record({ command: fc.integer() }, { noNullPrototype: true }),
  fc.record({ url: fc.constant(42) }, { noNullPrototype: true }),
  fc.record({ type: fc.constant('sse'), url: fc.constant('https://x.example/mcp') }, { noNullPrototype: true }),
  fc.constant('not an object'),
  fc.record({ command: word, args: fc.constant([1, 2]) }, { noNullPrototype: true }),
);

const mcpConfig = fc
  .tuple(
    fc.uniqueArray(fc.tuple(word, serverEntry), { minLength: 1, maxLength: 5, selector: ([name]) => name }),
    fc.option(fc.tuple(word, invalidEntry), { freq: 4 }),
  )
  .map(([entries, invalid]) => {
    const servers: [string, unknown][] = [...entries];
    if (invalid && !servers.some(([name]) => name === invalid[0])) servers.splice(servers.length >> 1, 0, invalid);
    return { mcpServers: Object.fromEntries(servers) };
  });

export const configAndFraming: StageContent = {
  slug: 'config-and-framing',
  hints: [framesRule, parsedRule, configRule],
  generators: {
    'mcp-frame': (seed, index) => ({
      inputs: { 'messages.json': `${JSON.stringify(draw(fc.array(jsonRpcMessage, { minLength: 2, maxLength: 6 }), seed, index), null, 2)}\n` },
    }),
    'mcp-config': (seed, index) => ({
      inputs: { '.mcp.json': `${JSON.stringify(draw(mcpConfig, seed, index), null, 2)}\n` },
    }),
  },
  properties: framingSuite,
};
