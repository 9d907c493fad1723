// Each sandboxed program's memory cgroup (where this machine lets the grader make one: here, cgroup v1's
// memory controller; not GitHub's runners, whose cgroup v2 is not theirs to write): what the kernel
// charges to it is held to the limit, and a kill for it is the program's verdict; it is removed when the
// program ends, the grader's folder of them when the grader exits, and a killed grader's by the next.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { memoryCgroupsAvailable, programCgroupsFolder } from '../../harness/run/cgroup.ts';
import { jailFor } from '../../harness/run/sandbox.ts';
import { DEFAULT_LIMITS, runCommand } from '../../harness/run/spawn.ts';
import { cleanUp, folder } from '../ci/helpers.ts';
import { REPO } from '../helpers/cli.ts';

afterAll(cleanUp);

/** The programs' cgroups still in this grader's folder, once those on their way out are gone (a program's
 *  is removed as its last process ends, just after the program's result). */
async function cgroupsLeft(): Promise<string[]> {
  const left = () => readdirSync(programCgroupsFolder()!, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  for (let look = 0; look < 100 && left().length > 0; look++) await new Promise((resolve) => setTimeout(resolve, 50));
  return left().map((entry) => entry.name);
}

/** `script` run by node in a sandbox, under a memory limit. */
function inSandbox(script: string, memoryBytes: number) {
  const root = folder({ 'program.ts': '// driver\n' });
  const start = jailFor(root, { sandbox: true }).wrap(process.execPath, ['-e', script]);
  return runCommand(start, [], { cwd: root, env: { PATH: process.env.PATH }, limits: { ...DEFAULT_LIMITS, memoryBytes }, contained: true });
}

/** A node process of its own that loads cgroup.ts, makes its folder of cgroups and runs `then` (JavaScript): what it printed. */
function grader(then: string): string {
  const script = `import { programCgroupsFolder } from ${JSON.stringify(join(REPO, 'harness/run/cgroup.ts'))};
console.log(programCgroupsFolder());
${then}`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return child.stdout.trim();
}

describe.runIf(memoryCgroupsAvailable())('a memory cgroup per program', () => {
  it('holds a file in its /tmp to the limit: the kernel kills in it, and the verdict says its cgroup stopped it', async () => {
    const result = await inSandbox(`require('node:fs').writeFileSync('/tmp/fill', Buffer.alloc(60 * 1024 * 1024, 1)); console.log('kept');`, 64 * 1024 * 1024);
    expect(result.outOfMemory).toBe('cgroup');
    expect(result.stdout.toString()).toBe('');
    expect(await cgroupsLeft()).toEqual([]);
  });

  it('lets a program that stays under it run, counting nothing of it twice', async () => {
    const result = await inSandbox(`require('node:fs').writeFileSync('/tmp/fill', Buffer.alloc(8 * 1024 * 1024, 1)); console.log('kept');`, 96 * 1024 * 1024);
    expect(result).toMatchObject({ outOfMemory: false, exitCode: 0 });
    expect(result.stdout.toString()).toBe('kept\n');
    expect(await cgroupsLeft()).toEqual([]);
  });

  it("removes a grader's folder as it exits, and a killed grader's when the next one starts", () => {
    const killed = grader(`process.kill(process.pid, 'SIGKILL');`);
    expect(existsSync(killed)).toBe(true);
    const next = grader('');
    expect(dirname(next)).toBe(dirname(killed));
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(next)).toBe(false);
  });
});
