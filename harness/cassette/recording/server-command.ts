// How a recorded server was started, as its cassette's provenance says it: the command as a person
// types it in the project folder, and the npm package it runs. Both recorders (stdio, HTTP) use it.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Provenance } from '../format/model.ts';

/** The command as it would be typed in the project folder: `node`, relative paths, no home folder. */
export function portableCommand(command: string[], cwd: string): string[] {
  return command.map((part, i) => {
    if (i === 0 && (part === process.execPath || /(^|[/\\])node(\.exe)?$/.test(part))) return 'node';
    if (!isAbsolute(part)) return part;
    const fromCwd = relative(cwd, part);
    if (!fromCwd.startsWith('..') && !isAbsolute(fromCwd)) return fromCwd.split(sep).join('/');
    const home = process.env.HOME;
    if (home && part.startsWith(home + sep)) return `~/${relative(home, part).split(sep).join('/')}`;
    return part;
  });
}

type PackageNamed = Pick<Provenance, 'package' | 'packageVersion'>;

/** The npm package the command runs: the one `npx <package>` names (its version as installed here,
 *  or as the command pins it), else the one a file argument belongs to (the nearest package.json
 *  with a name above it). */
export function findPackage(command: string[], cwd: string): PackageNamed {
  return npxPackage(command, cwd) ?? filePackage(command, cwd) ?? {};
}

function npxPackage(command: string[], cwd: string): PackageNamed | undefined {
  if (!/(^|[/\\])npx(\.cmd)?$/.test(command[0] ?? '')) return undefined;
  const spec = command.slice(1).find((part) => !part.startsWith('-'));
  if (spec === undefined) return undefined;
  // @scope/name@1.2.3, name@1.2.3, name
  const at = spec.indexOf('@', 1);
  const name = at === -1 ? spec : spec.slice(0, at);
  const pinned = at === -1 ? undefined : spec.slice(at + 1);
  const installed = manifest(join(cwd, 'node_modules', name, 'package.json'));
  const version = /^\d+\.\d+\.\d+/.test(pinned ?? '') ? pinned : installed?.name === name ? installed.version : undefined;
  return { package: name, ...(version !== undefined && { packageVersion: version }) };
}

function filePackage(command: string[], cwd: string): PackageNamed | undefined {
  for (const part of command) {
    const path = resolve(cwd, part);
    if (!part.includes('/') || !existsSync(path)) continue;
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
      const found = manifest(join(dir, 'package.json'));
      if (found?.name !== undefined) return { package: found.name, ...(found.version !== undefined && { packageVersion: found.version }) };
    }
  }
  return undefined;
}

/** A package.json's name and version; undefined when there is none or it cannot be read. */
function manifest(path: string): { name?: string; version?: string } | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const { name, version } = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
    return { ...(typeof name === 'string' && { name }), ...(typeof version === 'string' && { version }) };
  } catch {
    return undefined; // not a readable manifest: keep looking further up
  }
}
