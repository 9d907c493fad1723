// Every change under a folder, heard by a watch on each folder in it. Node 20's recursive fs.watch
// on Linux watches each file by its inode, and loses a file that an editor saves by renaming a new
// one over it (vim, an IDE's safe write): after the second such save, no change to it is heard
// again. A folder's watch hears its entries whatever their inode, so a watch per folder hears
// every save, and one on each folder made later. The folder itself is looked for in its parent:
// one not there yet, or removed and made again (a checkout can do both), is watched once it is.
import { type Dirent, type FSWatcher, readdirSync, statSync, watch } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

export interface FolderWatch {
  close(): void;
}

/** Calls `onChange` with the path of each entry under `root` (or `root` itself) that changes. */
export function watchFolder(root: string, onChange: (path: string) => void): FolderWatch {
  const watchers = new Map<string, FSWatcher>();

  const add = (folder: string) => {
    if (watchers.has(folder)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(folder, (_event, name) => {
        const path = name === null ? folder : join(folder, String(name));
        follow(path);
        onChange(path);
      });
    } catch {
      return; // removed meanwhile
    }
    watcher.on('error', () => forget(folder));
    watchers.set(folder, watcher);
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) add(join(folder, entry.name));
  };

  /** A folder that appeared is watched; the watches of one that is gone are dropped, those of the folders
   *  in it too (made again, it is new). */
  const follow = (path: string) => {
    let folder: boolean;
    try {
      folder = statSync(path).isDirectory();
    } catch {
      folder = false;
    }
    if (folder) add(path);
    else forget(path);
  };

  const forget = (folder: string) => {
    for (const [watched, watcher] of watchers) {
      if (watched !== folder && !watched.startsWith(folder + sep)) continue;
      watcher.close();
      watchers.delete(watched);
    }
  };

  let parent: FSWatcher | undefined;
  try {
    parent = watch(dirname(root), (_event, name) => {
      if (name === null || String(name) !== basename(root)) return;
      follow(root);
      onChange(root);
    });
  } catch {
    // no parent either: only the folder, if it is there
  }
  add(root);
  return {
    close() {
      parent?.close();
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
