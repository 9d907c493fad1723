// Stage 6, `stateless`: both eras on one URL (the 2026-07-28 revision). What a request of the
// revision gets wrong (its _meta, its headers, a session id, an initialize) shows first in what the
// player says (grade/hints.ts reads its diagnoses); this module reads the output the `stateless`
// command prints: what connect() found, the tools, the calls, and the input requests it answered.
import { isDeepStrictEqual } from 'node:util';
import type { Comparison } from '../../grade/comparison.ts';
import type { Hint } from '../../run/verdict.ts';
import type { Outcome } from '../contract.ts';
import type { StageContent } from '../stage-content.ts';
import { outcomeOf } from '../outcome.ts';
import { fieldsOf, readBoth } from '../reading.ts';
import { statelessPart } from './output.ts';

/** What connect() found, as printed: an era, or its failure. */
function eraOf(connect: Outcome | undefined): 'modern' | 'legacy' | 'failed' | 'missing' {
  const outcome = outcomeOf(connect);
  if (outcome === 'missing') return 'missing';
  if (outcome !== 'result') return 'failed';
  const { era } = fieldsOf(connect);
  return era === 'modern' || era === 'legacy' ? era : 'failed';
}

/** connect() found another era than the reference, or failed where it did not (or went on where it failed). */
function connectRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, statelessPart);
  if (both === undefined) return [];
  const [want, got] = [eraOf(both.expected.connect), eraOf(both.actual.connect)];
  if (want === got || got === 'missing') return [];
  if (want === 'legacy' && got === 'failed') {
    return [
      {
        kind: 'connect-fallback',
        lines: [
          'connect() failed on a server it can speak to in 2025: the server answered server/discover with an error, and the reference went on with initialize()',
          'fall back to initialize() on the same URL on any error of the probe but -32020 and -32021 (an HTTP error: server-everything says 400 and -32000), and answer -32022 once with a version its data.supported lists and your client speaks (initialize() when that version is of 2025)',
        ],
      },
    ];
  }
  if (want === 'modern' && got === 'legacy') {
    return [
      {
        kind: 'connect-era',
        lines: [
          "connect() did the 2025 handshake, but server/discover's result listed 2026-07-28 in supportedVersions: the server speaks the revision",
          "stay stateless (era 'modern'): no initialize, the revision's _meta and headers on every request",
        ],
      },
    ];
  }
  if (want === 'failed' && got !== 'failed') {
    return [
      {
        kind: 'connect-no-common-version',
        lines: [
          'connect() went on, but the server refused the probe with -32022 and its data.supported lists no version your client speaks',
          'throw: -32022 is answered once, and only with a version both speak (neither initialize() nor another probe with the same version)',
        ],
      },
    ];
  }
  return [];
}

/** Fewer tools than the reference, the first of them right: a page not asked for (the "" cursor). */
function emptyCursorRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, statelessPart);
  const expected = both?.expected.tools;
  const actual = both?.actual.tools;
  if (!Array.isArray(expected) || !Array.isArray(actual) || actual.length === 0 || actual.length >= expected.length) return [];
  if (!actual.every((tool, index) => isDeepStrictEqual(tool, expected[index]))) return [];
  return [
    {
      kind: 'pagination',
      lines: [
        `your client listed ${actual.length} of the ${expected.length} tools: it stopped at a page whose nextCursor is the empty string`,
        '"" is a cursor like any other (cursors are opaque): follow nextCursor until the result has none, and test for undefined, not for a falsy value',
      ],
      general: [
        'your client listed fewer tools than the server has: it stopped at a page whose nextCursor is the empty string',
        '"" is a cursor like any other (cursors are opaque): follow nextCursor until the result has none, and test for undefined, not for a falsy value',
      ],
    },
  ];
}

/** Tools the reference left out of tools/list and the client kept: their x-mcp-header annotations break
 *  the revision's rules, which make a client exclude the tool. */
function invalidAnnotationRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, statelessPart);
  const expected = both?.expected.tools;
  const actual = both?.actual.tools;
  if (!Array.isArray(expected) || !Array.isArray(actual) || actual.length <= expected.length) return [];
  const names = new Set(expected.map((tool) => fieldsOf(tool).name));
  const kept = actual.filter((tool) => !names.has(fieldsOf(tool).name) && JSON.stringify(fieldsOf(tool).inputSchema ?? null).includes('"x-mcp-header"'));
  if (kept.length === 0) return [];
  return [
    {
      kind: 'invalid-header-annotation',
      lines: [
        `your client listed ${kept.map((tool) => String(fieldsOf(tool).name)).join(', ')}, whose x-mcp-header annotations break the rules: a client leaves such a tool out of tools/list`,
        'an annotation is a header name (an HTTP token), unique without regard to case, on a string, integer or boolean (never a number), reached from the root through properties alone',
      ],
      general: [
        'your client listed tools whose x-mcp-header annotations break the rules: a client leaves such a tool out of tools/list',
        'an annotation is a header name (an HTTP token), unique without regard to case, on a string, integer or boolean (never a number), reached from the root through properties alone',
      ],
    },
  ];
}

/** The input requests the client answered: none where the reference answered one, or the same one again and again. */
function inputRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, statelessPart);
  const expected = both?.expected.asked;
  const actual = both?.actual.asked;
  if (expected === undefined || actual === undefined || expected.length === 0 || actual.length === expected.length) return [];
  if (actual.length < expected.length) {
    const calls = both?.actual.calls;
    const pending = calls !== undefined ? calls.findIndex((call) => fieldsOf(call).resultType === 'input_required') : -1;
    // a call that failed before the server could ask (a request refused, or not the recorded one) is another mistake
    if (pending < 0 && (calls === undefined || calls.some((call) => outcomeOf(call) !== 'result'))) return [];
    return [
      {
        kind: 'input-not-answered',
        lines: [
          pending >= 0
            ? `calls[${pending}] is the server's input_required result: the server asked for input, and your client took its question for the answer`
            : 'the server asked for input (resultType input_required), and your client never called onInputRequest',
          'answer input_required: call onInputRequest for each of its inputRequests, then send the same request again with a new id, inputResponses (each answer under its key) and the requestState it gave',
        ],
        general: [
          pending >= 0
            ? "a call's result is the server's input_required result: the server asked for input, and your client took its question for the answer"
            : 'the server asked for input (resultType input_required), and your client never called onInputRequest',
          'answer input_required: call onInputRequest for each of its inputRequests, then send the same request again with a new id, inputResponses (each answer under its key) and the requestState it gave',
        ],
      },
    ];
  }
  return [
    {
      kind: 'input-asked-again',
      lines: [
        `the server asked for the same input ${actual.length} times, where once was enough: your retry lacked what it needs to go on`,
        'send the retry with inputResponses (each answer under its request key) and the requestState of the input_required result, unchanged',
      ],
      general: [
        'the server asked for the same input more than once, where once was enough: your retry lacked what it needs to go on',
        'send the retry with inputResponses (each answer under its request key) and the requestState of the input_required result, unchanged',
      ],
    },
  ];
}

export const stateless: StageContent = { slug: 'stateless', hints: [connectRule, emptyCursorRule, invalidAnnotationRule, inputRule], generators: {} };
