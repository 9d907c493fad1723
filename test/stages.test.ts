// The stages' contents (harness/stages) and course.yaml tell one story: the same stages in the
// same order, each generator for one of its own stage's commands, each suite the one its stage
// names. Checked on this course, and shown to catch a course or a table that drifted. And a
// stage's output is hinted by its own rules and the earlier stages', not the later ones'.
import { describe, expect, it } from 'vitest';
import { loadCourse, type Course } from '../harness/course.ts';
import { compareOutputs } from '../harness/grade/comparison.ts';
import { hintsFor } from '../harness/grade/hints.ts';
import type { StageContent } from '../harness/stages/stage-content.ts';
import { STAGES } from '../harness/stages/index.ts';
import { REPO } from './helpers/cli.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

/** Where the contents and the course disagree, a line each. */
function mismatches(course: Course, contents: readonly StageContent[]): string[] {
  const problems: string[] = [];
  const courseSlugs = course.stages.map((stage) => stage.slug);
  const contentSlugs = contents.map((content) => content.slug);
  if (courseSlugs.join() !== contentSlugs.join()) {
    problems.push(`course.yaml has stages ${courseSlugs.join(', ')}; harness/stages lists ${contentSlugs.join(', ')}`);
  }
  const generated = new Set<string>();
  for (const content of contents) {
    const stage = course.stages.find(({ slug }) => slug === content.slug);
    const commands = new Set(stage?.cases.map((testCase) => testCase.command));
    for (const command of Object.keys(content.generators)) {
      if (!commands.has(command)) problems.push(`${content.slug} generates cases of "${command}", not one of its stage's commands`);
      if (generated.has(command)) problems.push(`"${command}" has a generator in two stages`);
      generated.add(command);
    }
    if (stage !== undefined && content.properties?.name !== stage.properties) {
      problems.push(`${content.slug}: course.yaml names suite ${stage.properties ?? 'none'}, its module has ${content.properties?.name ?? 'none'}`);
    }
  }
  return problems;
}

describe('the stage table', () => {
  const course = loadCourse(REPO);

  it('matches course.yaml: stages in order, generators of their own commands, the suites it names', () => {
    expect(mismatches(course, STAGES)).toEqual([]);
  });

  it("catches a stage left out, a generator of another stage's command, and a suite that is not the one named", () => {
    const [first, second] = STAGES;
    const drifted: StageContent[] = [
      { ...first!, properties: undefined },
      { ...second!, generators: { ...second!.generators, 'mcp-frame': first!.generators['mcp-frame']! } },
    ];
    expect(mismatches(course, drifted)).toEqual([
      `course.yaml has stages ${course.stages.map(({ slug }) => slug).join(', ')}; harness/stages lists ${first!.slug}, ${second!.slug}`,
      `${first!.slug}: course.yaml names suite framing, its module has none`,
      `${second!.slug} generates cases of "mcp-frame", not one of its stage's commands`,
      '"mcp-frame" has a generator in two stages',
    ]);
  });
});

describe('hints for a stage', () => {
  // A tools output that misses a page, beside a frame that is pretty-printed: one mistake of each stage.
  const expected = { frames: ['{"a":1}\n'], tools: [{ name: 'one' }, { name: 'two' }] };
  const actual = { frames: ['{\n  "a": 1\n}\n'], tools: [{ name: 'one' }] };
  const comparison = compareOutputs(Buffer.from(JSON.stringify(expected)), Buffer.from(JSON.stringify(actual)));
  const kinds = (stage?: string) => hintsFor(comparison, COURSE_CONTENT.hintRules(stage)).map((hint) => hint.kind);

  it("are its own rules first, then the earlier stages'; every stage's without one, or for a stage the table does not know", () => {
    expect(kinds('tools')).toEqual(['pagination', 'frame-pretty']);
    expect(kinds()).toEqual(['pagination', 'frame-pretty']);
    expect(kinds('a-later-stage')).toEqual(['pagination', 'frame-pretty']);
  });

  it("leave out the later stages' rules", () => {
    expect(kinds('config-and-framing')).toEqual(['frame-pretty']);
  });
});
