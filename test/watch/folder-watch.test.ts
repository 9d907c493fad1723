// watchFolder hears every save under a folder: those made in place, those an editor makes by renaming
// a new file over the old (after which Node 20's recursive fs.watch on Linux heard nothing more of
// the file), those in folders made, or removed and made again, while it watches, and the folder's
// own when it is made only after the watch started, or made again.
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'vitest';
import { type FolderWatch, watchFolder } from '../../harness/watch/folder-watch.ts';

let root: string;
let watches: FolderWatch[];
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'folder-watch-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'mcp.ts'), 'export {};\n');
  watches = [];
});
afterEach(() => {
  for (const watch of watches) watch.close();
  rmSync(root, { recursive: true, force: true });
});

/** Watches `folder`; `heard(path)` resolves once a change of that path has been heard after the call. */
function watching(folder: string): { heard(path: string): Promise<void> } {
  const waiters: { path: string; resolve: () => void }[] = [];
  watches.push(
    watchFolder(folder, (path) => {
      for (const waiter of waiters.filter((candidate) => candidate.path === path)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }),
  );
  return { heard: (path) => new Promise((resolve) => waiters.push({ path, resolve })) };
}

/** A save as vim makes it: the new text in a file beside, renamed over the old. */
function saveByRename(path: string, text: string): void {
  writeFileSync(`${path}.swp-new`, text);
  renameSync(`${path}.swp-new`, path);
}

describe('watchFolder', () => {
  it('hears every save of a file saved by renaming a new one over it, and in place after that', async () => {
    const { heard } = watching(root);
    const source = join(root, 'src', 'mcp.ts');
    for (let save = 0; save < 4; save += 1) {
      const change = heard(source);
      saveByRename(source, `export const save = ${save};\n`);
      await change;
    }
    const change = heard(source);
    writeFileSync(source, 'export const save = 4;\n');
    await change;
  });

  it('hears files in a folder made while it watches, and in one removed and made again', async () => {
    const { heard } = watching(root);
    const folder = join(root, 'src', 'parts');
    const made = heard(folder);
    mkdirSync(folder);
    await made;
    const file = join(folder, 'frame.ts');
    let change = heard(file);
    writeFileSync(file, 'export {};\n');
    await change;

    const removed = heard(folder);
    rmSync(folder, { recursive: true });
    await removed;
    const again = heard(folder);
    mkdirSync(folder);
    await again;
    change = heard(file);
    writeFileSync(file, 'export const again = 1;\n');
    await change;
  });

  it('hears the folder it watches once it is made, and again once it is removed and made again', async () => {
    const late = join(root, 'late');
    const { heard } = watching(late); // not there yet
    const file = join(late, 'mcp.ts');
    for (let round = 0; round < 2; round += 1) {
      const made = heard(late);
      mkdirSync(late);
      await made;
      const change = heard(file);
      writeFileSync(file, `export const round = ${round};\n`);
      await change;
      const removed = heard(late);
      rmSync(late, { recursive: true });
      await removed;
    }
  });
});
