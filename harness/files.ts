// Writing a file so that no reader ever sees half of it: a temporary file beside the target,
// then renamed over it (or hard-linked, which refuses to replace a file that appeared meanwhile).
import { existsSync, linkSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export interface WriteOptions {
  /** Replace an existing file; without it an existing file is an error and stays as it was. */
  overwrite?: boolean;
  /** The new file's permissions (before the umask), e.g. 0o755 for a command. */
  mode?: number;
}

export function writeAtomically(target: string, data: string | Uint8Array, options: WriteOptions = {}): void {
  const temporary = join(dirname(target), `.${basename(target)}.${process.pid}.${Date.now()}.tmp`);
  writeFileSync(temporary, data, options.mode === undefined ? undefined : { mode: options.mode });
  try {
    if (options.overwrite) renameSync(temporary, target);
    else {
      linkSync(temporary, target); // EEXIST if someone else wrote the target meanwhile
      unlinkSync(temporary);
    }
  } catch (error) {
    if (existsSync(temporary)) unlinkSync(temporary);
    throw error;
  }
}
