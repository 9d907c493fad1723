// Why an output differs from expected.json, in words: each hint names one mistake and its fix.
// The rules here are those for any JSON output; each stage's own rules are in its module under
// harness/stages/. All of them read the comparison made in comparison.ts.
import { isDeepStrictEqual } from 'node:util';
import { kindOf, lacksRequiredMeta, type Diagnosis } from '../cassette/index.ts';
import { KINDS } from '../protocols/index.ts';
import { bothValues, describePath, finalLineBreaks, firstJsonDifference, isNotBlank, keysAreSorted, valueAt, type Comparison } from './comparison.ts';
import { quote } from './escape.ts';
import type { Hint } from '../run/verdict.ts';

/** Reads a comparison and names the mistakes it shows (none when it does not know them). */
export type HintFinder = (comparison: Comparison) => Hint[];

// ------------------------------------------------------------------------ turning it into hints

/**
 * The hints for a failing output, most basic first, each kind of mistake once: the rules for any
 * JSON output, then the stages' `rules` (CourseContent.hintRules: its stage's, then earlier ones').
 */
export function hintsFor(comparison: Comparison, rules: readonly HintFinder[] = []): Hint[] {
  if (comparison.actualText.length === 0) {
    return [
      {
        kind: 'empty',
        lines: ['your program printed nothing on stdout', 'if it crashed, its error is on stderr above'],
        general: ['your program printed nothing on stdout'],
      },
    ];
  }
  const hints: Hint[] = [];
  for (const rule of [...OUTPUT_FINDERS, ...rules]) {
    for (const hint of rule(comparison)) {
      if (!hints.some((known) => known.kind === hint.kind)) hints.push(hint);
    }
  }
  if (hints.length === 0) hints.push(...fallback(comparison));
  return hints;
}

// --------------------------------------------------------------- rules for any JSON output

const OUTPUT_FINDERS: HintFinder[] = [
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
        general: ['a log line on stdout', 'use console.error: stdout is the protocol channel'],
      },
    ];
  },

  function finalNewline({ expectedText, actualText, strayLines }) {
    if (expectedText.endsWith('\n') && !actualText.endsWith('\n')) {
      return [{ kind: 'final-newline', lines: ['your output does not end with a newline; end it with exactly one \\n'] }];
    }
    if (/\n\r?\n$/.test(actualText) && !/\n\n$/.test(expectedText)) {
      const extra = finalLineBreaks(actualText).length;
      return [
        {
          kind: 'final-newline',
          lines: [`your output ends with ${extra} line breaks; end it with exactly one \\n`],
          general: ['your output ends with more than one line break; end it with exactly one \\n'],
        },
      ];
    }
    if (strayLines.length > 0 && !strayLines.some(isNotBlank)) {
      return [{ kind: 'blank-line', lines: ['your output has an extra blank line: something printed an empty line on stdout'] }];
    }
    return [];
  },

  function keysInAnotherOrder(comparison) {
    const both = bothValues(comparison);
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
        general: [
          'an object of your output has the same keys in another order',
          'the bytes are compared, so keep keys in the order expected.json has them; do not sort them',
        ],
      },
    ];
  },
];

// --------------------------------------------------------------- rules for what the player said

/** Hints for a mistake of the protocol that the cassette player found, whatever the output shows. */
export function protocolHints(diagnoses: readonly Diagnosis[]): Hint[] {
  const hints: Hint[] = [];
  if (diagnoses.some((diagnosis) => diagnosis.kind === 'unused' && diagnosis.waitingFor && kindOf(diagnosis.waitingFor.message) === 'response')) {
    hints.push({
      kind: 'server-request-unanswered',
      lines: [
        'the server sent your client a request while it waited for a response of its own, and your client never answered',
        'a message with both a method and an id is a request: answer ping with an empty result, any other request with a -32601 error',
      ],
    });
  }
  if (diagnoses.some((diagnosis) => diagnosis.kind === 'id-reused')) {
    hints.push({
      kind: 'id-reused',
      lines: [
        'an id names one request: for the whole session (2025-11-25), or while it is unanswered (the stateless revision)',
        'take each id from a counter that only grows',
      ],
    });
  }
  if (diagnoses.some(newSessionAwaited)) {
    hints.push({
      kind: 'session-lost',
      lines: [
        'the server lost the session (it answered 404, or 400 to a session id it no longer knows): the client starts a new one, once for each request that meets a lost session',
        'send initialize again without the old session id, then notifications/initialized, then the request that failed',
      ],
    });
  }
  if (prettyPrinted(diagnoses)) {
    hints.push({
      kind: 'multi-line-message',
      lines: [
        'your client wrote each message over several lines (pretty-printed JSON): the server reads one message a line, and no line of it is a whole message',
        'frame() puts a message on one line: JSON.stringify(message) with no indent argument, then "\\n"',
      ],
    });
  }
  const lost = hints.some((hint) => hint.kind === 'session-lost');
  // each kind's own fix (its row's hint), in the kinds' order
  for (const [kind, row] of Object.entries(KINDS)) {
    if (row.hint === undefined) continue;
    // a session id sent after the session was lost: the hint to read is how to start the next one
    if (kind === 'http-session' && lost) continue;
    if (diagnoses.some((diagnosis) => diagnosis.kind === kind)) hints.push({ kind, lines: row.hint });
  }
  return hints;
}

/** Lines that are not JSON one by one, but are a message together: joined, they parse, or (past the
 *  diagnoses the player keeps) one is a lone brace or bracket and another an indented `"key": value`. */
function prettyPrinted(diagnoses: readonly Diagnosis[]): boolean {
  const lines = diagnoses.flatMap((diagnosis) => (diagnosis.kind === 'not-json' && typeof diagnosis.received === 'string' ? [diagnosis.received] : []));
  if (lines.length < 2) return false;
  try {
    JSON.parse(lines.join('\n'));
    return true;
  } catch {
    return lines.some((line) => /^\s*[{[]\s*$/.test(line)) && lines.some((line) => /^\s+"[^"]*"\s*:/.test(line));
  }
}

/** The recording starts a second session (the server lost the first: 404), and the client never began it. */
function newSessionAwaited(diagnosis: Diagnosis): boolean {
  return diagnosis.kind !== 'id-reused' && diagnosis.waitingFor?.newSession === true;
}

/** The server refused a request, which went no further: at the HTTP level, as a server of the
 *  stateless revision does, or as one of a session it had lost. */
export function refusedByTheServer(diagnoses: readonly Diagnosis[]): boolean {
  return diagnoses.some((diagnosis) => KINDS[diagnosis.kind].refusal === true || envelopeRefused(diagnosis) || newSessionAwaited(diagnosis));
}

/** A request without a required key of the stateless `_meta` (its protocol version or client
 *  capabilities): refused 400, -32602. One without clientInfo alone is served. */
function envelopeRefused(diagnosis: Diagnosis): boolean {
  return diagnosis.kind === 'meta-missing' && lacksRequiredMeta(diagnosis.received);
}

/** When no rule knows the mistake: at least say what kind of difference it is. */
function fallback(comparison: Comparison): Hint[] {
  const both = bothValues(comparison);
  if (both !== undefined && isDeepStrictEqual(both.expected, both.actual) && firstJsonDifference(both.expected, both.actual) === undefined) {
    return [{ kind: 'same-value', lines: ['the JSON value is right; only the whitespace or escaping between its tokens differs'] }];
  }
  return [];
}
