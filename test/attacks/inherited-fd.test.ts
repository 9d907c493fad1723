// A grader started with a file descriptor open that it never meant to pass (flock(1)'s idiom: a lock
// file held open on fd 200 around the command; a CI runner's own pipes) would hand it to every program
// it starts, and a program could read the host's file through it: Node's spawn sets only the fds it is
// given, and bubblewrap closes none. The grader closes them before it starts anything. Graded as CI
// grades, by the real CLI started with fd 200 open on a secret file: a program that reads fd 200, or
// /proc/self/fd/200, gets nothing, and the reference's verdicts stand.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ResultsReport } from '../../harness/report/model.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';
import { checks, cleanUp, folder, leftBehind, submission } from '../ci/helpers.ts';

const course = courseCopy();
trimCourse(course);
afterAll(() => {
  cleanUp();
  rmSync(course, { recursive: true, force: true });
});

const SECRET = 'secret-through-fd-5e1f';
const FD = 200;

/** `theinference <args>` in `cwd`, started with fd FD open on `file`: its exit code and output. */
function runWithFd(args: string[], cwd: string, file: string, tmp: string): Promise<{ code: number | null; stdout: string }> {
  const fd = openSync(file, 'r');
  const stdio: ('pipe' | 'ignore' | number)[] = ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(FD - 3).fill('ignore'), fd];
  const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp }, stdio });
  closeSync(fd);
  let stdout = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr?.resume();
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout })));
}

describe('inherited-fd', () => {
  it(`a program reads nothing through an fd the grader inherited (${FD}): the reference's verdicts stand, and the secret is nowhere`, async () => {
    const secretFile = join(folder({ 'secret.txt': `${SECRET}\n` }), 'secret.txt');
    // in every program made of the submission (each case's, the property oracle's), as it loads
    const prelude = `import { readFileSync as readInherited, readSync as readFd } from 'node:fs';
for (const read of [() => readInherited('/proc/self/fd/${FD}', 'utf8'), () => { const bytes = Buffer.alloc(256); return bytes.subarray(0, readFd(${FD}, bytes, 0, 256, 0)).toString(); }]) {
  let got = '';
  try {
    got = read();
  } catch {
    // closed: nothing to read
  }
  if (got !== '') throw new Error('read through an inherited fd: ' + got);
}`;
    const tmp = folder({});
    const reportPath = join(tmp, 'results.json');
    const run = await runWithFd(
      ['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '3', '--random', '0', '--submission', submission(prelude), '--report', reportPath],
      course,
      secretFile,
      tmp,
    );
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as ResultsReport;
    expect(run.stdout).not.toContain(SECRET);
    expect(readFileSync(reportPath, 'utf8')).not.toContain(SECRET);
    expect(checks(report).map((check) => [check.name, check.status, check.message])).toEqual(
      checks(report).map((check) => [check.name, 'pass', expect.any(String)]),
    );
    expect(report).toMatchObject({ status: 'pass', sandbox: 'bwrap' });
    expect(run.code).toBe(0);
    expect(await leftBehind(tmp)).toEqual([]);
  });
});
