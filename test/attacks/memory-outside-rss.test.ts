// Memory no process's resident size shows: a file in a tmpfs (the sandbox's /dev/shm, its /tmp) and a
// memfd hold pages in RAM that the RSS of every process leaves out. A case that fills any of them past
// --memory is stopped for memory or refused it, never passed: with --jobs, such cases together would
// be the kernel's OOM killer for the grader and every other case. Graded as CI grades, in each way this
// machine can count a case's memory: a cgroup's count (where the grader can make one here) and the
// grader's own (what GitHub's runners give).
import { existsSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { MEMORY_COUNTED_AS, memoryCgroupsAvailable } from '../../harness/run/cgroup.ts';
import { courseCopy, trimCourse } from '../helpers/cli.ts';
import { checks, cleanUp, leftBehind, leftInTmp, runCi, submission } from '../ci/helpers.ts';

/** A case of each command of stage 1: each fills alike in every case. */
const course = courseCopy();
trimCourse(course);
afterAll(() => {
  cleanUp();
  rmSync(course, { recursive: true, force: true });
});

/** Under program.ts (argv: <command> <case>), never in the property runner. */
const UNDER_PROGRAM = `const underProgram = ['mcp-frame', 'mcp-config'].includes(process.argv[2] ?? '');`;
/** The limit: above what the reference's processes hold, below that plus a full /tmp (64 MiB). */
const MEMORY_MIB = 96;
const PYTHON = '/usr/bin/python3';
/** Stage 1, few property runs, no generated cases; time enough for the wall backstop to come only long after a poll. */
const STAGE_1 = ['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '3', '--random', '0', '--timeout', '2'];

/** The ways this machine counts a case's memory: always the grader's own; a cgroup's where it gives one. */
const WAYS: { counted: 'cgroup' | 'resident'; env: NodeJS.ProcessEnv }[] = [
  ...(memoryCgroupsAvailable() ? [{ counted: 'cgroup' as const, env: {} }] : []),
  { counted: 'resident', env: { THEINFERENCE_CGROUP: 'off' } },
];

/** Stage 1's cases of `submitted`, graded under --memory MEMORY_MIB with the given environment. */
async function grade(submitted: string, env: NodeJS.ProcessEnv) {
  const run = await runCi([...STAGE_1, '--memory', String(MEMORY_MIB), '--submission', submitted], { cwd: course, env });
  expect(await leftBehind(run.tmp)).toEqual([]);
  expect(leftInTmp(run.tmp)).toEqual([]);
  return { run, cases: checks(run.report).filter((check) => check.origin === 'public') };
}

/** Every case crashed, saying `message`. */
function expectStopped(cases: ReturnType<typeof checks>, message: string): void {
  expect(cases.map((check) => [check.status, check.message])).toEqual([
    ['crash', message],
    ['crash', message],
  ]);
}

/** The verdict of a case stopped for its memory, as counted. */
const stoppedFor = (counted: 'cgroup' | 'resident') => `used more than ${MEMORY_MIB} MiB of memory (${MEMORY_COUNTED_AS[counted]}) and was stopped`;

describe.each(WAYS)('memory outside RSS, counted by $counted', ({ counted, env }) => {
  it(`the reference passes under --memory ${MEMORY_MIB}: the limit leaves a correct program its room`, async () => {
    const { run, cases } = await grade(submission(''), env);
    expect(run.report?.limits).toMatchObject({ memoryBytes: MEMORY_MIB * 1024 * 1024, memoryCounted: counted });
    expect(cases.map((check) => check.status)).toEqual(['pass', 'pass']);
  });

  it('fills /dev/shm with 1 GiB: refused, /dev is read-only', async () => {
    const prelude = `import { closeSync as closeShm, openSync as openShm, writeSync as writeShm } from 'node:fs';
${UNDER_PROGRAM}
if (underProgram) {
  const chunk = Buffer.alloc(1024 * 1024, 1);
  try {
    const fd = openShm('/dev/shm/fill-' + process.pid, 'w');
    for (let i = 0; i < 1024; i++) writeShm(fd, chunk);
    closeShm(fd);
  } catch (error) {
    throw new Error('refused /dev/shm: ' + (error as NodeJS.ErrnoException).code);
  }
}`;
    const { cases } = await grade(submission(prelude), env);
    expectStopped(cases, 'exited with code 1: Error: refused /dev/shm: EROFS');
  });

  it.runIf(existsSync(PYTHON))(`fills a memfd with 1 GiB: ${counted === 'cgroup' ? 'stopped for memory' : 'refused, by the seccomp filter'}`, async () => {
    const fill = `import os
fd = os.memfd_create("fill")
chunk = b"x" * (1024 * 1024)
for _ in range(1024):
    os.write(fd, chunk)`;
    const prelude = `import { execFileSync as runFill } from 'node:child_process';
${UNDER_PROGRAM}
if (underProgram) {
  try {
    runFill(${JSON.stringify(PYTHON)}, ['-c', ${JSON.stringify(fill)}], { stdio: 'pipe' });
  } catch (error) {
    const said = String((error as { stderr?: Buffer }).stderr ?? '').trim().split('\\n').pop();
    throw new Error('refused memfd: ' + (said || (error as { signal?: string }).signal));
  }
}`;
    const { cases } = await grade(submission(prelude), env);
    expectStopped(
      cases,
      counted === 'cgroup' ? stoppedFor('cgroup') : 'exited with code 1: Error: refused memfd: PermissionError: [Errno 1] Operation not permitted',
    );
  });

  it('keeps 60 MiB in /tmp: stopped for memory', async () => {
    const prelude = `import { writeFileSync as writeTmp } from 'node:fs';
${UNDER_PROGRAM}
if (underProgram) {
  writeTmp('/tmp/fill', Buffer.alloc(60 * 1024 * 1024, 1));
  // keeps it there, using no CPU, until it is stopped
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
}`;
    const { cases } = await grade(submission(prelude), env);
    expectStopped(cases, stoppedFor(counted));
  });
});
