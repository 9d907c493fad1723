// Randomised cases: for each program command that has a generator, a few cases made from the
// run's seed, so that a solution that hard-codes the public cases' output fails. A generated
// case's input goes into the scratch copy (where the program runs); its expected output is what
// the course's own reference solution prints for it, made before the submission is graded and
// kept outside the scratch copy.
//
// The generators are the stages' own (harness/stages/<slug>/), keyed by program command. One
// whose command talks to endpoints returns each endpoint's recording among its `fixtures`, under the
// endpoint's file name (as `handshake` and `tools` do, `cassette.yaml`), played by the grader from
// outside the scratch copy.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CourseError, type Case, type Course } from '../course.ts';
import { runWithEndpoints } from '../grade/case.ts';
import { playingOf } from '../grade/played.ts';
import type { Launcher } from '../run/launcher.ts';
import { CORES, runPooled } from '../run/pool.ts';
import { DEFAULT_LIMITS } from '../run/spawn.ts';
import { generatorFor } from '../stages/index.ts';

/** Where a generated case's input goes in the scratch copy; its name in reports is `random-<command folder>/<n>`. */
function generatedCasePath(folder: string, index: number): string {
  const parts = folder.split('/');
  return join('cases', ...parts.slice(0, -1), `random-${parts.at(-1)}`, String(index + 1));
}

export interface GeneratedCases {
  /** Per stage slug. */
  byStage: Map<string, Case[]>;
}

/**
 * Writes each generated case's inputs under `scratchRoot` and its fixtures under `fixturesRoot`
 * (expected.json is written later, by `expectFromReference`).
 */
export function generateCases(course: Course, seed: number, perCommand: number, scratchRoot: string, fixturesRoot: string): GeneratedCases {
  const byStage = new Map<string, Case[]>();
  for (const stage of course.stages) {
    const seen = new Set<string>();
    const cases: Case[] = [];
    for (const publicCase of stage.cases) {
      const folder = publicCase.casePath.split('/').slice(1, -1).join('/');
      const generate = generatorFor(publicCase.command);
      if (!generate || seen.has(folder)) continue;
      seen.add(folder);
      for (let index = 0; index < perCommand; index++) {
        const files = generate(seed, index);
        const casePath = generatedCasePath(folder, index);
        const fixtureDir = join(fixturesRoot, casePath);
        writeAll(join(scratchRoot, casePath), files.inputs);
        writeAll(fixtureDir, files.fixtures ?? {});
        // played as the stage's own cases are, each endpoint from the recording made for it
        const endpoints = publicCase.endpoints.map((endpoint) => {
          if (files.fixtures?.[endpoint.cassette] === undefined)
            throw new CourseError(`the generator of ${publicCase.command} made no ${endpoint.cassette} for its endpoint ${endpoint.name}`);
          return { ...endpoint, cassettePath: join(fixtureDir, endpoint.cassette) };
        });
        cases.push({
          name: String(index + 1),
          stage: stage.slug,
          command: publicCase.command,
          casePath,
          fixtureDir,
          expectedPath: join(fixtureDir, 'expected.json'),
          endpoints,
        });
      }
    }
    if (cases.length > 0) byStage.set(stage.slug, cases);
  }
  return { byStage };
}

function writeAll(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
}

/** Why the reference solution could not make a generated case's expected output. */
export class ReferenceFailure extends CourseError {}

/**
 * Runs the course's reference solution (the course root's src/mcp.ts, through its launcher) on
 * each generated case and writes what it prints as the case's expected.json.
 */
export async function expectFromReference(cases: Case[], courseRoot: string, inputsRoot: string, start: Launcher, env: NodeJS.ProcessEnv): Promise<void> {
  await runPooled(
    cases.map((testCase) => async () => {
      // run from the course with the input where it was generated, and its endpoints, if any, played as for the student
      const here = { ...testCase, casePath: join(inputsRoot, testCase.casePath) };
      const { result, endpoints } = await runWithEndpoints(here, { runRoot: courseRoot, launcher: start, env, limits: DEFAULT_LIMITS }, playingOf(testCase));
      const protocol = endpoints.flatMap((endpoint) => endpoint.report?.diagnoses ?? [])[0]?.message;
      if (result.exitCode !== 0 || result.timeLimit || result.flooded || result.outOfMemory || protocol !== undefined) {
        const said =
          protocol ??
          result.stderr
            .toString('utf8')
            .trim()
            .split('\n')
            .find((line) => /error/i.test(line)) ??
          '';
        throw new ReferenceFailure(
          `the reference solution (${join(courseRoot, 'src', 'mcp.ts')}) failed on the generated case ${testCase.casePath}` +
            `${said ? `: ${said}` : ''} (pass --random 0 to grade without generated cases)`,
        );
      }
      writeFileSync(testCase.expectedPath, result.stdout);
    }),
    CORES,
  );
}
