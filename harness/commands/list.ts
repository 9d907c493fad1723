// `theinference list`: every stage in course order, graded, with how many of its checks pass.
import { findCourseRoot, loadCourse } from '../course.ts';
import { gradeStages } from '../grade/stages.ts';
import { DEFAULT_RUNS } from '../defaults.ts';
import { programEnv } from '../run/env.ts';
import { checkProgram, launcher } from '../run/launcher.ts';
import { parse, randomSeed } from './args.ts';

export async function list(args: string[]): Promise<number> {
  parse(args, {});
  const course = loadCourse(findCourseRoot(process.cwd()));
  checkProgram(course.root);
  const env = programEnv();
  const start = await launcher(course.root, { bundle: true });
  console.log('stages, in course order:');
  const options = { runRoot: course.root, launcher: start, env, seed: randomSeed(), propertyRuns: DEFAULT_RUNS, continueAfterFailure: true };
  await gradeStages(course.stages, options, {
    stageEnd(result) {
      const passed = result.verdicts.filter((verdict) => verdict.status === 'pass').length;
      const mark = result.passed ? '✓' : '✗';
      const number = course.stages.indexOf(result.stage) + 1;
      console.log(`  ${number}. ${mark} ${result.stage.slug.padEnd(22)} ${result.stage.title.padEnd(28)} ${passed}/${result.verdicts.length} checks pass`);
    },
  });
  return 0;
}
