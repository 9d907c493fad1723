// How a client message is held to a recorded one: by kind, an answer by its id, a request or a
// notification by its method, then its params (an answer's result, or its error's code) with the
// paths the recording leaves free, as MCP means them rather than as JSON spells them (no params are
// empty params); an answer to roots/list by the spec's rule for what the client declared. The player
// asks; it decides what a miss means at its place in the session.
import { FreePaths, countDifferences, firstDifference, formatPath } from '../../exchange/json-path.ts';
import { idKey, isObject, kindOf, type Cassette, type ClientFrame, type Json, type JsonObject } from '../format/model.ts';

export class Matching {
  private readonly globalFree: string[];
  private readonly freeByFrame = new Map<number, FreePaths>();
  /** The live client declared the roots capability in its initialize; undefined before an initialize. */
  declaresRoots: boolean | undefined;

  constructor(
    private readonly cassette: Cassette,
    /** The recorded id of the request the live client sent with this id (a cancellation names it). */
    readonly recordedIdOfRequest: (liveId: Json) => Json | undefined,
  ) {
    this.globalFree = cassette.free ?? [];
  }

  private freeFor(index: number, frame: ClientFrame): FreePaths {
    let free = this.freeByFrame.get(index);
    if (!free) {
      free = new FreePaths([...this.globalFree, ...(frame.free ?? [])]);
      this.freeByFrame.set(index, free);
    }
    return free;
  }

  /** undefined when `actual` matches the recorded frame; else where it differs (no path: another
   *  method or kind), and the rule that found it. */
  compare(index: number, frame: ClientFrame, actual: JsonObject): Miss | undefined {
    const held = { index, expected: frame.message, actual, free: this.freeFor(index, frame), matching: this };
    for (const matcher of MATCHERS) {
      const found = matcher.check(held);
      if (found === 'matches') return undefined;
      if (found !== undefined) return { ...found, rule: matcher.rule };
    }
    return undefined;
  }

  /** The method of the server request whose recorded id `id` is, asked before frame `before`. */
  serverRequestMethod(id: Json | undefined, before: number): string | undefined {
    for (let i = before - 1; i >= 0; i--) {
      const frame = this.cassette.frames[i]!;
      if (frame.from === 'server' && kindOf(frame.message) === 'request' && idKey(frame.message.id) === idKey(id)) return String(frame.message.method);
    }
    return undefined;
  }

  /** A later recorded client message that this one matches exactly (the client is ahead or swapped two). */
  findLater(message: JsonObject, from: number): number | undefined {
    const frames = this.cassette.frames;
    for (let i = from + 1; i < frames.length; i++) {
      const frame = frames[i]!;
      if (frame.from === 'client' && this.compare(i, frame, message) === undefined) return i;
    }
    return undefined;
  }

  /** The index of the recorded client message most like `message`: same method first, then fewest differences. */
  nearest(message: JsonObject, from: number): number | undefined {
    let best: { index: number; score: number } | undefined;
    const frames = this.cassette.frames;
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i]!;
      if (frame.from !== 'client') continue;
      const sameMethod = frame.message.method === message.method && kindOf(frame.message) === kindOf(message);
      const score = (sameMethod ? 0 : 1000) + countDifferences(frame.message.params ?? {}, message.params ?? {}) + (i < from ? 500 : 0);
      if (!best || score < best.score) best = { index: i, score };
    }
    return best && best.score < 1000 ? best.index : undefined;
  }
}

/** A client message held at a recorded place. */
interface Held {
  index: number;
  expected: JsonObject;
  actual: JsonObject;
  free: FreePaths;
  matching: Matching;
}

/** The rules a client message is held to, in order: the first that finds a difference says it
 *  (a miss), or that the message matches whatever the rules after it would say. */
