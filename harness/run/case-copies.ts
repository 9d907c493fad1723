// A case's input folder as a sandboxed program sees it: a copy in a temporary folder of neutral name
// (sandbox.ts says why), made once and shown, read-only, to every program of that case while the
// folder stays as it was. Watch mode starts some thirty programs ahead on every save: a copy made and
// removed for each of them was most of the file work of the grader's own thread.
import { cpSync, existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { scratchFolder } from '../scratch.ts';

interface Copy {
  path: string;
  /** What the folder held when it was copied: each entry's name, kind, size and modification time. */
  signature: string;
  /** Programs started with it that have not ended. */
  users: number;
}

/** The current copy of each case folder: one the folder has changed since is removed once unused. */
const copies = new Map<string, Copy>();
/** How many copies there may be before the first look for folders that are gone; then, twice as many as after it. */
const LOOK_AT_FIRST = 64;
let lookAt = LOOK_AT_FIRST;
/** Every copy not removed yet, removed when the grader exits. */
const made = new Set<Copy>();
process.once('exit', () => {
  for (const copy of made) rmSync(copy.path, { recursive: true, force: true });
});

/** The copy of `caseDir` to show a program, and `release`, called once that program has ended. */
export function caseCopy(caseDir: string): { path: string; release: () => void } {
  const signature = signatureOf(caseDir);
  let copy = copies.get(caseDir);
  if (copy?.signature !== signature) {
    const stale = copy;
    copy = { path: neutralCopy(caseDir), signature, users: 0 };
    copies.set(caseDir, copy);
    made.add(copy);
    if (stale) removeIfUnused(caseDir, stale);
    if (copies.size >= lookAt) {
      forgetRemovedFolders(caseDir);
      lookAt = Math.max(LOOK_AT_FIRST, 2 * copies.size);
    }
  }
  copy.users += 1;
  const held = copy;
  let released = false;
  return {
    path: held.path,
    release: () => {
      if (released) return;
      released = true;
      held.users -= 1;
      removeIfUnused(caseDir, held);
    },
  };
}

/** The copies of case folders that are gone (a course copy removed: a process that grades many, as a test
 *  worker does, made hundreds), once unused: removed as new copies are made, not all at exit; but the
 *  one of the folder `shown` now (a case folder removed meanwhile is shown empty). Looked for each time
 *  the copies have doubled since the last look: a grading's own cases cost it a few hundred checks. */
function forgetRemovedFolders(shown: string): void {
  for (const [caseDir, copy] of copies) {
    if (caseDir === shown || copy.users > 0 || existsSync(caseDir)) continue;
    copies.delete(caseDir);
    removeIfUnused(caseDir, copy);
  }
}

/** Removes a copy its folder has changed since, once no program shows it. */
function removeIfUnused(caseDir: string, copy: Copy): void {
  if (copy.users > 0 || copies.get(caseDir) === copy) return;
  made.delete(copy);
  rmSync(copy.path, { recursive: true, force: true });
}

/** The folder's directories and regular files (what a copy takes), each with its size and modification
 *  time: a save, a new file or one removed changes it. */
function signatureOf(caseDir: string): string {
  if (!existsSync(caseDir)) return 'missing';
  const parts: string[] = [];
  const walk = (dir: string, under: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) {
        parts.push(`${under}${name}/`);
        walk(path, `${under}${name}/`);
      } else if (stat.isFile()) parts.push(`${under}${name} ${stat.size} ${stat.mtimeMs}`);
    }
  };
  try {
    walk(caseDir, '');
  } catch {
    return `changing at ${performance.now()}`; // an entry went as it was looked at: a fresh copy
  }
  return parts.join('\n');
}

/** The case folder copied to a temporary folder of neutral name: its directories and regular files
 *  (a case folder is a few small files; in a course folder a student may have put anything there). */
function neutralCopy(caseDir: string): string {
  const copy = scratchFolder('case');
  // a case folder removed meanwhile (watch mode) shows empty: the program says what it misses
  if (!existsSync(caseDir)) return copy;
  try {
    cpSync(caseDir, copy, {
      recursive: true,
      filter: (from) => {
        const stat = lstatSync(from);
        return stat.isDirectory() || stat.isFile();
      },
    });
  } catch (error) {
    rmSync(copy, { recursive: true, force: true });
    throw error;
  }
  return copy;
}
