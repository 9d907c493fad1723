// Generators of JSON-RPC messages for the property suites, built from small named pieces so
// that a later suite can reuse any of them. Everything generated is a value that survives a
// trip through JSON unchanged, so a failed round trip is always the student's doing:
// - no -0 (JSON writes it as 0), no NaN or ±Infinity (JSON writes null), no undefined
//   (JSON drops the key), no functions, symbols or class instances;
// - no lone surrogates: a message on the wire is UTF-8, which cannot carry one, so no real
//   peer sends one; JSON.stringify would escape it and JSON.parse restore it, which would
//   test the engine rather than the student;
// - objects are plain (Object.prototype), as JSON.parse makes them, and are built with
//   Object.fromEntries so that a "__proto__" key is an own property, as JSON.parse makes it;
//   fc.record is told `noNullPrototype`, since by default it also makes null-prototype ones.
import fc from 'fast-check';
import type { Json, JsonObject } from '../cassette/index.ts';
import { JSON_RPC_ERROR } from '../protocol.ts';

/** `build()`'s arbitrary, built when it first generates or shrinks a value, and then the same: fast-check
 *  builds the tables of a string arbitrary when it is made (a grapheme string, 26 ms the first time; a
 *  stringMatching, 10 ms each), which a command that generates nothing, or another stage's values,
 *  should not pay at its start. Each call is handed on as it is: the values drawn for a seed are the same. */
export function builtWhenUsed<T>(build: () => fc.Arbitrary<T>): fc.Arbitrary<T> {
  let built: fc.Arbitrary<T> | undefined;
  const arbitrary = () => (built ??= build());
  return new (class extends fc.Arbitrary<T> {
    generate(random: fc.Random, biasFactor: number | undefined): fc.Value<T> {
      return arbitrary().generate(random, biasFactor);
    }
    canShrinkWithoutContext(value: unknown): value is T {
      return arbitrary().canShrinkWithoutContext(value);
    }
    shrink(value: T, context: unknown): fc.Stream<fc.Value<T>> {
      return arbitrary().shrink(value, context);
    }
  })();
}

/** Pieces of text that break naive framing, escaping or splitting when they land in a string. */
export const TRICKY_TEXT: readonly string[] = [
  '\n', // the frame separator itself, inside a string
  '\r',
  '\r\n',
  '\u2028', // LINE SEPARATOR: raw in JSON.stringify output, a line break to some splitters
  '\u2029', // PARAGRAPH SEPARATOR
  '\u0085', // NEXT LINE
  '"',
  '\\',
  '\\n', // a backslash then an n: must not turn into a newline
  '/', // JSON.stringify does not escape it; a frame that writes "\/" differs
  '</script>',
  '\t',
  '\u0000',
  '\u001b',
  '\u001f',
  '\u007f',
  '\ufeff', // BOM: trim() removes it, but only at the ends of the line, never inside a string
  '\u00a0',
  ' ',
  'é',
  'e\u0301', // the same letter, decomposed
  '日本語',
  'Ω',
  '😀', // astral: a surrogate pair in UTF-16
  '👩🏽‍💻', // a ZWJ sequence with a skin-tone modifier
  '🇫🇷',
  '𝄞',
  '\u{10ffff}',
  '"}\n{"', // looks like the end of one frame and the start of the next
  '{}',
  '',
];

/** A piece of text: a tricky piece, or a few arbitrary code points from all of Unicode. */
export const textPiece: fc.Arbitrary<string> = builtWhenUsed(() =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...TRICKY_TEXT) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 4 }) }, // any code point, never a lone surrogate
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 3 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 6 }) },
  ),
);

/** Unicode-heavy text: a few pieces glued together. */
export const trickyString: fc.Arbitrary<string> = fc.array(textPiece, { maxLength: 5 }).map((pieces) => pieces.join(''));

/** Object keys: the protocol's own names, keys JavaScript treats specially, and tricky text. */
export const objectKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('jsonrpc', 'id', 'method', 'params', 'result', 'error', 'data', '_meta', 'progressToken', 'cursor'),
  fc.constantFrom('__proto__', 'constructor', 'toString', '0', '10', '-1', '1.5', ''), // integer-like keys reorder in JS objects
  trickyString,
);

/** -0 is the one finite double that JSON does not give back. */
function withoutNegativeZero(value: number): number {
  return Object.is(value, -0) ? 0 : value;
}

/** Numbers JSON keeps exactly: small and huge, negative, fractional, exponents, the extremes. */
export const jsonNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.maxSafeInteger(),
  fc.constantFrom(
    Number.MAX_SAFE_INTEGER,
    Number.MIN_SAFE_INTEGER,
    2 ** 53, // beyond the safe range, still written and read back exactly
    -(2 ** 63),
    1e21, // JSON.stringify switches to exponent notation here: "1e+21"
    -1e-7,
    0.1,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(withoutNegativeZero),
);

