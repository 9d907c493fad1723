// A roster as GitHub Classroom writes it, graded whole: a student who never linked an identity (their
// roster_identifier blank) is named by their GitHub login, and a row naming no one is that row's error,
// while everyone else is graded.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, REFERENCE } from '../ci/helpers.ts';
import { courseCopy, runCli, trimCourse } from '../helpers/cli.ts';
import { repository, roster, url } from './helpers.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0', '--seed', '9'];
const reference = url(repository([{ files: { 'src/mcp.ts': REFERENCE } }]));

type Row = Record<string, string>;
const csvRows = (out: string) => parse(readFileSync(join(out, 'gradebook.csv')), { columns: true, bom: true }) as Row[];

describe('a roster with blank identifiers', () => {
  it('names a student with no identifier by their GitHub login, and makes a row naming no one its own error', async () => {
    const dir = roster([
      { id: 'ada', repo: reference },
      { id: '', username: 'bo-gh', repo: reference },
      { id: '', username: '', repo: reference },
      { id: 'cyd', repo: reference },
    ]);
    const out = join(dir, 'gradebook');
    const run = await runCli(['classroom', '--roster', join(dir, 'roster.csv'), '--out', out, ...QUICK], { cwd: COURSE });
    expect(run.stderr).toBe('');
    // the row naming no one could not be graded: exit 2, as for any student the grader could not grade
    expect(run.code, run.stdout).toBe(2);
    const rows = csvRows(out);
    expect(rows.map((row) => [row.student, row.status, row.points])).toEqual([
      ['ada', 'pass', '10'],
      ['bo-gh', 'pass', '10'],
      ['', 'error', ''],
      ['cyd', 'pass', '10'],
    ]);
    expect(rows[0]!.reason).toBe('');
    expect(rows[1]!.reason).toBe('named by github_username: its roster_identifier is blank');
    expect(rows[2]!.reason).toBe('roster.csv:4 names no student ("roster_identifier" or "github_username" blank)');
    expect(rows[1]!.report).toBe('students/bo-gh/results.json');
  });
});

describe('a gradebook a learning platform imports', () => {
  it('keeps identifiers as given, with a github_username column, a byte order mark, and folders that keep every script', async () => {
    const dir = roster([
      { id: '王小明', username: 'wang-gh', repo: reference },
      { id: 'Zoë Ñúñez', username: 'zoe-gh', repo: reference },
      { id: '-ada', username: 'ada-gh', repo: reference },
      { id: '@bea', username: 'bea-gh', repo: reference },
      { id: '=HYPERLINK("http://evil.example")', username: 'eve-gh', repo: reference },
      { id: 'a/b', username: 'ab1', repo: reference },
      { id: 'a-b', username: 'ab2', repo: reference },
      { id: '..', username: 'dots', repo: reference },
    ]);
    const out = join(dir, 'gradebook');
    const run = await runCli(['classroom', '--roster', join(dir, 'roster.csv'), '--out', out, ...QUICK], { cwd: COURSE });
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    const text = readFileSync(join(out, 'gradebook.csv'), 'utf8');
    // Excel on Windows reads UTF-8 only after a byte order mark
    expect(text.startsWith('\ufeffstudent,github_username,')).toBe(true);
    // a plain identifier is the roster's, quoted, whatever its first character; a formula is still guarded
    expect(text).toContain('\r\n"-ada","ada-gh",');
    expect(text).toContain('\r\n"@bea","bea-gh",');
    expect(text).toContain('\r\n"\'=HYPERLINK(""http://evil.example"")","eve-gh",');
    const rows = csvRows(out);
    expect(rows.map((row) => [row.student, row.github_username, row.status])).toEqual([
      ['王小明', 'wang-gh', 'pass'],
      ['Zoë Ñúñez', 'zoe-gh', 'pass'],
      ['-ada', 'ada-gh', 'pass'],
      ['@bea', 'bea-gh', 'pass'],
      ['\'=HYPERLINK("http://evil.example")', 'eve-gh', 'pass'],
      ['a/b', 'ab1', 'pass'],
      ['a-b', 'ab2', 'pass'],
      ['..', 'dots', 'pass'],
    ]);
    // each student's folder: their name in their script, one name (no separator, no ..), apart from the others
    expect(rows.map((row) => row.report)).toEqual(
      ['王小明', 'Zoë-Ñúñez', 'ada', 'bea', 'HYPERLINK-http-evil.example-', 'a-b', 'a-b-2', 'student'].map((name) => `students/${name}/results.json`),
    );
    for (const row of rows) expect(existsSync(join(out, row.report!)), row.report).toBe(true);
  });
});
