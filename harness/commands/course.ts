// The course as every command reads it: the nearest course.yaml at or above the working folder,
// its stages' `properties:` checked against the stages' suites and `player:` against the transports.
import { findCourseRoot, loadCourse, type Course, type LoadOptions } from '../course.ts';
import { suiteNames } from '../stages/index.ts';
import { TRANSPORT_NAMES } from '../transports/index.ts';

/** The course at `root` (by default the one the working folder is in), checked as the commands check it. */
export function courseHere(options: LoadOptions = {}, root = findCourseRoot(process.cwd())): Course {
  return loadCourse(root, { ...options, suites: suiteNames(), players: TRANSPORT_NAMES });
}
