// Where a recording goes, for both recorders (stdio and HTTP): refused before anything starts when
// it exists (without --force) or its folder does not; the earlier recording it replaces, whose hand
// edits are kept; and the write at the end, of the cassette or, after a session that was not
// clean, of `<out>.partial` only.
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadCassette } from './format.ts';
import { saveCassette } from './save.ts';
import type { Cassette } from './model.ts';

/** Why `out` (resolved: `target`) cannot be recorded to, said in one line; none when it can. */
export function targetProblem(out: string, target: string, force: boolean | undefined): string | undefined {
  if (existsSync(target) && !force) return `${out} exists; pass --force to replace it`;
  if (!existsSync(dirname(target))) return `${out}: the folder ${dirname(out)} does not exist`;
  return undefined;
}

/** The cassette a re-recording replaces, and its text, if there is a readable one. */
export function previousCassette(target: string): { cassette: Cassette; text: string } | undefined {
  if (!existsSync(target)) return undefined;
  try {
    return { cassette: loadCassette(target), text: readFileSync(target, 'utf8') };
  } catch {
    return undefined;
  }
}

/** What the write at the end did: the cassette, `.partial` (the session was not clean), or neither. */
export type Written = 'cassette' | 'partial' | 'nothing';

/** Writes the cassette, or `<out>.partial` when `flaws` says what made the session not clean; says
 *  which in one line. */
export function writeRecording(
  cassette: Cassette,
  where: { out: string; target: string; force?: boolean },
  flaws: string | undefined,
  log: (line: string) => void,
): Written {
  const { out, target } = where;
  const counts = `${cassette.frames.filter((frame) => frame.from === 'client').length} client and ${cassette.frames.filter((frame) => frame.from === 'server').length} server messages`;
  if (flaws !== undefined) {
    try {
      saveCassette(cassette, `${target}.partial`, { overwrite: true });
    } catch (error) {
      log(`${flaws}; and cannot write ${out}.partial: ${(error as Error).message}`);
      return 'nothing';
    }
    log(`${flaws}; ${out} not written, what was recorded (${counts}) is in ${out}.partial`);
    return 'partial';
  }
  try {
    saveCassette(cassette, target, { overwrite: where.force === true });
  } catch (error) {
    log(`cannot write ${out}: ${(error as Error).message}`);
    return 'nothing';
  }
  log(`wrote ${out}: ${counts}`);
  return 'cassette';
}
