// A student whose grading never ends: every case of theirs computes forever, under a per-case limit far
// longer than a class can wait (as a grader thread made to work for minutes by a student's output would
// be). Their grading is stopped at the bound a student's grading has in CPU time (the grader's and its
// programs' together), which makes their row an error that says so; the students after them are graded,
// the gradebook is written, and nothing of the stopped grading is left running.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readGradebook } from '../../harness/classroom/gradebook.ts';
import { cleanUp, folder, leftBehind, REFERENCE, runCi } from '../ci/helpers.ts';
import { repository, roster, url } from '../classroom/helpers.ts';
import { courseCopy, trimCourse } from '../helpers/cli.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const forever = `if (process.argv[2] === 'mcp-frame') for (;;);\n${REFERENCE}`;

describe('stops-the-gradebook: one student cannot hold up a class', () => {
  it("a grading past the student's bound is stopped, their row an error; the next student is graded", async () => {
    const students = [
      { id: 'spin', repo: url(repository([{ files: { 'src/mcp.ts': forever } }])) },
      { id: 'ada', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
    ];
    const out = join(folder({}), 'gradebook');
    const args = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0', '--seed', '5', '--timeout', '600', '--student-cpu', '12'];
    const run = await runCi(['classroom', '--roster', join(roster(students), 'roster.csv'), '--out', out, ...args], { cwd: COURSE, report: false });
    expect(run.code, run.stdout).toBe(2);
    const book = readGradebook(join(out, 'gradebook.json'));
    expect(book.rows.map((row) => [row.student, row.status, row.reason])).toEqual([
      ['spin', 'error', "its grading went past the bound of 12 s of CPU time a student's grading has, and was stopped"],
      ['ada', 'pass', ''],
    ]);
    expect(await leftBehind(run.tmp)).toEqual([]);
  });
});
