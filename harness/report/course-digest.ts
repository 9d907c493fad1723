// Which course a report was graded with, as one digest: shards graded from different stage tables or
// different case folders deal their units differently, so merge-reports refuses to mix them.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COURSE_FILE, type Course } from '../course.ts';

/** sha256 (hex) of the course's course.yaml bytes and the sorted relative paths of its case folders. */
export function courseDigest(course: Course): string {
  const table = createHash('sha256')
    .update(readFileSync(join(course.root, COURSE_FILE)))
    .digest('hex');
  const cases = course.stages.flatMap((stage) => stage.cases.map((testCase) => testCase.casePath)).sort();
  // Each part hashed apart, so that no course.yaml text can pass for a list of case folders.
  return createHash('sha256')
    .update(`${table}\n${cases.join('\n')}`)
    .digest('hex');
}
