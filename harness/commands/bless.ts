// `theinference bless`: the course author's way to make expected.json from the reference
// solution. All or nothing: if the reference crashes, times out or fails its property tests, or a
// case's cassette is not sound (what lint finds), nothing is written, so a broken reference or
// conversation can never become the standard students meet.
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { writeAtomically } from '../files.ts';
import { dirname, relative, resolve } from 'node:path';
import { copyHiddenInputs, loadHiddenCases, type HiddenCases } from '../ci/hidden.ts';
import { useColor } from './args.ts';
import { defineCommand, type Options, type Parsed } from './command.ts';
import type { Case, Course, Stage } from '../course.ts';
import { courseHere, stageIndex } from './course.ts';
import { formatDiagnoses } from '../cassette/index.ts';
import { runWithEndpoints } from '../grade/case.ts';
import { playingOf, type Playing } from '../grade/played.ts';
import { explainDifference } from '../grade/explain.ts';
import { detailText, differenceLines } from '../report/details.ts';
import { painter } from '../report/paint.ts';
import { DEFAULT_RUNS } from '../defaults.ts';
import { runProperties } from '../props/run.ts';
import { programEnv } from '../run/env.ts';
import { checkProgram, launcher, type Launcher } from '../run/launcher.ts';
import { CORES, runPooled } from '../run/pool.ts';
import { DEFAULT_LIMITS } from '../run/spawn.ts';
import { scratchCopy } from '../run/submission.ts';
import { COURSE_CONTENT } from '../stages/index.ts';
import { ProgressLine } from '../report/progress-line.ts';

interface Blessing {
  testCase: Case;
  output: Buffer;
  previous: Buffer | undefined;
}

const OPTIONS = {
  stage: { type: 'string', value: '<slug|n>', help: 'that stage only, by its name or number (default: every stage)' },
  cases: {
    type: 'string',
    value: '<dir>',
    help: "the hidden cases kept in <dir> (laid out as CI's --cases reads them), not the course's:\ntheir expected.json is written there",
  },
} as const satisfies Options;

export const command = defineCommand({
  name: 'bless',
  synopsis: '',
  summary: 'rewrite expected.json from the reference solution (course authors)',
  options: OPTIONS,
  run: bless,
});

async function bless({ values }: Parsed<typeof OPTIONS>): Promise<number> {
  const course = courseHere({ allowMissingExpected: true });
  checkProgram(course.root);
  const chosen = values.stage === undefined ? course.stages : [course.stages[stageIndex(course, values.stage)]!];
  // Hidden cases are not the course's: their inputs go into a scratch copy the reference runs in, and
  // their expected.json beside them in <dir>; nothing of them is written into the course.
  const hidden = values.cases === undefined ? undefined : loadHiddenCases(values.cases, course, { allowMissingExpected: true });
  if (hidden === undefined) return blessStages(chosen, course.root, course.packages, undefined);
  const stages = chosen.flatMap((stage) => (hidden.byStage.has(stage.slug) ? [{ ...stage, cases: hidden.byStage.get(stage.slug)! }] : []));
  return blessOutside(course, stages, hidden, resolve(values.cases!));
}

/** Blesses cases kept outside the course (hidden ones; a case `new-case` is making): the reference runs
 *  on them in a scratch copy of the course that holds their inputs (`outside.sources`), and each
 *  expected.json is written at its case's expectedPath. `hiddenDir`: the folder the last line names. */
export async function blessOutside(course: Course, stages: readonly Stage[], outside: HiddenCases, hiddenDir: string | undefined): Promise<number> {
  const scratch = scratchCopy(course.root, course.root);
  try {
    copyHiddenInputs(outside, scratch.root);
    return await blessStages(stages, scratch.root, course.packages, hiddenDir);
  } finally {
    scratch.remove();
  }
}

/** Runs the reference on every case of `stages` in `runRoot`; writes each expected.json that changed, or
 *  none. `hiddenDir`: the hidden cases' folder, which the last line names, when they are not the course's. */
