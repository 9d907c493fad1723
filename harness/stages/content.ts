// What the harness knows about one stage of the course, beyond course.yaml: how to explain a wrong
// output, how to make random cases of its commands, and the properties its functions must hold.
// Each stage's module (harness/stages/<slug>.ts) exports one of these; index.ts lists them.
import type { CaseGenerator } from '../ci/random.ts';
import type { HintRule } from '../grade/hints.ts';
import type { PropertySuite } from '../props/suite.ts';

export interface StageContent {
  /** As course.yaml names the stage. */
  slug: string;
  /** The mistakes this stage's part of an output can show (outputs of later stages include it). */
  hints: readonly HintRule[];
  /** CI's random cases, by program command: one of this stage's commands in course.yaml. */
  generators: Readonly<Record<string, CaseGenerator>>;
  /** The suite course.yaml names in the stage's `properties:`, if it has one. */
  properties?: PropertySuite;
}
