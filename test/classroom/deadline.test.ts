// The deadline, from what can be known: the commit graded is the last whose date (the student's git's) is
// before it, and the gradebook says so, counts the commits after it, and sets GitHub Classroom's own
// submission_timestamp beside it, where that is later than the deadline (a backdated commit).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, REFERENCE } from '../ci/helpers.ts';
import { courseCopy, REPO, runCli, trimCourse } from '../helpers/cli.ts';
import { repository, roster, url } from './helpers.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0', '--seed', '9'];
const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
const DEADLINE = '2026-12-01T00:00:00Z';

type Row = Record<string, string>;

describe('the deadline in the gradebook', () => {
  it('says which rule chose the commit, how many came after it, and when GitHub Classroom says it was submitted', async () => {
    // the reference before the deadline, the starter after it
    const late = repository([
      { files: { 'src/mcp.ts': REFERENCE }, date: '2026-11-30T12:00:00Z' },
      { files: { 'src/mcp.ts': STARTER }, date: '2026-12-02T12:00:00Z' },
    ]);
    // made after the deadline, its dates (author and committer) set before it: git cannot tell
    const backdated = repository([{ files: { 'src/mcp.ts': REFERENCE }, date: '2026-11-29T12:00:00Z' }]);
    const newest = repository([{ files: { 'src/mcp.ts': REFERENCE } }]);
    const dir = roster([
      { id: 'ada', repo: url(late), deadline: DEADLINE, submitted: '2026-11-30 12:05:00 UTC' },
      { id: 'bea', repo: url(backdated), deadline: DEADLINE, submitted: '2026-12-03 10:00:00 UTC' },
      { id: 'cyd', repo: url(newest) },
      { id: 'dov', repo: url(newest), submitted: 'yesterday' },
    ]);
    const out = join(dir, 'gradebook');
    const run = await runCli(['classroom', '--roster', join(dir, 'roster.csv'), '--out', out, ...QUICK], { cwd: COURSE });
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    const rows = parse(readFileSync(join(out, 'gradebook.csv')), { columns: true, bom: true }) as Row[];
    const facts = (row: Row) => [row.student, row.status, row.points, row.deadline, row.deadline_rule, row.submitted_at, row.later_commits, row.reason];
    expect(rows.map(facts)).toEqual([
      [
        'ada',
        'pass',
        '10',
        '2026-12-01T00:00:00.000Z',
        'commit date before deadline',
        '2026-11-30T12:05:00.000Z',
        '1',
        "1 later commit on its default branch, dated after the deadline by the student's git",
      ],
      [
        'bea',
        'pass',
        '10',
        '2026-12-01T00:00:00.000Z',
        'commit date before deadline',
        '2026-12-03T10:00:00.000Z',
        '0',
        "GitHub Classroom's submission_timestamp 2026-12-03T10:00:00.000Z is after the deadline 2026-12-01T00:00:00.000Z, though the commit graded is dated 2026-11-29T12:00:00+00:00 by the student's git",
      ],
      ['cyd', 'pass', '10', '', 'newest commit', '', '0', ''],
      ['dov', 'pass', '10', '', 'newest commit', '', '0', 'its submission_timestamp "yesterday" is not a date and time'],
    ]);
  });
});
