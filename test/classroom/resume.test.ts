// A class's gradebook is written as each student's row is done: a run stopped half way (SIGTERM) leaves
// every row it finished, and the others say they are not graded yet; run again on the same folder, it
// grades only those, with the seed the gradebook holds. A folder holding another class's gradebook is
// refused. The second student here takes some seconds of CPU in a case, so that the stop comes while
// they are graded.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Gradebook } from '../../harness/classroom/gradebook.ts';
import { cleanUp, folder, REFERENCE } from '../ci/helpers.ts';
import { courseCopy, REPO, runCli, trimCourse } from '../helpers/cli.ts';
import { repository, roster, url } from './helpers.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const slow = `if (process.argv[2] === 'mcp-config') {
  const used = () => process.cpuUsage().user + process.cpuUsage().system;
  const until = used() + 4e6;
  while (used() < until);
}
${REFERENCE}`;
const CLASS = [
  { id: 'ada', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
  { id: 'bea', repo: url(repository([{ files: { 'src/mcp.ts': slow } }])) },
  { id: 'cyd', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
];
const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0'];

/** `classroom` until its first row is out, then stopped (SIGTERM): its exit code and output. */
function stoppedAfterFirstRow(args: string[]): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), 'classroom', ...args], { cwd: COURSE, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stopped = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (!stopped && /^ {2}✓ ada/m.test(stdout)) stopped = child.kill('SIGTERM');
    });
    child.stderr.resume();
    child.on('close', (code) => resolve({ code, stdout }));
  });
}

describe('classroom, stopped and run again', () => {
  it('keeps the rows done, and grades only the rest', async () => {
    const list = join(roster(CLASS), 'roster.csv');
    const out = join(folder({}), 'gradebook');
    const stopped = await stoppedAfterFirstRow(['--roster', list, '--out', out, '--seed', '21', ...QUICK]);
    expect(stopped.code, stopped.stdout).toBe(143);
    const book = JSON.parse(readFileSync(join(out, 'gradebook.json'), 'utf8')) as Gradebook;
    const done = book.rows.filter((row) => row.status === 'pass' || row.status === 'fail').map((row) => row.student);
    expect(done[0]).toBe('ada');
    expect(done.length).toBeLessThan(3);
    for (const row of book.rows.filter((each) => !done.includes(each.student))) expect([row.status, row.reason]).toEqual(['not graded', 'not graded yet']);
    expect(book.problems).toEqual([`${3 - done.length} of 3 students not graded yet: run classroom again with this --out to grade them`]);

    // the seed is the gradebook's: none is given
    const again = await runCli(['classroom', '--roster', list, '--out', out, ...QUICK], { cwd: COURSE });
    expect(again.code, again.stdout).toBe(0);
    expect(again.stdout).toContain(`grading ${3 - done.length} of 3 students (${done.length} graded already, kept) with --seed 21`);
    expect(again.stdout).not.toMatch(/^ {2}✓ ada/m);
    const whole = JSON.parse(readFileSync(join(out, 'gradebook.json'), 'utf8')) as Gradebook;
    expect(whole.rows.map((row) => [row.student, row.status])).toEqual([
      ['ada', 'pass'],
      ['bea', 'pass'],
      ['cyd', 'pass'],
    ]);
    expect(whole.problems).toEqual([]);
  });

  it("refuses a folder that holds another class's gradebook, or another seed's", async () => {
    const out = join(folder({}), 'gradebook');
    const first = await runCli(['classroom', '--roster', join(roster(CLASS.slice(0, 1)), 'roster.csv'), '--out', out, '--seed', '3', ...QUICK], {
      cwd: COURSE,
    });
    expect(first.code, first.stdout).toBe(0);
    const other = await runCli(['classroom', '--roster', join(roster(CLASS.slice(2)), 'roster.csv'), '--out', out, ...QUICK], { cwd: COURSE });
    expect([other.code, other.stderr]).toEqual([2, `theinference classroom: ${out} holds a gradebook of another roster: give a new or empty folder\n`]);
    const seed = await runCli(['classroom', '--roster', join(roster(CLASS.slice(0, 1)), 'roster.csv'), '--out', out, '--seed', '4', ...QUICK], { cwd: COURSE });
    expect(seed.code).toBe(2);
    expect(seed.stderr).toContain('holds a gradebook of another seed (3)');
  });
});