async function blessStages(stages: readonly Stage[], runRoot: string, packages: readonly string[], hiddenDir: string | undefined): Promise<number> {
  const env = programEnv();
  const color = useColor(false);
  // Blessing sets the standard: the reference runs through your_program.sh itself, no shortcut.
  const start = await launcher(runRoot, { bundle: false, packages });
  const blessings: Blessing[] = [];
  const refusals: string[] = [];
  // the reference through your_program.sh, case by case: a whole course takes minutes
  const progress = new ProgressLine();

  for (const [at, stage] of stages.entries()) {
    const step = `  ${stages.length > 1 ? `${at + 1}/${stages.length} ` : ''}${stage.slug}`;
    if (stage.properties !== undefined) progress.show(`${step}: checking the reference's properties`);
    refusals.push(...(await propertyFailures(stage, runRoot, start, env)));
    const limits = { ...DEFAULT_LIMITS, timeoutMs: stage.timeoutMs };
    // an expected output is only as sound as the conversations it was played from; each recording is named
    // by its path from here, as what is said of it names it
    const playing = stage.cases.map((testCase) => playingOf(testCase, undefined, (path) => relative(process.cwd(), path)));
    refusals.push(...(await unsoundCassettes(stage.cases, playing)));
    let ran = 0;
    progress.show(`${step}: the reference ran ${ran}/${stage.cases.length} cases`);
    await runPooled(
      stage.cases.map((testCase, index) => () => runWithEndpoints(testCase, { runRoot, launcher: start, env, limits }, playing[index]!)),
      CORES,
      ({ result, endpoints }, index) => {
        progress.show(`${step}: the reference ran ${(ran += 1)}/${stage.cases.length} cases`);
        const testCase = stage.cases[index]!;
        const name = relative('cases', testCase.casePath);
        const broken = endpoints.flatMap(({ report }, at) =>
          report && report.diagnoses.length > 0
            ? [`${name}: the reference broke the protocol of its cassette ${playing[index]![at]!.file}\n${indent(formatDiagnoses(report).join('\n'))}`]
            : [],
        );
        if (broken.length > 0) {
          refusals.push(...broken);
          return;
        }
        if (result.startError || result.timeLimit || result.flooded || result.signal || result.exitCode !== 0) {
          const why = result.timeLimit
            ? 'timed out'
            : result.flooded
              ? `flooded ${result.flooded}`
              : result.signal
                ? `was killed by ${result.signal}`
                : `exited with code ${result.exitCode}`;
          refusals.push(
            `${name}: the reference ${result.startError ? `could not start (${result.startError.code})` : why}\n${indent(result.stderr.toString('utf8'))}`,
          );
          return;
        }
        const previous = existsSync(testCase.expectedPath) ? readFileSync(testCase.expectedPath) : undefined;
        blessings.push({ testCase, output: result.stdout, previous });
      },
    );
  }

  progress.clear();
  if (refusals.length > 0) {
    console.error(`theinference bless: the reference solution is not fit to bless; nothing was written.\n`);
    for (const refusal of refusals) console.error(`  ✗ ${refusal.trimEnd()}`);
    return 1;
  }
  const changed = blessings.filter(({ output, previous }) => !previous?.equals(output));
  for (const { testCase, output, previous } of changed) {
    const name = relative('cases', testCase.casePath);
    if (previous === undefined) console.log(`  new      ${name} (${output.length} bytes)`);
    else console.log(`  changed  ${name}\n${indent(differenceLines(explainDifference(previous, output)!.difference, painter(color)).join('\n'))}`);
    mkdirSync(dirname(testCase.expectedPath), { recursive: true });
    writeAtomically(testCase.expectedPath, output, { overwrite: true });
  }
  console.log(summary(changed, blessings.length - changed.length, hiddenDir));
  return 0;
}

/** The last line: how many expected.json are new, changed and unchanged, the first few written named
 *  (`bless: 1 new (tools/notes), 9 unchanged`), and the hidden cases' folder when they are those. */
function summary(written: readonly Blessing[], unchanged: number, hiddenDir: string | undefined): string {
  const named = (blessings: readonly Blessing[]) => {
    const names = blessings.map(({ testCase }) => relative('cases', testCase.casePath));
    return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`;
  };
  const created = written.filter(({ previous }) => previous === undefined);
  const changed = written.filter(({ previous }) => previous !== undefined);
  const parts = [
    ...(created.length > 0 ? [`${created.length} new (${named(created)})`] : []),
    ...(changed.length > 0 ? [`${changed.length} changed (${named(changed)})`] : []),
    ...(unchanged > 0 || written.length === 0 ? [`${unchanged} unchanged`] : []),
  ];
  const where = hiddenDir === undefined ? '' : ` (the hidden cases in ${relative(process.cwd(), hiddenDir) || '.'})`;
  return `bless${where}: ${parts.join(', ')}`;
}

/** What lint finds in the cassettes `cases` are played from, a line each, naming the file and its line. */
async function unsoundCassettes(cases: readonly Case[], playing: readonly (readonly Playing[])[]): Promise<string[]> {
  const found = await Promise.all(
    cases.map(async (testCase, index) => {
      const each = await Promise.all(
        playing[index]!.map(async ({ file, lint }) =>
          (await lint()).map(
            (problem) =>
              `${relative('cases', testCase.casePath)}: its cassette is not sound (theinference lint)\n${indent(`${file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`)}`,
          ),
        ),
      );
      return each.flat();
    }),
  );
  return found.flat();
}

async function propertyFailures(stage: Stage, courseRoot: string, start: Launcher, env: NodeJS.ProcessEnv): Promise<string[]> {
  const suite = stage.properties === undefined ? undefined : COURSE_CONTENT.suite(stage.properties);
  if (!suite) return [];
  const verdicts = await runProperties({
    suite,
    stage: stage.slug,
    modulePath: `${courseRoot}/src/mcp.ts`,
    bundled: start.module,
    cwd: courseRoot,
    env,
    seed: Math.floor(Math.random() * 2 ** 31),
    runs: DEFAULT_RUNS,
    timeoutMs: stage.timeoutMs,
  });
  return verdicts.filter((verdict) => verdict.status !== 'pass').map((verdict) => `${verdict.name}: ${verdict.message}\n${indent(detailText(verdict) ?? '')}`);
}

function indent(text: string): string {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => `      ${line}`)
    .join('\n');
}
