// What a row of the kinds' tables holds: everything about one diagnosis kind that is not the code
// that finds it. The rule is the spec's words: a MUST broken is an error; a SHOULD not followed is
// advice (shown and counted, the case still passes); what the course asks beyond the spec (that a
// client does what its case asks, in order) is the course's and is said to be.

/** `must`: the spec requires it (an error); `should`: the spec recommends it (advice); `compatible`:
 *  the spec allows it, but servers it also names (OAuth 2.0's) may refuse it (advice); `course`: the
 *  course asks it, beyond the spec (an error, marked as the course's). */
export type RuleLevel = 'must' | 'should' | 'compatible' | 'course';

export interface Rule {
  level: RuleLevel;
  /** Where the words are: `<revision> <page>#<section>` of the spec (modelcontextprotocol.io/specification/…),
   *  `OAuth 2.1 #<section>` of the draft it cites (draft-ietf-oauth-v2-1-13), `RFC <n> <section>`, or
   *  the course's own page. */
  source: string;
  /** The rule, quoted (the spec's words) or said (the course's). */
  words: string;
}

export interface KindRow extends Rule {
  /** When the player says it, in a line (docs/cassettes.md's table of kinds; Markdown). */
  what: string;
  /** A message of the kind as a student reads it (the same table). */
  example: string;
  /** The server answers it with an error status, or the stateless revision's or the authorization
   *  server's error: the request went no further, so what the output lacks follows from it (grade/hints.ts). */
  refusal?: true;
  /** The fix, a line each: the hint shown when the player said this kind (grade/hints.ts). */
  hint?: string[];
}

/** The source of the course's own rules. */
export const COURSE = 'docs/course.md';
