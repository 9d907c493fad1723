// What a row of the kinds' tables holds: everything about one diagnosis kind that is not the code
// that finds it. The rule is the spec's words: a MUST broken is an error; a SHOULD not followed is
// advice (shown and counted, the case still passes); what the course asks beyond the spec (that a
// client does what its case asks, in order) is the course's and is said to be.

/** `must`: the spec requires it (an error); `should`: the spec recommends it (advice); `compatible`:
 *  the spec allows it, but servers of an older specification it also names may refuse it (advice);
 *  `course`: the course asks it, beyond the spec (an error, marked as the course's). */
export type RuleLevel = 'must' | 'should' | 'compatible' | 'course';

export interface Rule {
  level: RuleLevel;
  /** Where the words are: a page and section of the spec (its revision first), a section of an RFC or
   *  draft it cites, an API's documentation page, or the course's own page. Each protocol's table
   *  says its forms, and test/cassette/rules.test.ts holds them. */
  source: string;
  /** The rule, quoted (the spec's words) or said (the course's). */
  words: string;
}

export interface KindRow extends Rule {
  /** When the player says it, in a line (docs/cassettes.md's table of kinds; Markdown). */
  what: string;
  /** A message of the kind as a student reads it (the same table). */
  example: string;
  /** The server answers it with an error (a status, or its protocol's error): the request went no
   *  further, so what the output lacks follows from it (grade/hints.ts). */
  refusal?: true;
  /** The fix, a line each: the hint shown when the player said this kind (grade/hints.ts). */
  hint?: string[];
}

/** Whether a diagnosis of a row's kind fails its case (a MUST, or the course's rule) or is advice (a SHOULD). */
export function isAdviceRow(rule: Rule): boolean {
  return rule.level === 'should' || rule.level === 'compatible';
}

/** The source of the course's own rules. */
export const COURSE = 'docs/course.md';
