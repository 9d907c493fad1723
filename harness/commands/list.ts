// `theinference list`: every stage in course order, graded, with how many of its checks pass. A
// stage graded before from the same files is not graded again: its count is remembered.
import { courseHere } from './course.ts';
import { gradeStages, type StageEvents } from '../grade/stages.ts';
import { DEFAULT_RUNS } from '../defaults.ts';
import { programEnv } from '../run/env.ts';
import { checkProgram, launcher } from '../run/launcher.ts';
import { randomSeed } from './args.ts';
import { defineCommand } from './command.ts';
import { ListCache } from './list-cache.ts';
import { COURSE_CONTENT } from '../stages/index.ts';
import { ProgressLine } from '../report/progress-line.ts';

export const command = defineCommand({ name: 'list', synopsis: '', summary: 'the stages, and which pass', options: {}, run: list });

async function list(): Promise<number> {
  const course = courseHere();
  checkProgram(course.root);
  const env = programEnv();
  const start = await launcher(course.root, { bundle: true, packages: course.packages });
  const cache = new ListCache(course);
  const options = {
    runRoot: course.root,
    launcher: start,
    content: COURSE_CONTENT,
    env,
    seed: randomSeed(),
    propertyRuns: DEFAULT_RUNS,
    continueAfterFailure: true,
  };
  console.log('stages, in course order:');
  for (const [index, stage] of course.stages.entries()) {
    let count = cache.get(stage);
    const remembered = count !== undefined;
    if (count === undefined) {
      const [result] = await gradeStages([stage], options, progress(`${index + 1}. ${stage.slug}`, stage.cases.length + (stage.properties ? 1 : 0)));
      if (result === undefined) return 2;
      count = { passed: result.verdicts.filter((verdict) => verdict.status === 'pass').length, total: result.verdicts.length, at: new Date().toISOString() };
      cache.set(stage, count);
    }
    const mark = count.passed === count.total ? '✓' : '✗';
    const since = remembered ? `  (nothing changed since ${new Date(count.at).toLocaleTimeString()})` : '';
    console.log(`  ${index + 1}. ${mark} ${stage.slug.padEnd(22)} ${stage.title.padEnd(28)} ${count.passed}/${count.total} checks pass${since}`);
  }
  return 0;
}

/** On a terminal, a line that counts the checks of the stage being graded (a first run takes a while),
 *  rubbed out before the stage's own line; elsewhere nothing, so what is piped is only the list. */
function progress(stage: string, total: number): StageEvents {
  const line = new ProgressLine();
  let done = 0;
  const show = () => line.show(`  grading ${stage}: ${done}/${total} checks`);
  return {
    stageStart: show,
    verdict: () => {
      done += 1;
      show();
    },
    stageEnd: () => line.clear(),
  };
}
