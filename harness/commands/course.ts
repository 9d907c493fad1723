// The course as every command reads it: the nearest course.yaml at or above the working folder (or, for
// `test --feedback`, the one the grader's package publishes), its stages' `properties:` checked against
// the stages' suites and `player:` against the transports.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { COURSE_FILE, CourseError, findCourseRoot, loadCourse, type Course, type LoadOptions } from '../course.ts';
import { GRADER_ROOT } from '../grader-package.ts';
import { graderVersion } from '../report/version.ts';
import { suiteNames } from '../stages/index.ts';
import { TRANSPORT_NAMES } from '../transports/index.ts';

/** The course at `root` (by default the one the working folder is in), checked as the commands check it. */
export function courseHere(options: LoadOptions = {}, root = findCourseRoot(process.cwd())): Course {
  return loadCourse(root, { ...options, suites: suiteNames(), players: TRANSPORT_NAMES });
}

/** The course as published: the one in the grader's own package, whatever the working folder holds. */
export function publishedCourse(): Course {
  if (!existsSync(join(GRADER_ROOT, COURSE_FILE)))
    throw new CourseError(
      `--feedback grades with the course the grader's package publishes, and theinference ${graderVersion()} (${GRADER_ROOT}) has no ${COURSE_FILE}`,
    );
  return courseHere({}, GRADER_ROOT);
}
