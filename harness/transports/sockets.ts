// Where this grader makes the sockets its programs reach (an HTTP player's gate, gate.ts): a folder of
// its own, in memory where it can be (scratch.ts's memoryFolder), whose path is short, since a
// socket's has room for about 100 bytes (a run root's may be longer). A program started in a sandbox is
// shown at this path a folder of its own, holding only the sockets made for it (Wiring's `own`,
// linked there: run/root-copies.ts), which must lie on this folder's file system.
import { rmSync } from 'node:fs';
import { memoryFolder, scratchFolder } from '../scratch.ts';

let folder: string | undefined;

/** This grader's folder of sockets, made at its first use and removed when the grader exits. */
export function socketsFolder(): string {
  if (folder !== undefined) return folder;
  const made = scratchFolder('sockets', memoryFolder());
  process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  return (folder = made);
}
