// What the grader is told of the stages beyond course.yaml: which rules explain a wrong output of a
// stage, and the property suite a stage names. The stages' own modules (harness/stages/) make it;
// the command that grades passes it down, so that nothing here reaches up for them.
import type { PropertySuite } from '../props/suite.ts';
import type { HintFinder } from './hints.ts';

export interface CourseContent {
  /** The hint rules for an output of `stage`: its own first, then those of the stages before it
   *  (every stage's, for none). */
  hintRules(stage?: string): readonly HintFinder[];
  /** The property suite course.yaml's `properties:` names, if the stages have one by that name. */
  suite(name: string): PropertySuite | undefined;
}
