// The course as every command reads it: the nearest course.yaml at or above the working folder (or, for
// `test --feedback`, the one the grader's package publishes), its stages' `properties:` checked against
// the stages' suites and its endpoints' protocols and transports against the plug-ins; and a stage named
// on the command line.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COURSE_FILE, CourseError, findCourseRoot, loadCourse, type Course, type LoadOptions } from '../course.ts';
import { UsageError } from '../errors.ts';
import { GRADER_ROOT } from '../grader-package.ts';
import { graderVersion } from '../report/version.ts';
import { suiteNames } from '../stages/index.ts';
import { protocolTransports } from '../protocols/index.ts';

/** The course at `root` (by default the one the working folder is in), checked as the commands check it. */
export function courseHere(options: LoadOptions = {}, root = findCourseRoot(process.cwd())): Course {
  return loadCourse(root, { ...options, suites: suiteNames(), protocols: protocolTransports() });
}

/** The course as published: the one in the grader's own package, whatever the working folder holds. */
export function publishedCourse(): Course {
  if (!existsSync(join(GRADER_ROOT, COURSE_FILE)))
    throw new CourseError(
      `--feedback grades with the course the grader's package publishes, and theinference ${graderVersion()} (${GRADER_ROOT}) has no ${COURSE_FILE}`,
    );
  return courseHere({}, GRADER_ROOT);
}

/** Where in the course the stage `given` is: its slug, or its number as `list` prints it (1 for the
 *  first), since a student reads both there. Anything else is a UsageError naming what would do. */
export function stageIndex(course: Course, given: string, flag = '--stage'): number {
  const bySlug = course.stages.findIndex((stage) => stage.slug === given);
  if (bySlug >= 0) return bySlug;
  const count = course.stages.length;
  if (/^\d+$/.test(given)) {
    const number = Number(given);
    if (number >= 1 && number <= count) return number - 1;
    const numbered = course.stages.map((stage, index) => `${index + 1} ${stage.slug}`).join(', ');
    throw new UsageError(`${flag} ${given}: the course has stages 1 to ${count} (${numbered})`);
  }
  throw new UsageError(`unknown stage "${given}" (known: ${course.stages.map((stage) => stage.slug).join(', ')}; or a stage's number, 1 to ${count})`);
}