const MATCHERS: readonly { rule: MatcherName; check(held: Held): Omit<Miss, 'rule'> | 'matches' | undefined }[] = [
  { rule: 'kind', check: ({ expected, actual }) => (kindOf(expected) !== kindOf(actual) ? {} : undefined) },
  { rule: 'id', check: ({ expected, actual }) => (kindOf(expected) === 'response' && idKey(expected.id) !== idKey(actual.id) ? {} : undefined) },
  {
    // what a client answers roots/list follows from what it declared, not from what the recorded one did
    // (where the session's initialize was played: a cassette may start after it, and then the recording decides)
    rule: 'roots-answer',
    check: ({ expected, actual, index, matching }) => {
      if (kindOf(expected) !== 'response' || matching.declaresRoots === undefined || matching.serverRequestMethod(expected.id, index) !== 'roots/list')
        return undefined;
      return rootsAnswerDifference(matching.declaresRoots, actual) ?? 'matches';
    },
  },
  {
    rule: 'answer',
    check: ({ expected, actual, free }) => {
      if (kindOf(expected) !== 'response') return undefined;
      const field = 'result' in expected ? 'result' : 'error';
      if (!(field in actual)) return { path: field, expected: expected[field] ?? null, actual: actual.result ?? actual.error ?? null };
      // An error the client answers with is its code: the message is prose, the data its own.
      if (field === 'error') return errorCodeDifference(expected.error, actual.error) ?? 'matches';
      const difference = firstDifference(expected[field], actual[field], free, [field]);
      return difference ? { path: formatPath(difference.path), expected: difference.expected, actual: difference.actual } : 'matches';
    },
  },
  { rule: 'method', check: ({ expected, actual }) => (expected.method !== actual.method ? {} : undefined) },
  {
    rule: 'params',
    check: ({ expected, actual, free, matching }) => {
      let params = actual.params;
      if (actual.method === 'notifications/cancelled' && isObject(params) && 'requestId' in params) {
        const recorded = matching.recordedIdOfRequest(params.requestId);
        if (recorded !== undefined) params = { ...params, requestId: recorded };
      }
      const method = expected.method as string;
      const difference = firstDifference(asMcpMeans(method, expected.params), asMcpMeans(method, params), free, ['params']);
      return difference ? { path: formatPath(difference.path), expected: difference.expected, actual: difference.actual } : 'matches';
    },
  },
];

/** Params MCP makes optional with an empty default, by method: absent and empty mean the same. */
const EMPTY_BY_DEFAULT: Readonly<Record<string, readonly string[]>> = {
  'tools/call': ['arguments'],
  'prompts/get': ['arguments'],
};

/** A request's params as MCP reads them, not as JSON does: no params are empty params, and an
 *  optional param whose default is empty is left out when empty (docs/cassettes.md lists these). */
function asMcpMeans(method: string, params: Json | undefined): Json {
  if (!isObject(params)) return params ?? {};
  const emptyByDefault = EMPTY_BY_DEFAULT[method]?.filter((key) => isObject(params[key]) && Object.keys(params[key]).length === 0);
  if (!emptyByDefault?.length) return params;
  return Object.fromEntries(Object.entries(params).filter(([key]) => !emptyByDefault.includes(key)));
}

/** Where a client message differs from what was expected; `kind` when that breaks a rule of the spec
 *  rather than the recording (params-differ). */
/** The rule that found a difference: the message's kind, an answer's id, the spec's rule for an
 *  answer to roots/list, an answer's result or error code, a request's method, its params. */
export type MatcherName = 'kind' | 'id' | 'roots-answer' | 'answer' | 'method' | 'params';

export interface Miss {
  rule: MatcherName;
  path?: string;
  expected?: Json;
  actual?: Json;
  kind?: 'roots-answer';
}

/** How a client answers roots/list (2025-11-25 client/roots): one that declared the capability with its
 *  roots ({ roots: [{ uri: "file://...", name? }] }), one that did not with an error. Roots from a client
 *  that did not declare them, a result that is no ListRootsResult and a uri that is not file:// break
 *  the spec's MUSTs (roots-answer); an error from one that declared them, the course's rule; an error
 *  code other than -32601 from one that did not, a SHOULD (advice: rootsErrorCode). */
function rootsAnswerDifference(declared: boolean, actual: JsonObject): Omit<Miss, 'rule'> | undefined {
  const spec = 'roots-answer' as const;
  if (!declared) {
    if ('error' in actual) return undefined;
    return { kind: spec, path: 'result', expected: 'error -32601 (your client did not declare roots)', actual: actual.result ?? null };
  }
  const result = actual.result;
  if (!isObject(result))
    return { path: 'result', expected: 'a ListRootsResult: { roots: [...] } (your client declared roots)', actual: actual.error ?? result ?? null };
  if (!Array.isArray(result.roots)) return { kind: spec, path: 'result.roots', expected: 'an array of roots', actual: result.roots ?? null };
  const bad = result.roots.findIndex((root) => !isObject(root) || typeof root.uri !== 'string' || !root.uri.startsWith('file://'));
  return bad < 0
    ? undefined
    : {
        kind: spec,
        path: `result.roots[${bad}].uri`,
        expected: 'a file:// URI',
        actual: isObject(result.roots[bad]) ? (result.roots[bad].uri ?? null) : result.roots[bad]!,
      };
}

/** undefined when both errors carry the same code; else the code each has. */
function errorCodeDifference(expected: Json | undefined, actual: Json | undefined): { path: string; expected: Json; actual: Json } | undefined {
  const code = (error: Json | undefined): Json => (isObject(error) && error.code !== undefined ? error.code : null);
  return code(expected) === code(actual) ? undefined : { path: 'error.code', expected: code(expected), actual: code(actual) };
}