export const jsonLeaf: fc.Arbitrary<Json> = fc.oneof(
  { weight: 4, arbitrary: trickyString },
  { weight: 3, arbitrary: jsonNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  // fresh empty containers each time, so that no two places share one object
  { weight: 1, arbitrary: fc.constantFrom('object', 'array').map((kind): Json => (kind === 'object' ? {} : [])) },
);

function objectOf(value: fc.Arbitrary<Json>): fc.Arbitrary<JsonObject> {
  return fc.array(fc.tuple(objectKey, value), { maxLength: 5 }).map((entries) => Object.fromEntries(entries));
}

/** Any JSON value, nested up to 6 levels deep; depth 3 and more is common, not rare. */
const tree = fc.letrec<{ value: Json; array: Json[]; object: JsonObject }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'medium', maxDepth: 6, withCrossShrink: true },
    { weight: 2, arbitrary: jsonLeaf },
    { weight: 1, arbitrary: tie('array') },
    { weight: 2, arbitrary: tie('object') },
  ),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: objectOf(tie('value')),
}));

export const jsonValue: fc.Arbitrary<Json> = tree.value;
export const jsonObject: fc.Arbitrary<JsonObject> = tree.object;

/** Ids: numbers (negative and huge ones included) or strings, as JSON-RPC allows. */
export const jsonRpcId: fc.Arbitrary<number | string> = fc.oneof(
  fc.nat({ max: 100 }),
  fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  trickyString,
);

export const methodName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    'initialize',
    'notifications/initialized',
    'tools/list',
    'tools/call',
    'server/discover',
    'notifications/progress',
    'notifications/cancelled',
  ),
  trickyString,
);

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: JsonObject;
}
export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: JsonObject;
}
export interface JsonRpcResult {
  jsonrpc: '2.0';
  id: number | string;
  result: JsonObject;
}
export interface JsonRpcError {
  jsonrpc: '2.0';
  /** null when the request's id could not be read (a parse error) */
  id: number | string | null;
  error: { code: number; message: string; data?: Json };
}
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResult | JsonRpcError;

export const request: fc.Arbitrary<JsonRpcRequest> = fc.record(
  { jsonrpc: fc.constant('2.0' as const), id: jsonRpcId, method: methodName, params: jsonObject },
  { requiredKeys: ['jsonrpc', 'id', 'method'], noNullPrototype: true },
);

export const notification: fc.Arbitrary<JsonRpcNotification> = fc.record(
  { jsonrpc: fc.constant('2.0' as const), method: methodName, params: jsonObject },
  { requiredKeys: ['jsonrpc', 'method'], noNullPrototype: true },
);

export const resultResponse: fc.Arbitrary<JsonRpcResult> = fc.record(
  {
    jsonrpc: fc.constant('2.0' as const),
    id: jsonRpcId,
    result: jsonObject,
  },
  { noNullPrototype: true },
);

/** JSON-RPC's own codes, some of the server-error range (-32000 to -32099), then any integer. */
export const errorCode: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(...Object.values(JSON_RPC_ERROR), -32000, -32002, -32022, -32099), fc.integer());

export const errorResponse: fc.Arbitrary<JsonRpcError> = fc.record(
  {
    jsonrpc: fc.constant('2.0' as const),
    id: fc.oneof(jsonRpcId, fc.constant(null)),
    error: fc.record({ code: errorCode, message: trickyString, data: jsonValue }, { requiredKeys: ['code', 'message'], noNullPrototype: true }),
  },
  { noNullPrototype: true },
);

/** The same message with its top-level keys in another order (real servers put "result" first). */
function withKeysInAnyOrder<T extends object>(message: fc.Arbitrary<T>): fc.Arbitrary<T> {
  // Each key gets a random rank; ranks shrink to 0, which keeps the original order.
  return fc.tuple(message, fc.array(fc.nat({ max: 9 }), { minLength: 4, maxLength: 4 })).map(([value, ranks]) => {
    const entries = Object.entries(value);
    const order = entries.map((entry, index) => ({ entry, rank: ranks[index] ?? 0 }));
    order.sort((a, b) => a.rank - b.rank); // stable: equal ranks keep their order
    return Object.fromEntries(order.map(({ entry }) => entry)) as T;
  });
}

/** Any JSON-RPC message: request, notification, result or error, keys in any order. */
export const jsonRpcMessage: fc.Arbitrary<JsonRpcMessage> = withKeysInAnyOrder<JsonRpcMessage>(fc.oneof(request, notification, resultResponse, errorResponse));
