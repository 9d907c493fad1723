// `theinference list`: every stage in course order, graded, with how many of its checks pass.
import { findCourseRoot, loadCourse } from '../course.ts';
import { gradeStage } from '../grade/stage.ts';
import { DEFAULT_RUNS } from '../defaults.ts';
import { programEnv } from '../run/env.ts';
import { checkProgram, launcher } from '../run/launcher.ts';
import { parse, randomSeed, useColor } from './args.ts';

export async function list(args: string[]): Promise<number> {
  parse(args, {});
  const course = loadCourse(findCourseRoot(process.cwd()));
  checkProgram(course.root);
  const env = programEnv();
  const color = useColor(false);
  const seed = randomSeed();
  const start = await launcher(course.root, { bundle: true });
  console.log('stages, in course order:');
  for (const [index, stage] of course.stages.entries()) {
    const result = await gradeStage(stage, { root: course.root, launcher: start, env, color, seed, propertyRuns: DEFAULT_RUNS });
    const passed = result.verdicts.filter((verdict) => verdict.status === 'pass').length;
    const mark = result.passed ? '✓' : '✗';
    console.log(`  ${index + 1}. ${mark} ${stage.slug.padEnd(22)} ${stage.title.padEnd(28)} ${passed}/${result.verdicts.length} checks pass`);
  }
  return 0;
}

