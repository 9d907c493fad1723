// What the harness knows about one stage of the course, beyond course.yaml: how to explain a wrong
// output, how to make random cases of its commands, and the properties its functions must hold.
// Each stage's module (harness/stages/<slug>/index.ts) exports one of these; index.ts lists them.
import type { HintFinder } from '../grade/hints.ts';
import type { PropertySuite } from '../props/suite.ts';

export type { HintFinder };

export interface GeneratedFiles {
  /** Files of the case folder the program is given (relative names). */
  inputs: Record<string, string>;
  /** Files the grader keeps beside expected.json (a cassette, for the stages that play one). */
  fixtures?: Record<string, string>;
}

/** Makes case number `index` of a run from its seed; the same seed and index give the same files. */
export type CaseGenerator = (seed: number, index: number) => GeneratedFiles;

export interface StageContent {
  /** As course.yaml names the stage. */
  slug: string;
  /** The mistakes this stage's part of an output can show (outputs of later stages include it). */
  hints: readonly HintFinder[];
  /** Its own hints, when they explain a failure, say all there is: the earlier stages' rules are asked
   *  only when these say nothing (a flow that stopped before any reply leaves every reply unread). */
  hintsFirst?: true;
  /** CI's random cases, by program command: one of this stage's commands in course.yaml. */
  generators: Readonly<Record<string, CaseGenerator>>;
  /** The suite course.yaml names in the stage's `properties:`, if it has one. */
  properties?: PropertySuite;
}
