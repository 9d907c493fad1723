// The grader's scratch folders in the temporary folder (case copies, bundles, submissions' copies):
// each removes its own when it exits, but a grader killed outright (SIGKILL, an out-of-memory kill,
// a machine switched off) cannot. So each folder's name carries its grader's process id and pid
// namespace, and the first scratch folder a grader makes removes every folder of a grader of its
// namespace that no longer runs, as watch mode's bundles in .theinference/ are (sweepBundles).
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { running } from './processes.ts';

const PREFIX = 'theinference-';
/** The pid namespace's number: a process id names a process only within it (Linux; none elsewhere, where nothing is swept). */
const NAMESPACE = pidNamespace();
let swept = false;

/** A new scratch folder, `theinference-<what>-<namespace>-<pid>-XXXXXX`; its maker removes it. */
export function scratchFolder(what: string): string {
  if (!swept) sweep();
  swept = true;
  return mkdtempSync(join(tmpdir(), `${PREFIX}${what}-${NAMESPACE ?? 'x'}-${process.pid}-`));
}

/** Removes the scratch folders of this namespace's graders that no longer run. */
function sweep(): void {
  if (NAMESPACE === undefined) return;
  const own = new RegExp(`^${PREFIX}[a-z]+-${NAMESPACE}-(\\d+)-[A-Za-z0-9]{6}$`);
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = own.exec(name)?.[1];
    if (pid === undefined || running(Number(pid))) continue;
    try {
      rmSync(join(tmpdir(), name), { recursive: true, force: true });
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
