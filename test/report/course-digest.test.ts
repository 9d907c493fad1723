// The course digest in a report: the same for the same course, different when the stage table or
// the set of case folders differs, so that merge-reports can tell shards of two courses apart.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import { courseDigest } from '../../harness/report/course-digest.ts';
import { courseCopy, REPO } from '../helpers/cli.ts';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** As the grader has it, loaded (a new case folder has no expected.json yet). */
const digestOf = (root: string) => courseDigest(loadCourse(root, { allowMissingExpected: true }));

describe('courseDigest', () => {
  it('is a sha256 of course.yaml and the case folders, the same wherever the course lies', () => {
    const digest = digestOf(REPO);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const copy = courseCopy();
    copies.push(copy);
    expect(digestOf(copy)).toBe(digest);

    writeFileSync(join(copy, 'course.yaml'), `${readFileSync(join(copy, 'course.yaml'), 'utf8')}# another comment\n`);
    const edited = digestOf(copy);
    expect(edited).not.toBe(digest);

    mkdirSync(join(copy, 'cases/config-and-framing/mcp-frame/zz-new-case'));
    expect(digestOf(copy)).not.toBe(edited);
  });
});
