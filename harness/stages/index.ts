// The stages' contents, in course order: what the harness knows about each stage beyond
// course.yaml (hint rules, CI's case generators, a property suite), each in its own folder.
//
// To add a stage: its folder here (harness/stages/<slug>/: index.ts exporting one StageContent,
// listed below in course order, one with nothing to add being `{ slug, hints: [], generators: {} }`;
// contract.ts, the types of what its commands read and print, which program.ts imports; output.ts,
// its output read against them for its hints), its entry in course.yaml, its cases/ and fixtures/,
// and its part of the reference solution (src/), the starter and program.ts. Nothing else: the
// grader, CI and the property runner find it here, test/stages.test.ts checks this table against
// course.yaml, and the tests read the stages from course.yaml.
import type { CourseContent } from '../grade/course-content.ts';
import type { PropertySuite } from '../props/suite.ts';
import { authorization } from './authorization/index.ts';
import { configAndFraming } from './config-and-framing/index.ts';
import type { CaseGenerator, HintFinder, StageContent } from './stage-content.ts';
import { handshake } from './handshake/index.ts';
import { resourcesAndPrompts } from './resources-and-prompts/index.ts';
import { stateless } from './stateless/index.ts';
import { streamableHttp } from './streamable-http/index.ts';
import { tools } from './tools/index.ts';
import { translate } from './translate/index.ts';

export const STAGES: readonly StageContent[] = [configAndFraming, handshake, tools, streamableHttp, translate, stateless, authorization, resourcesAndPrompts];

/**
 * The hint rules for an output of `slug`: its stage's first (they know its command's output best),
 * then those of the stages before it, whose parts a later stage's output holds. Every stage's, for
 * no slug or one this table does not know.
 */
export function hintRulesUpTo(slug?: string): HintFinder[] {
  const at = STAGES.findIndex((stage) => stage.slug === slug);
  const [own, ...earlier] = STAGES.slice(0, at < 0 ? STAGES.length : at + 1).reverse();
  if (at < 0 || !own?.hintsFirst) return [own, ...earlier].flatMap((stage) => stage?.hints ?? []);
  const earlierRules = earlier.flatMap((stage) => stage.hints);
  return [
    (comparison) => {
      const hints = own.hints.flatMap((rule) => rule(comparison));
      return hints.length > 0 ? hints : earlierRules.flatMap((rule) => rule(comparison));
    },
  ];
}

/** The generator of a program command's random cases, if its stage has one. */
export function generatorFor(command: string): CaseGenerator | undefined {
  const stage = STAGES.find(({ generators }) => Object.hasOwn(generators, command));
  return stage?.generators[command];
}

/** The property suite course.yaml names `name` (`properties: <name>`). */
export function suiteNamed(name: string): PropertySuite | undefined {
  return STAGES.find(({ properties }) => properties?.name === name)?.properties;
}

export function suiteNames(): string[] {
  return STAGES.flatMap(({ properties }) => (properties === undefined ? [] : [properties.name]));
}

/** What the grader is told of these stages: every command that grades passes it down. */
export const COURSE_CONTENT: CourseContent = { hintRules: hintRulesUpTo, suite: suiteNamed };
