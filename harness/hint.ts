// A hint: one mistake and its fix, in words. Made where the mistake is known (a transport, a stage's
// rules, the output's comparison) and shown by every report; so it sits below them all.

/** One mistake and its fix, in words. */
export interface Hint {
  /** Which mistake, so one mistake is hinted once however many places show it. */
  kind: string;
  /** One or two short lines: the mistake, then the fix. */
  lines: string[];
  /** The same mistake and fix in words that quote nothing of the case: no place in the output (a JSON
   *  path, an index), no key, name, value or count of the expected output, of the case's inputs or
   *  recording, or of what the program printed. What a hidden case shows instead of `lines`
   *  (grade/sealed-verdict.ts); left out where `lines` already quote nothing. */
  general?: string[];
  /** It says what sets this case apart (its streams' line ends), not what the client did: the same
   *  mistake made here and in another case is still the same one. */
  aboutTheCase?: true;
}
