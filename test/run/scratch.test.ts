// A grader killed outright (SIGKILL) cannot remove its scratch folders; the next grader does: those of
// a grader of its pid namespace that no longer runs, and no other (a running process's, another
// namespace's, a folder not named as the grader names them).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopy, REPO, runCli, trimCourse } from '../helpers/cli.ts';

const course = courseCopy();
trimCourse(course);
const temporary = mkdtempSync(join(tmpdir(), 'scratch-tmp-'));
afterAll(() => {
  rmSync(course, { recursive: true, force: true });
  rmSync(temporary, { recursive: true, force: true });
});

const namespace = existsSync('/proc/self/ns/pid') ? /\d+/.exec(readlinkSync('/proc/self/ns/pid'))?.[0] : undefined;
const graders = () => readdirSync(temporary).filter((name) => name.startsWith('theinference-'));

describe.skipIf(namespace === undefined)('scratch folders', () => {
  it("are removed by the next grader when theirs was killed outright, and no one else's", async () => {
    // a watch session: its cases' copies stay while it waits for a save, and so do the copies of the
    // course its programs started ahead are shown (root-copies.ts)
    const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), 'test', '--stage', '1', '--watch', '--runs', '10', '--seed', '3'], {
      cwd: course,
      env: { ...process.env, NO_COLOR: '1', TMPDIR: temporary },
    });
    let output = '';
    const exit = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('[watch] waiting for changes')) resolve();
      }),
    );
    // the next grading's programs are started once the verdict is out: killed once one is
    while (!graders().some((name) => name.startsWith('theinference-root-'))) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGKILL');
    await exit;
    const killed = graders();
    expect(killed.length).toBeGreaterThan(0);
    for (const name of killed) expect(name).toMatch(new RegExp(`^theinference-[a-z]+-${namespace}-${child.pid}-`));

    const running = `theinference-case-${namespace}-${process.pid}-Abc123`; // this test's process runs
    const elsewhere = `theinference-case-1${namespace}-${child.pid}-Abc123`; // another pid namespace's
    const unnamed = 'theinference-notes';
    for (const name of [running, elsewhere, unnamed]) mkdirSync(join(temporary, name));

    const run = await runCli(['test', '--stage', '1', '--case', 'mcp-frame/*'], { cwd: course, env: { TMPDIR: temporary } });
    expect(run.code).toBe(0);
    expect(graders().sort()).toEqual([running, elsewhere, unnamed].sort());
    for (const name of [running, elsewhere, unnamed]) rmSync(join(temporary, name), { recursive: true });
  });

  // On a machine its users share, a dead grader's folder may be another user's, which this one cannot
  // remove: it is left, and the grading goes on. (An immutable file stands for it: root removes anyone's.)
  it('that cannot be removed are left, and the grading goes on', async () => {
    const dead = spawnSync('true').pid;
    const theirs = join(temporary, `theinference-case-${namespace}-${dead}-Abc123`);
    mkdirSync(theirs);
    writeFileSync(join(theirs, 'kept'), '');
    const locked = spawnSync('chattr', ['+i', join(theirs, 'kept')]).status === 0;
    try {
      if (!locked) return; // no immutable files here (not root, or a file system without them)
      const run = await runCli(['test', '--stage', '1', '--case', 'mcp-frame/*'], { cwd: course, env: { TMPDIR: temporary } });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(graders()).toEqual([`theinference-case-${namespace}-${dead}-Abc123`]);
    } finally {
      spawnSync('chattr', ['-i', join(theirs, 'kept')]);
      rmSync(theirs, { recursive: true, force: true });
    }
  });
});
