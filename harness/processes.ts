// What Linux's /proc tells of processes: their parents, children and the CPU time they used. Read
// by the program runner (its limits and kills) and by verify (how long a live server may take).
// Everywhere else there is no /proc, and these find nothing.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on. */
const TICK_MS = 10;

/** Whether a process of this id runs (one of another user's does, though it may not be signalled): on every system. */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The fields of /proc/<pid>/stat after "pid (comm) " (state ppid pgrp session ...), or undefined once
 *  it has ended. comm may hold spaces and parentheses: the split is after the last ')'. */
export function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** A process's CPU time from its stat fields: its own (utime, stime) and that of the children it has
 *  waited for (cutime, cstime: Linux moves a child's time to its parent then), so each tick counts once. */
export function cpuMsOf(fields: string[]): number {
  return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * TICK_MS;
}

/** The children of a live process, those of every thread (Linux /proc/<pid>/task/<tid>/children). */
export function childrenOf(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return []; // it ended, or there is no /proc
  }
  const children: number[] = [];
  for (const thread of threads) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${thread}/children`, 'latin1').split(' ')) if (child !== '') children.push(Number(child));
    } catch {
      // the thread ended while we looked
    }
  }
  return children;
}

/** Whether any thread of a live process is runnable (running, or waiting for a core) or waiting for a disk:
 *  a process's own state is its main thread's, and a worker thread (Node's file reads, its compiler)
 *  may be the one working. */
export function anyThreadBusy(pid: number): boolean {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return false; // it ended, or there is no /proc
  }
  return threads.some((thread) => {
    const fields = statFields(`${pid}/task/${thread}`);
    return fields !== undefined && (fields[0] === 'R' || fields[0] === 'D');
  });
}

export interface TreeUsage {
  /** CPU time the process and everything below it have used, as far as /proc shows now. */
  cpuMs: number;
  /** A thread of one of them is busy (anyThreadBusy): computing, however starved of CPU. */
  busy: boolean;
}

export function treeUsage(root: number): TreeUsage {
  let cpuMs = 0;
  let busy = false;
  const unvisited = [root];
  for (let pid = unvisited.pop(); pid !== undefined; pid = unvisited.pop()) {
    const fields = statFields(pid);
    if (!fields) continue;
    cpuMs += cpuMsOf(fields);
    busy ||= anyThreadBusy(pid);
    unvisited.push(...childrenOf(pid));
  }
  return { cpuMs, busy };
}

/** Time a program has spent doing nothing, from looks at its CPU time: between two looks it did nothing
 *  when that stayed the same and no thread of it is busy now (asked only then). What the program runner
 *  and verify both mean by a program that waits: verify counts every wait of a server (`totalMs`), the
 *  runner's stuck rule only the one it is in (`stretchMs`), since a client that waits many times, each
 *  time a little, does something after each. */
export class IdleClock {
  private idleMs = 0;
  private stretchMs = 0;
  private last: { at: number; cpuMs: number };

  constructor(now: number, cpuMs: number) {
    this.last = { at: now, cpuMs };
  }

  /** A look at `now`: the time spent doing nothing so far, and since it last did something. */
  look(now: number, cpuMs: number, busy: () => boolean): { totalMs: number; stretchMs: number } {
    if (cpuMs === this.last.cpuMs && !busy()) {
      this.idleMs += now - this.last.at;
      this.stretchMs += now - this.last.at;
    } else this.stretchMs = 0;
    this.last = { at: now, cpuMs };
    return { totalMs: this.idleMs, stretchMs: this.stretchMs };
  }

  /** Starts again from nothing, as of this look. */
  reset(now: number, cpuMs: number): void {
    this.idleMs = 0;
    this.stretchMs = 0;
    this.last = { at: now, cpuMs };
  }
}

/** A mount as /proc/<pid>/mountinfo tells it. */
export interface Mount {
  /** The folder of its filesystem that it shows (a cgroup hierarchy's mount may show only part of it). */
  root: string;
  mountPoint: string;
  /** Its own options: `rw` or `ro`, ... */
  options: string[];
  type: string;
  /** Its filesystem's options (a cgroup v1 hierarchy's controllers are among them). */
  superOptions: string[];
}

/** The mounts a process sees, as it names them; none where it has ended or there is no /proc. */
export function mountsOf(pid: number | 'self'): Mount[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/mountinfo`, 'latin1');
  } catch {
    return [];
  }
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    // `<id> <parent> <dev> <root> <mount point> <options> [optional fields] - <type> <source> <super options>`
    const fields = line.split(' ');
    const dash = fields.indexOf('-');
    if (dash < 6) continue;
    mounts.push({
      root: unescapeMount(fields[3]!),
      mountPoint: unescapeMount(fields[4]!),
      options: fields[5]!.split(','),
      type: fields[dash + 1] ?? '',
      superOptions: (fields[dash + 3] ?? '').split(','),
    });
  }
  return mounts;
}

/** A path as mountinfo writes it: space, tab, newline and backslash as octal escapes. */
function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}
