// The processes of one program run by spawn.ts: found (its group, and what they started even outside
// it), measured (CPU time, and the memory the grader counts itself where no cgroup does: resident
// memory, and what a sandbox's tmpfs hold), signalled together, and, where something may have escaped
// the group, looked for among all processes by the mark in their environment.
import { readdirSync, readFileSync, statfsSync } from 'node:fs';
import { anyThreadBusy, childrenOf, cpuMsOf, mountsOf, statFields } from '../processes.ts';

/** Set in every program's environment, so that a process that left the group is still found by it. */
export const RUN_MARK = 'THEINFERENCE_RUN';

interface ProcessInfo {
  pid: number;
  ppid: number;
  pgrp: number;
}

/** Every process on the machine (Linux /proc); empty where there is no /proc. */
function allProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessInfo[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(entry); // state ppid pgrp ...
    if (fields) found.push({ pid: Number(entry), ppid: Number(fields[1]), pgrp: Number(fields[2]) });
  }
  return found;
}

/** The processes of one program: its group (led by the child), and whatever they started, even outside the group. */
export class ProgramProcesses {
  readonly tracked = new Set<number>();
  /** In a sandbox, how far below the leader (bwrap) each process was found: from 2 down, in its mounts. */
  private readonly depth = new Map<number, number>();
  /** The sandbox's writable tmpfs (its /tmp), as its processes see them; read once, where one is found. */
  private tmpfs: string[] | undefined;
  /** A process started by the program was seen outside its process group (it called setsid). */
  leftGroup = false;
  /** CPU time at the last measurement; it only grows (a process that ended took its time with it). */
  cpuMs = 0;

  constructor(
    private readonly leader: number | undefined,
    private readonly contained: boolean,
  ) {
    if (leader !== undefined) {
      this.tracked.add(leader);
      this.depth.set(leader, 0);
    }
  }

  /** Finds the processes started since the last look: in a sandbox, down the tree from the leader (its
   *  orphans are adopted by its init, inside it); outside one, in all of /proc (an orphan there is
   *  adopted by the machine's init, and only the group or the parent it had tells whose it is). */
  discover(): void {
    if (this.leader === undefined) return;
    if (this.contained) {
      const unvisited = [...this.tracked];
      for (let pid = unvisited.pop(); pid !== undefined; pid = unvisited.pop()) {
        for (const child of childrenOf(pid)) {
          if (this.tracked.has(child)) continue;
          this.tracked.add(child);
          this.depth.set(child, (this.depth.get(pid) ?? 0) + 1);
          unvisited.push(child);
        }
      }
      return;
    }
    for (const info of allProcesses()) {
      if (info.pgrp !== this.leader && !this.tracked.has(info.ppid)) continue;
      this.tracked.add(info.pid);
      if (info.pgrp !== this.leader && !this.contained) this.leftGroup = true;
    }
  }

  /** `signal` to every process of the program, as found now. */
  signalAll(signal: NodeJS.Signals): void {
    this.discover();
    for (const pid of this.tracked) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone already
      }
    }
  }

  /** CPU time of the known processes, and with `memory` the memory the grader counts: their resident
   *  memory, and in a sandbox what its tmpfs hold (pages no process's RSS shows); `discover` first looks
   *  for new ones. CPU time counts each live process's own time plus that of the children it has waited
   *  for (Linux moves a child's time to its parent then), so every tick is counted once. */
  measure(discover: boolean, memory: boolean): { cpuMs: number; memoryBytes: number } {
    if (this.leader === undefined) return { cpuMs: 0, memoryBytes: 0 };
    if (discover) this.discover();
    let cpuMs = 0;
    let memoryBytes = 0;
    for (const pid of this.tracked) {
      const fields = statFields(pid);
      if (!fields) {
        this.tracked.delete(pid); // ended; its pid may be reused by a process that is not ours
        this.depth.delete(pid);
        continue;
      }
      cpuMs += cpuMsOf(fields);
      if (memory) memoryBytes += residentBytesOf(pid);
    }
    if (memory && this.contained) memoryBytes += this.tmpfsBytes();
    this.cpuMs = Math.max(this.cpuMs, cpuMs);
    return { cpuMs: this.cpuMs, memoryBytes };
  }

  /** What the sandbox's writable tmpfs hold, read through a process two or more below bwrap: its init
   *  (one below) sees the host's folders until it has made the sandbox's its root. */
  private tmpfsBytes(): number {
    const inside = [...this.tracked].find((pid) => (this.depth.get(pid) ?? 0) >= 2);
    if (inside === undefined) return 0;
    if (this.tmpfs === undefined) {
      const mounts = mountsOf(inside);
      if (mounts.length === 0) return 0; // it ended as it was read: the next look reads another's
      this.tmpfs = mounts.filter((mount) => mount.type === 'tmpfs' && mount.options.includes('rw')).map((mount) => mount.mountPoint);
    }
    let bytes = 0;
    for (const mount of this.tmpfs) {
      try {
        const stats = statfsSync(`/proc/${inside}/root${mount}`);
        bytes += (stats.blocks - stats.bfree) * stats.bsize;
      } catch {
        // it ended meanwhile: what it held is gone with the sandbox, or the next look reads it through another
      }
    }
    return bytes;
  }

  /** A thread of a known process is busy (anyThreadBusy). */
  busy(): boolean {
    return [...this.tracked].some(anyThreadBusy);
  }
}

/** A live process's resident memory (0 once it has ended). */
function residentBytesOf(pid: number): number {
  try {
    const rss = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return rss ? Number(rss[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Kills what outlived the group kill (a process that called setsid, a daemon): every process,
 *  among `candidates` or else on the machine, whose starting environment carries this run's mark.
 *  Only the mark counts, so that a reused pid is never killed by mistake. */
export function killStrays(mark: string, candidates?: Iterable<number>): void {
  const needle = `${RUN_MARK}=${mark}`;
  for (const pid of candidates ?? allProcesses().map((info) => info.pid)) {
    let marked = false;
    try {
      marked = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle);
    } catch {
      // not ours to read, or gone
    }
    if (!marked) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
}
