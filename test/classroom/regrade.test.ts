// One student graded again into a class's gradebook (`classroom --regrade`), after their repository
// changed: their row and folders are the new grading's, every other student's row and files are kept
// byte for byte, and the gradebook is the one a grading of the whole class as it is now makes. A student
// the roster does not name, or a folder with no gradebook, is refused before anything is written.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Gradebook } from '../../harness/classroom/gradebook.ts';
import { cleanUp, folder, REFERENCE } from '../ci/helpers.ts';
import { courseCopy, REPO, runCli, trimCourse } from '../helpers/cli.ts';
import { head, repository, roster, url } from './helpers.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0', '--seed', '5'];
const bea = repository([{ files: { 'src/mcp.ts': STARTER } }]);
const CLASS = [
  { id: 'ada', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
  { id: 'bea', repo: url(bea) },
  { id: 'cyd', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
  // never accepted the assignment: a row not graded, kept as it is too
  { id: 'dan', repo: '' },
];
const LIST = join(roster(CLASS), 'roster.csv');

/** Every file under `dir`, by its path there, with its bytes. */
function files(dir: string): Map<string, Buffer> {
  const found = new Map<string, Buffer>();
  const walk = (path: string) => {
    for (const name of readdirSync(join(dir, path))) {
      const inner = path === '' ? name : `${path}/${name}`;
      if (statSync(join(dir, inner)).isDirectory()) walk(inner);
      else found.set(inner, readFileSync(join(dir, inner)));
    }
  };
  walk('');
  return found;
}

const book = (out: string) => JSON.parse(readFileSync(join(out, 'gradebook.json'), 'utf8')) as Gradebook;
const csvLines = (out: string) => readFileSync(join(out, 'gradebook.csv'), 'utf8').split('\r\n');
const classroom = (out: string, ...args: string[]) => runCli(['classroom', '--roster', LIST, '--out', out, ...QUICK, ...args], { cwd: COURSE });

describe('classroom --regrade', () => {
  const out = join(folder({}), 'gradebook');
  let before: Map<string, Buffer>;

  it('grades one student again, keeping every other row and file as it was', async () => {
    const first = await classroom(out, '--jobs', '2');
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(book(out).rows.map((row) => row.status)).toEqual(['pass', 'fail', 'pass', 'not graded']);
    // what the earlier grading of bea left, which a new one would not write
    writeFileSync(join(out, 'teacher/bea/grading-2.txt'), 'from an earlier grading\n');
    before = files(out);
    const beforeBook = book(out);
    const beforeCsv = csvLines(out);

    // bea mends her client after the grading
    writeFileSync(join(bea, 'src/mcp.ts'), REFERENCE);
    execFileSync('git', ['commit', '-qam', 'mended'], { cwd: bea });
    const again = await classroom(out, '--regrade', 'bea');
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('grading 1 of 4 students again (3 kept as they are) with --seed 5');
    expect(again.stdout).not.toMatch(/^ {2}. (ada|cyd|dan)/m);

    const after = book(out);
    expect([after.rows[1]!.status, after.rows[1]!.commit, after.rows[1]!.points?.earned]).toEqual(['pass', head(bea), 10]);
    expect(after.rows[1]!.commit).not.toBe(beforeBook.rows[1]!.commit);
    for (const index of [0, 2, 3]) expect(JSON.stringify(after.rows[index])).toBe(JSON.stringify(beforeBook.rows[index]));
    expect({ ...after, rows: [] }).toEqual({ ...beforeBook, rows: [] });
    const csv = csvLines(out);
    expect(csv[2]).not.toBe(beforeCsv[2]);
    expect([csv[0], csv[1], csv[3], csv[4]]).toEqual([beforeCsv[0], beforeCsv[1], beforeCsv[3], beforeCsv[4]]);

    const now = files(out);
    for (const [path, bytes] of before) if (/^(students|teacher)\/(ada|cyd)\//.test(path)) expect(now.get(path)?.equals(bytes), path).toBe(true);
    expect([...now.keys()].filter((path) => /^(students|teacher)\/(ada|cyd)\//.test(path))).toEqual(
      [...before.keys()].filter((path) => /^(students|teacher)\/(ada|cyd)\//.test(path)),
    );
    // bea's folders are the new grading's alone
    expect(existsSync(join(out, 'teacher/bea/grading-2.txt'))).toBe(false);
    const report = JSON.parse(readFileSync(join(out, 'students/bea/results.json'), 'utf8')) as { status: string };
    expect(report.status).toBe('pass');

    // the gradebook a grading of the whole class as it is now makes
    const whole = join(folder({}), 'gradebook');
    const fresh = await classroom(whole, '--jobs', '2');
    expect(fresh.code, fresh.stdout + fresh.stderr).toBe(0);
    expect(readFileSync(join(out, 'gradebook.csv'), 'utf8')).toBe(readFileSync(join(whole, 'gradebook.csv'), 'utf8'));
    expect({ ...after, startedAt: '' }).toEqual({ ...book(whole), startedAt: '' });
    before = files(out);
  });

  it('refuses a student the roster does not name, changing nothing', async () => {
    const run = await classroom(out, '--regrade', 'bea,zed');
    expect([run.code, run.stdout, run.stderr]).toEqual([2, '', `theinference classroom: --regrade: ${LIST} names no student "zed"\n`]);
    const now = files(out);
    expect([...now.keys()]).toEqual([...before.keys()]);
    for (const [path, bytes] of before) expect(now.get(path)?.equals(bytes), path).toBe(true);
  });

  it('refuses a folder that holds no gradebook, writing nothing', async () => {
    const parent = folder({});
    const missing = join(parent, 'gradebook');
    const run = await classroom(missing, '--regrade', 'ada');
    expect([run.code, run.stdout, run.stderr]).toEqual([
      2,
      '',
      `theinference classroom: --regrade: ${missing} holds no gradebook: grade the class into it first\n`,
    ]);
    expect(readdirSync(parent)).toEqual([]);
  });
});
