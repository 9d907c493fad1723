// Where a recording goes, for both recorders (stdio and HTTP): refused before anything starts when
// it exists (without --force) or its folder does not; the cassette built from what was tapped, as
// every recording is (nondeterministic values marked free; over the earlier recording it replaces,
// that one's values carried over and its hand edits kept); and the write at the end, of the
// cassette or, after a session that was not clean, of `<out>.partial` only.
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadCassette } from './format.ts';
import { saveCassette } from './save.ts';
import type { Cassette, Frame } from './model.ts';
import { carryOver, markNondeterministic } from './normalise.ts';
import { keepHandEdits } from './rerecord.ts';

/** Paths free in every client message of a recording, unless told otherwise. */
export const DEFAULT_FREE = ['params.clientInfo'];

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

/** The cassette of a recording to `target`: its redacted `frames` normalised (unless
 *  `keepNondeterministic`) and carried over from the earlier recording, then `make` builds it (given
 *  that earlier one, for what else it carries over); `lost`: the hand edits that could not be kept. */
export function buildRecording(
  target: string,
  frames: Frame[],
  make: (frames: Frame[], previous: Cassette | undefined) => Cassette,
  { keepNondeterministic = false } = {},
): { cassette: Cassette; lost: string[] } {
  const previous = previousCassette(target);
  if (!keepNondeterministic) {
    markNondeterministic(frames);
    if (previous) carryOver(previous.cassette.frames, frames);
  }
  const cassette = make(frames, previous?.cassette);
  return { cassette, lost: previous ? keepHandEdits(previous.cassette, previous.text, cassette) : [] };
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
