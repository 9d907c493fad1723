// What a memory cgroup of its own costs a sandboxed program: the CPU time (user + system) of a grader
// process and of every process it started, per program, with a cgroup per program (made, joined, its
// kills read, removed) and without one (THEINFERENCE_CGROUP=off: the grader's own count, and the seccomp
// filter bwrap loads), in the same run. The way is chosen once per grader process, so each batch runs
// in a process of its own, the two ways alternating; a batch runs its programs one after another, for a
// program that does nothing (`true`: the cost alone) and a Node start (`node -e 0`, the unit). A batch
// counts its CPU time in a cpuacct cgroup of its own (cgroup v1): bwrap never waits for its sandbox's
// init, whose time therefore reaches no parent's count. The kernel's work for a cgroup done in a kernel
// thread (its freeing) is not counted. Median of the rounds; the first warms the file cache and is not
// counted. Needs a writable cgroup v1 (memory and cpuacct), as root.
// Run: node --import tsx bench/memory.ts [rounds] [programs per batch]
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mountsOf } from '../harness/processes.ts';
import { memoryCounted } from '../harness/run/cgroup.ts';
import { jailFor } from '../harness/run/sandbox.ts';
import { DEFAULT_LIMITS, runCommand } from '../harness/run/spawn.ts';

/** A new cpuacct cgroup (cgroup v1) beside this process's own: its folder. */
function cpuAccount(name: string): string {
  const path = /^\d+:([^:]*,)?cpuacct(,[^:]*)?:(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'latin1'))?.[3];
  const mount = mountsOf('self').find((entry) => entry.type === 'cgroup' && entry.superOptions.includes('cpuacct') && entry.root === '/');
  if (path === undefined || mount === undefined) throw new Error('no cgroup v1 cpuacct hierarchy here');
  const dir = join(mount.mountPoint, path, name);
  mkdirSync(dir);
  return dir;
}

/** What the processes of a cpuacct cgroup have used, in ms. */
const usedMs = (account: string) => Number(readFileSync(join(account, 'cpuacct.usage'), 'latin1')) / 1e6;

if (process.argv[2] === '--batch') {
  // one batch: `--batch <cpuacct folder> <program> <count>`, in that cgroup (with all it starts); prints how
  // memory was counted and what the cgroup had used when its programs began
  const [account, program, count] = [process.argv[3]!, process.argv[4]!, Number(process.argv[5])];
  writeFileSync(join(account, 'cgroup.procs'), String(process.pid));
  const root = mkdtempSync(join(tmpdir(), 'bench-memory-'));
  const jail = jailFor(root, { sandbox: true });
  const command = program === 'true' ? jail.wrap('/bin/true', []) : jail.wrap(process.execPath, ['-e', '0']);
  const before = usedMs(account);
  for (let run = 0; run < count; run++) {
    const result = await runCommand(command, [], { cwd: root, env: { PATH: process.env.PATH }, limits: DEFAULT_LIMITS, contained: true });
    if (result.exitCode !== 0) throw new Error(`${program} ended with ${result.exitCode ?? result.signal}: ${result.stderr.toString()}`);
  }
  rmSync(root, { recursive: true, force: true });
  console.log(JSON.stringify({ counted: memoryCounted(true), before }));
} else {
  const rounds = Number(process.argv[2] ?? 7);
  const count = Number(process.argv[3] ?? 20);
  const ways = { cgroup: {}, 'no cgroup': { THEINFERENCE_CGROUP: 'off' } };
  const programs = ['true', 'node -e 0'];
  const times: Record<string, number[]> = {};
  for (let round = 0; round < rounds + 1; round++) {
    for (const program of programs) {
      for (const [way, env] of Object.entries(ways)) {
        const account = cpuAccount(`bench-memory-${process.pid}-${round}-${programs.indexOf(program)}-${way.length}`);
        const batch = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--batch', account, program, String(count)], {
          env: { ...process.env, ...env },
          encoding: 'utf8',
        });
        if (batch.status !== 0) throw new Error(batch.stderr);
        const { counted, before } = JSON.parse(batch.stdout) as { counted: string; before: number };
        // the last sandbox's processes may still be ending: its time is its program's
        while (readFileSync(join(account, 'cgroup.procs'), 'latin1') !== '') spawnSync('sleep', ['0.05']);
        const each = (usedMs(account) - before) / count;
        rmdirSync(account);
        if ((way === 'cgroup') !== (counted === 'cgroup'))
          throw new Error(`${way}: this machine counted ${counted} (a cgroup needs a writable cgroup v1 memory controller)`);
        if (round > 0) (times[`${program}, ${way}`] ??= []).push(each);
      }
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`a sandboxed program's CPU ms (grader and program), median of ${rounds} rounds of ${count}:`);
  for (const program of programs) {
    const [withCgroup, without] = [median(times[`${program}, cgroup`]!), median(times[`${program}, no cgroup`]!)];
    console.log(
      `  ${program.padEnd(10)} ${withCgroup.toFixed(1).padStart(6)} with a cgroup, ${without.toFixed(1).padStart(6)} without: ${(withCgroup / without).toFixed(2)}`,
    );
  }
}
