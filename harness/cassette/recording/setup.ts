// The local state a server reads (a folder of files, a database file), the same for record and for
// every verify after it: `<setup>` stands for a fresh temporary folder, seeded with a copy of the
// cassette's `provenance.setup` folder when it names one. It is expanded in the server command, in
// `provenance.env` and in what the client sends; what the server says about that folder's path is
// written back as `<setup>`, so that no machine path lands in a cassette.
import { cpSync, realpathSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { InputError } from '../../errors.ts';
import { inJsonText } from '../format/model.ts';
import { scratchFolder } from '../../scratch.ts';

export const SETUP = '<setup>';

export interface Setup {
  /** `<setup>` replaced by the folder's path. */
  expand(text: string): string;
  /** The same inside JSON text (a client's line): the path as a JSON string writes it. */
  expandInJson(text: string): string;
  /** The folder's path (as given and as resolved), each with what stands for it in a cassette. */
  readonly stands: [string, string][];
  remove(): void;
}

/** The folder `<setup>` stands for, when the run needs one (a seed folder, or `<setup>` in the command
 *  or env); otherwise undefined. `seed` is relative to `cwd`. */
export function prepareSetup(seed: string | undefined, uses: readonly string[], cwd: string): Setup | undefined {
  if (seed === undefined && !uses.some((text) => text.includes(SETUP))) return undefined;
  if (seed !== undefined && !statSync(resolve(cwd, seed), { throwIfNoEntry: false })?.isDirectory()) {
    throw new InputError(`setup ${seed}: no such folder (it is copied into the fresh folder ${SETUP} stands for)`);
  }
  const dir = scratchFolder('setup');
  if (seed !== undefined) cpSync(resolve(cwd, seed), dir, { recursive: true });
  const real = realpathSync(dir);
  return {
    expand: (text) => text.split(SETUP).join(dir),
    expandInJson: (text) => text.split(SETUP).join(inJsonText(dir)),
    stands: [...new Set([dir, real])].map((path) => [path, SETUP]),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `env` with `<setup>` expanded in its values. */
export function expandEnv(env: Record<string, string> | undefined, setup: Setup | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(env ?? {}).map(([name, value]) => [name, setup ? setup.expand(value) : value]));
}
