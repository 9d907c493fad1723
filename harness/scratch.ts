// The grader's scratch folders in the temporary folder (case copies, bundles, submissions' copies):
// each removes its own when it exits, but a grader killed outright (SIGKILL, an out-of-memory kill,
// a machine switched off) cannot. So each folder's name carries its grader's process id and pid
// namespace, and the first scratch folder a grader makes removes every folder of a grader of its
// namespace that no longer runs, as watch mode's bundles in .theinference/ are (sweepBundles). The
// folders that are written and removed most (each program's copy of the run root: root-copies.ts)
// are made in memory where they can be (memoryFolder), and swept there the same way.
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { running } from './processes.ts';

const PREFIX = 'theinference-';
/** The pid namespace's number: a process id names a process only within it (Linux; none elsewhere, where nothing is swept). */
const NAMESPACE = pidNamespace();
/** The folders scratch folders were made in by this process, each swept before its first. */
const swept = new Set<string>();

/** A new scratch folder, `theinference-<what>-<namespace>-<pid>-XXXXXX`, in `parent` (made if need
 *  be; the temporary folder by default); its maker removes it. */
export function scratchFolder(what: string, parent = tmpdir()): string {
  if (!swept.has(parent)) {
    swept.add(parent);
    sweep(parent);
  }
  mkdirSync(parent, { recursive: true });
  return mkdtempSync(join(parent, `${PREFIX}${what}-${NAMESPACE ?? 'x'}-${process.pid}-`));
}

/** The kernel's number for tmpfs (statfs(2)). */
const TMPFS = 0x01021994;
/** Room a tmpfs must have left to be used (a program's copy of the run root through tsx is 12 MiB). */
const ROOM = 256 * 2 ** 20;
let memory: string | undefined;

/** Where scratch folders made and removed for every program go: /dev/shm, where it is a tmpfs with room
 *  (Linux's, a CI runner's; a container's is often 64 MiB) and TMPDIR names no folder of its own (a test's,
 *  whose leftovers it counts); else the temporary folder. On a disk, making and removing a program's
 *  files cost five times more. */
export function memoryFolder(): string {
  if (memory !== undefined) return memory;
  memory = tmpdir();
  if (process.env.TMPDIR) return memory;
  try {
    const shm = statfsSync('/dev/shm');
    if (shm.type === TMPFS && shm.bavail * shm.bsize >= ROOM) memory = '/dev/shm';
  } catch {
    // none here
  }
  return memory;
}

/** Removes the scratch folders in `parent` of this namespace's graders that no longer run. */
function sweep(parent: string): void {
  if (NAMESPACE === undefined) return;
  const own = new RegExp(`^${PREFIX}[a-z]+-${NAMESPACE}-(\\d+)-[A-Za-z0-9]{6}$`);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = own.exec(name)?.[1];
    if (pid === undefined || running(Number(pid))) continue;
    try {
      rmSync(join(parent, name), { recursive: true, force: true });
    } catch {
      // another user's, on a machine they share: theirs to remove; this grading goes on
    }
  }
}

/** The number of this process's pid namespace (Linux), in which its process ids mean what they say. */
export function pidNamespace(): string | undefined {
  try {
    return /^pid:\[(\d+)\]$/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
  } catch {
    return undefined;
  }
}
