// From a real server to a graded hidden case in one command (issue 51): `new-case --into <dir>` makes a
// case of each path's session (new-case-paths.ts) in a hidden-cases folder, and nothing in the course;
// the reference passes it, a broken solution fails it (told as a hidden case is: its verdict and hint
// in general words), and an export made afterwards holds none of it.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { followPath, PATHS, type Scratch, scratchCourse, tree } from './new-case-paths.ts';

let scratch: Scratch;
beforeAll(async () => {
  scratch = await scratchCourse();
}, 60_000);
afterAll(() => scratch?.done());

describe('new-case into a hidden folder', () => {
  it.each(PATHS)('makes a hidden $stage case of a live server in one command; the reference passes it, $broken fails it', (path) =>
    followPath(scratch, path, `kept-back-${path.stage}`, join(scratch.dir, 'hidden')),
  );

  it('an export made afterwards holds none of the hidden cases', async () => {
    const target = join(scratch.dir, 'student');
    const exported = await runCli(['export', target], { cwd: scratch.course });
    expect(exported.code, exported.stderr).toBe(0);
    const files = tree(target);
    // the export is whole (new-case.test.ts sees a course case new-case made in one)
    expect(files).toContain(join('cases', 'handshake'));
    expect(files.filter((file) => file.includes('kept-back') || file.includes('hidden-'))).toEqual([]);
    const contents = files.filter((file) => statSync(join(target, file)).isFile()).map((file) => readFileSync(join(target, file), 'utf8'));
    expect(contents.filter((content) => content.includes('kept-back'))).toEqual([]);
  });
});
