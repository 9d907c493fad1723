// What a sandboxed program is shown of its run root (sandbox.ts's parts: program.ts, src/, the bundles
// and scripts of .theinference/, the packages it may load) is a copy made for it alone, at the same
// places. Shown the run root's own files, read-only, every program of a grading would share their
// inodes, and an inode carries more than its bytes: its locks (flock, fcntl: a read-only mount takes
// them) and its pages in the page cache (fadvise drops them, mincore tells them). Through either,
// a hidden case's program could hand what it read, a bit at a time, to a program whose words are
// reported. A copy of its own ends that: no two programs share an inode of the run root. (The system
// folders and node stay shared, and so stay those channels: docs/ci.md says why reports are sealed.)
//
// A copy is made in memory where it can be (scratch.ts's memoryFolder): on a disk, the files a copy
// makes and removes cost a program five times more. A program started ahead (watch mode) has its copy
// brought up to date as it is let go: the bundle it loads was written after it started. The sockets a
// transport makes for a program (an HTTP case's gate, in the grader's folder of sockets) are not
// copied, since a socket's inode is the way to its listener: each program is shown at that folder's
// path a folder of its own, on the same file system, into which its own are linked. Copies are removed
// when their program ends; those of a grader killed outright, by the next grader to make one in the
// same place (scratch.ts).
import { copyFileSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { memoryFolder, scratchFolder } from '../scratch.ts';
import { socketsFolder } from '../transports/sockets.ts';

/** A part of the run root a program is shown. */
export interface ShownPart {
  /** What is copied: a regular file or a folder (where the run root has a link there, what it points to). */
  source: string;
  /** Where the program sees it: its path in the run root. */
  shown: string;
}

/** One program's copy of the parts. */
export interface RootCopy {
  /** bwrap's options that show the copy's parts in their places, read-only. */
  args: string[];
  /** Brings the copy to what the parts hold now (what changed since is copied again), then shows
   *  `own`, sockets made in the grader's folder of sockets for this program alone, at their places. */
  update(own?: readonly string[]): void;
  /** Removes the copy: its program has ended. */
  release(): void;
}

/** Where a path was copied from, as it was then (a folder, a link's target, a file's inode, size and time). */
type Copied = Map<string, string>;
const FOLDER = 'folder';

/** What a copy takes of each part at most: entries (files, folders, links) and bytes, in name order, the
 *  rest left out. A course's src/ is a few dozen KiB, and its grader's parts a few MiB (tsx and esbuild:
 *  12 MiB, 40 files; two bundles of at most 32 MiB); a submission's src/ of many large files (which the
 *  bundler would refuse past 1,000 files or 16 MiB together) costs no more than this a program. */
const PART_ENTRIES = 2000;
const PART_BYTES = 96 * 2 ** 20;

/** Every copy and folder of sockets not removed yet, removed when the grader exits. */
const made = new Set<string>();
process.once('exit', () => {
  for (const folder of made) rmSync(folder, { recursive: true, force: true });
});

/** A new copy of `parts` (those of `runRoot` that are there), for one program. */
export function rootCopy(runRoot: string, parts: readonly ShownPart[]): RootCopy {
  const sockets = socketsFolder();
  const folders: string[] = [];
  let released = false;
  const release = () => {
    released = true;
    for (const folder of folders) {
      made.delete(folder);
      rmSync(folder, { recursive: true, force: true });
    }
  };
  /** A new scratch folder in memory, removed with the copy. */
  const scratch = (what: string) => {
    const folder = scratchFolder(what, memoryFolder());
    folders.push(folder);
    made.add(folder);
    return folder;
  };
  const copied: Copied = new Map();
  let update: () => void;
  let args: string[];
  let own: string;
  try {
    const folder = scratch('root');
    const places = parts.map((part) => {
      const rel = relative(runRoot, part.shown);
      if (rel === '' || rel.startsWith('..') || rel.startsWith(sep)) throw new Error(`${part.shown} is not in the run root ${runRoot}`);
      return { ...part, copy: join(folder, rel), folder: statSync(part.source).isDirectory() };
    });
    update = () => {
      for (const place of places) {
        if (place.folder) {
          const budget = { entries: PART_ENTRIES, bytes: PART_BYTES };
          syncFolder(existsSync(place.source) ? place.source : undefined, place.copy, { copied, budget });
        } else if (existsSync(place.source)) syncFile(place.source, place.copy, copied);
        else {
          writeFileSync(place.copy, ''); // gone since: emptied in place, where it is shown
          copied.delete(place.copy);
        }
      }
    };
    for (const place of places) {
      mkdirSync(place.folder ? place.copy : dirname(place.copy), { recursive: true });
      if (!place.folder) writeFileSync(place.copy, '');
    }
    update();
    own = scratch('socket');
    args = [...places.flatMap((place) => ['--ro-bind', place.copy, place.shown]), '--ro-bind', own, sockets];
  } catch (error) {
    release();
    throw error;
  }
  return {
    args,
    update: (paths = []) => {
      if (released) return; // its program has ended: nothing is let run
      update();
      for (const path of paths) {
        if (dirname(path) !== sockets) throw new Error(`${path} is not in the grader's folder of sockets, ${sockets}`);
        const link = join(own, basename(path));
        rmSync(link, { force: true });
        linkSync(path, link);
      }
    },
    release,
  };
}

interface Sync {
  copied: Copied;
  /** What the part may still take (PART_ENTRIES, PART_BYTES). */
  budget: { entries: number; bytes: number };
}

/** Makes the folder `target` hold what `source` holds (nothing, where it is gone): its folders, regular
 *  files and links (as they are: a link is followed in the sandbox, as the run root's own would be),
 *  each copied again only where it changed, as far as the budget goes. A socket, a FIFO or a device
 *  has no copy: left out. */
function syncFolder(source: string | undefined, target: string, sync: Sync): void {
  const { copied, budget } = sync;
  const kept = new Set<string>();
  const entries = source === undefined ? [] : readdirSync(source, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const from = join(source!, entry.name);
    const to = join(target, entry.name);
    if (budget.entries === 0) break;
    budget.entries -= 1;
    if (entry.isDirectory()) {
      if (copied.get(to) !== FOLDER) {
        remove(to, copied);
        mkdirSync(to);
        copied.set(to, FOLDER);
      }
      syncFolder(from, to, sync);
    } else if (entry.isFile()) {
      const stat = lstatSync(from);
      if (stat.size > budget.bytes) continue;
      budget.bytes -= stat.size;
      // never copied over what is not a file copied before: a link there would be written through
      const was = copied.get(to);
      if (was === undefined || was === FOLDER || was.startsWith('-> ')) remove(to, copied);
      syncFile(from, to, copied, stat);
    } else if (entry.isSymbolicLink()) {
      const target = readlinkSync(from);
      if (copied.get(to) !== `-> ${target}`) {
        remove(to, copied);
        symlinkSync(target, to);
        copied.set(to, `-> ${target}`);
      }
    } else continue;
    kept.add(entry.name);
  }
  for (const name of readdirSync(target)) if (!kept.has(name)) remove(join(target, name), copied);
}

/** Copies the regular file `source` over `target` where it changed (in place: a file shown by itself is
 *  shown by its inode). */
function syncFile(source: string, target: string, copied: Copied, stat = lstatSync(source)): void {
  const now = `${stat.ino} ${stat.size} ${stat.mtimeMs}`;
  if (copied.get(target) === now) return;
  copyFileSync(source, target);
  copied.set(target, now);
}

function remove(path: string, copied: Copied): void {
  rmSync(path, { recursive: true, force: true });
  for (const key of copied.keys()) if (key === path || key.startsWith(path + sep)) copied.delete(key);
}
