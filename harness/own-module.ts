// The harness runs from its TypeScript source (harness/, through tsx) or compiled at install
// (lib/, plain node): a file of its own that it names at run time takes the extension of the
// module naming it, so the same code finds it either way.
import { fileURLToPath } from 'node:url';

/** The path of module `name` (relative, no extension) beside the module at `from` (its import.meta.url). */
export function ownModule(from: string, name: string): string {
  return fileURLToPath(new URL(`${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from));
}
