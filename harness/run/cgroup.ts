// A memory cgroup for each sandboxed program, where the machine lets the grader make one under its own
// (cgroup v1's memory controller): the kernel then charges to it every page the program makes, what no
// process's resident size shows too (files in its /tmp, System V shared memory, memfd), holds
// it to --memory, and kills in it past that, which the grader reads back (memory.oom_control) as the
// verdict. Each grader makes its programs' cgroups in one folder named after it, removes each as its
// program ends and the folder as it exits; a grader killed outright leaves them, and the next grader
// removes those of graders of its pid namespace that no longer run, as the scratch folders are
// (scratch.ts). Elsewhere the grader counts what it can see itself (program-processes.ts), and the
// sandbox refuses what it cannot (memory-filter.ts):
// - cgroup v2 (GitHub's runners): its memory controller can be given to a child cgroup only by one
//   that holds no process itself, so the grader would have to move itself out of its own cgroup,
//   which it may do only where that cgroup was delegated to it and holds nothing else; not done;
// - THEINFERENCE_CGROUP=off, to grade as such a machine does.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mountsOf, running } from '../processes.ts';
import { pidNamespace } from '../scratch.ts';

/** How a case's memory is counted against --memory: its cgroup's count (all it makes), the grader's own
 *  (its processes' resident memory and what its tmpfs hold, read every 100 ms), or not at all (no /proc). */
export type MemoryCounted = 'cgroup' | 'resident' | 'none';

/** The words in which a verdict says which count went past the limit. */
export const MEMORY_COUNTED_AS: Record<Exclude<MemoryCounted, 'none'>, string> = {
  cgroup: "its cgroup's count: resident, in tmpfs and shared",
  resident: "the grader's count: resident and in its /tmp",
};

const PREFIX = 'theinference-';
/** How often, and how many times, the removal of a program's cgroup is tried again while its last
 *  processes are still on their way out (the sandbox's init ends just after bwrap). */
const REMOVE_RETRY_MS = 50;
const REMOVE_TRIES = 100;

/** This grader's folder of cgroups; null where it can make none. Probed once per process. */
let base: string | null | undefined;
let made = 0;

/** Whether each sandboxed program gets a memory cgroup of its own here. */
export function memoryCgroupsAvailable(): boolean {
  return cgroupBase() !== null;
}

/** This grader's folder of its programs' cgroups, where it has one. */
export function programCgroupsFolder(): string | undefined {
  return cgroupBase() ?? undefined;
}

/** How the memory of a program is counted here, in a sandbox or not. */
export function memoryCounted(sandboxed: boolean): MemoryCounted {
  if (sandboxed && memoryCgroupsAvailable()) return 'cgroup';
  return process.platform === 'linux' ? 'resident' : 'none';
}

/** One program's cgroup, made before it starts and removed when it has ended. */
export class ProgramCgroup {
  private constructor(private readonly dir: string) {}

  /** A new cgroup holding what joins it to `bytes` (none: counted only); undefined where the grader makes
   *  none. Throws where this one cannot be made although the machine gave the grader its folder. */
  static make(bytes: number | undefined): ProgramCgroup | undefined {
    const root = cgroupBase();
    if (root === null) return undefined;
    made += 1;
    const dir = join(root, String(made));
    mkdirSync(dir);
    if (bytes !== undefined) {
      writeFileSync(join(dir, 'memory.limit_in_bytes'), String(bytes));
      // where there is swap, memory and swap together: a page swapped out is still the program's
      if (existsSync(join(dir, 'memory.memsw.limit_in_bytes'))) writeFileSync(join(dir, 'memory.memsw.limit_in_bytes'), String(bytes));
    }
    return new ProgramCgroup(dir);
  }

  /** Puts a process in it: what it starts afterwards is in it too. */
  join(pid: number): void {
    writeFileSync(join(this.dir, 'cgroup.procs'), String(pid));
  }

  /** The kernel has killed a process in it for going past its limit. */
  oomKilled(): boolean {
    try {
      return /^oom_kill [1-9]/m.test(readFileSync(join(this.dir, 'memory.oom_control'), 'latin1'));
    } catch {
      return false;
    }
  }

  /** Removes it once nothing is in it: now, or as its last processes finish ending. One that outlasts the
   *  tries is removed with the grader's folder when it exits, or by the next grader. */
  remove(): void {
    let tries = 0;
    const attempt = () => {
      if (removed(this.dir) || ++tries >= REMOVE_TRIES) return;
      setTimeout(attempt, REMOVE_RETRY_MS).unref();
    };
    attempt();
  }
}

/** rmdir: true once it is gone, false while something is still in it. */
function removed(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EBUSY';
  }
}

function cgroupBase(): string | null {
  if (base !== undefined) return base;
  base = null;
  const namespace = pidNamespace();
  const own = process.env.THEINFERENCE_CGROUP === 'off' || namespace === undefined ? undefined : ownMemoryCgroup();
  if (own === undefined) return base;
  sweep(own, namespace!);
  const dir = join(own, `${PREFIX}${namespace}-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    // a kernel before 4.13 does not count its kills: the verdict could not say what stopped a program
    if (!/^oom_kill \d+$/m.test(readFileSync(join(dir, 'memory.oom_control'), 'latin1'))) {
      rmdirSync(dir);
      return base;
    }
  } catch {
    return base; // not the grader's to write (a container's, another user's): it counts memory itself
  }
  process.once('exit', () => removeFolder(dir));
  return (base = dir);
}

/** The folder of the grader's own cgroup in the v1 memory hierarchy, where that hierarchy is mounted. */
function ownMemoryCgroup(): string | undefined {
  let cgroups: string;
  try {
    cgroups = readFileSync('/proc/self/cgroup', 'latin1');
  } catch {
    return undefined; // not Linux
  }
  // `<id>:<controllers>:<path>`; v2's line is `0::<path>`
  const path = cgroups
    .split('\n')
    .map((line) => /^\d+:([^:]*):(.*)$/.exec(line))
    .find((match) => match?.[1]?.split(',').includes('memory'))?.[2];
  if (path === undefined) return undefined;
  // a mount of the hierarchy that shows the grader's cgroup (in a container, one may show only part of it)
  const mount = mountsOf('self').find(
    ({ type, superOptions, root }) => type === 'cgroup' && superOptions.includes('memory') && (root === '/' || path === root || path.startsWith(`${root}/`)),
  );
  if (mount === undefined) return undefined;
  return join(mount.mountPoint, mount.root === '/' ? path : path.slice(mount.root.length));
}

/** Removes the folders of graders of this pid namespace that no longer run. */
function sweep(own: string, namespace: string): void {
  const theirs = new RegExp(`^${PREFIX}${namespace}-(\\d+)$`);
  let names: string[];
  try {
    names = readdirSync(own);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = theirs.exec(name)?.[1];
    if (pid !== undefined && !running(Number(pid))) removeFolder(join(own, name));
  }
}

/** A grader's folder and its programs' cgroups, as far as nothing is in them any more. */
function removeFolder(dir: string): void {
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) removed(join(dir, entry.name));
    removed(dir);
  } catch {
    // gone already
  }
}
