// Which folders of node_modules a program may see: the packages it may load and what they load in
// turn. A sandbox shows these and no other: a package nobody named (the MCP SDK, which the grader
// itself depends on) is not there to be loaded by a computed import at run time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Manifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** The folders (under `nodeModules`) of `names` and of every package they depend on, each once; a
 *  package not installed (an optional one for another platform) is left out. A dependency installed
 *  inside its dependent's own node_modules is shown with that folder. */
export function packageFolders(nodeModules: string, names: readonly string[]): string[] {
  const found = new Set<string>();
  const unvisited = [...names];
  for (let name = unvisited.pop(); name !== undefined; name = unvisited.pop()) {
    if (found.has(name)) continue;
    const manifest = manifestOf(join(nodeModules, name));
    if (manifest === undefined) continue;
    found.add(name);
    const dependencies = { ...manifest.peerDependencies, ...manifest.optionalDependencies, ...manifest.dependencies };
    for (const dependency of Object.keys(dependencies)) {
      if (manifestOf(join(nodeModules, name, 'node_modules', dependency)) === undefined) unvisited.push(dependency);
    }
  }
  return [...found].sort().map((name) => join(nodeModules, name));
}

function manifestOf(folder: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as Manifest;
  } catch {
    return undefined;
  }
}
