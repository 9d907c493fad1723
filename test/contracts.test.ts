// The stages' contracts (harness/stages/<slug>/contract.ts) against what program.ts really prints:
// every expected.json of the course reads against every stage's output reader (a stage's hints read
// its part in the outputs of the stages after it too, so a reader that refused one would silence
// them), and an output that is not what the contract says is read as nothing, with the place and
// what was expected.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadCourse } from '../harness/course.ts';
import { readOutput, type Reader } from '../harness/stages/reading.ts';
import { resourcesPart } from '../harness/stages/resources-and-prompts/output.ts';
import { toolsPart } from '../harness/stages/tools/output.ts';
import { REPO } from './helpers/cli.ts';

const course = loadCourse(REPO);

/** Each stage's output reader: the one value its output.ts exports. */
async function readers(): Promise<{ slug: string; reader: Reader<unknown> }[]> {
  return Promise.all(
    course.stages.map(async ({ slug }) => {
      const module = (await import(`../harness/stages/${slug}/output.ts`)) as Record<string, unknown>;
      const exported = Object.values(module).filter((value) => typeof value === 'function');
      expect(exported, `harness/stages/${slug}/output.ts exports one reader`).toHaveLength(1);
      return { slug, reader: exported[0] as Reader<unknown> };
    }),
  );
}

describe("the stages' contracts", () => {
  it("read every expected.json of the course, with every stage's reader", async () => {
    const all = await readers();
    const cases = course.stages.flatMap((stage) => stage.cases);
    expect(cases.length).toBeGreaterThan(100);
    const problems = cases.flatMap((testCase) => {
      const value: unknown = JSON.parse(readFileSync(testCase.expectedPath, 'utf8'));
      return all.flatMap(({ slug, reader }) => {
        const read = readOutput(reader, value);
        return read.ok ? [] : [`${testCase.casePath} (${slug}): ${read.problem}`];
      });
    });
    expect(problems).toEqual([]);
  });

  it('say where an output is not what they say, and what was expected', () => {
    expect(readOutput(resourcesPart, { steps: [{ step: { list: 'resources' } }, { step: { list: 'nothing' }, result: [] }], updated: [] })).toEqual({
      ok: false,
      problem: 'steps[1].step is not what the contract says: expected a step: one of list, read, prompt, call, subscribe, unsubscribe',
    });
    expect(readOutput(resourcesPart, { steps: {} })).toEqual({ ok: false, problem: 'steps is not what the contract says: expected an array' });
    expect(readOutput(toolsPart, [])).toEqual({ ok: false, problem: 'the output is not what the contract says: expected an object with tools, calls' });
    // read typed, and as printed: a field the contract does not name is kept, one it leaves out is not added
    const steps = [{ step: { read: { template: 'demo://{id}', values: { id: '1' } } }, uri: 'demo://1', result: { contents: [] } }];
    expect(readOutput(resourcesPart, { steps, updated: ['demo://1'], closed: false })).toEqual({
      ok: true,
      value: { steps, updated: ['demo://1'], closed: false },
    });
  });
});
