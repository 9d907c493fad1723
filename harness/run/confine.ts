// What a bundle may read, made by the grader outside every sandbox: its entry, and the regular files
// under one folder (the submission's src/) that the entry reaches by relative imports. esbuild is told
// to read nothing itself: this plugin resolves every import and reads every file, after realpath, with
// a bound on bytes. Packages (imports by name) stay imports, resolved when the program runs, inside its
// sandbox. Anything else (an absolute path, a URL, a path out of the folder, a link leading out of it, a
// device, a FIFO, a socket) is refused, and the refusal names the import and where it is.
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { dirname, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Loader, Plugin } from 'esbuild';

/** A bundle's files together may not be larger than this (a course's src/ is a few dozen KiB). */
export const MAX_BUNDLE_INPUT_BYTES = 16 * 1024 * 1024;
/** Nor may they be more than this many. */
export const MAX_BUNDLE_FILES = 1000;

/** Why a bundle was refused: one line, `<file>:<line>:<column>: <what>`. */
export class BundleRefusal {
  constructor(readonly message: string) {}
}

export interface Confinement {
  /** The file the bundle starts from (the course's driver, or the module itself). */
  entry: string;
  /** The folder every other file must lie in, links resolved. */
  folder: string;
  /** Paths in refusals are told from here (the run root). */
  base: string;
}

/** The loader of a file, by the import's `with { type }` first, then its extension. */
const LOADERS: Record<string, Loader> = {
  '.ts': 'ts',
  '.mts': 'ts',
  '.cts': 'ts',
  '.tsx': 'tsx',
  '.js': 'js',
  '.mjs': 'js',
  '.cjs': 'js',
  '.jsx': 'jsx',
  '.json': 'json',
};
/** What an extensionless import may mean, in esbuild's own order. */
const IMPLIED = ['.tsx', '.ts', '.jsx', '.js', '.json'];
/** TypeScript's rule: `./x.js` names `./x.ts` when that is what there is. */
const TS_FOR_JS: Record<string, string[]> = { '.js': ['.ts', '.tsx'], '.jsx': ['.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

/** Every import but `node:...` (esbuild's filters are Go regular expressions: no lookahead). */
const NOT_NODE_BUILTIN = /^(?:[^n]|n$|n[^o]|no$|no[^d]|nod$|nod[^e]|node$|node[^:])/;

/** A package or a Node builtin: a name, not a path or a URL (`fs`, `yaml`, `@scope/pkg/sub`). */
function isPackage(specifier: string): boolean {
  return /^(?:@[\w.-]+\/)?[\w#][\w.-]*(?:\/.*)?$/.test(specifier) && !specifier.startsWith('.');
}

function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** The first of the paths an import may mean that exists (any kind of file, a link or not). */
function candidate(path: string): string | undefined {
  const ext = extname(path);
  const tries = [path, ...(TS_FOR_JS[ext] ?? []).map((other) => path.slice(0, -ext.length) + other), ...IMPLIED.map((implied) => path + implied)];
  tries.push(...IMPLIED.map((implied) => resolve(path, `index${implied}`)));
  return tries.find((path) => {
    const stat = statSync(path, { throwIfNoEntry: false });
    return stat !== undefined && !stat.isDirectory();
  });
}

export function confine({ entry, folder, base }: Confinement): Plugin {
  const realFolder = realpathSync(folder);
  const outside = `${shown(base, folder)}/`;
  let bytes = 0;
  let files = 0;
  return {
    name: 'theinference-confine',
    setup(build) {
      // The plugin, not esbuild, finds every file: esbuild then reads no tsconfig.json or package.json either.
      // Node's builtins by their `node:` names are esbuild's own to leave as imports (no file is read).
      build.onResolve({ filter: NOT_NODE_BUILTIN }, (args) => {
        const specifier = args.path;
        const refuse = (why: string) => ({ errors: [{ text: `imports "${specifier}", ${why}`, detail: REFUSED }] });
        if (args.kind === 'entry-point') {
          const real = realpathSync(entry);
          return within(folder, entry) && !within(realFolder, real) ? refuse(`a link to a file outside ${outside}`) : { path: real };
        }
        if (isPackage(specifier)) return { path: specifier, external: true };
        if (!isRelative(specifier)) {
          return refuse(
            isAbsolute(specifier) ? 'an absolute path: import your own files by a relative path' : 'which is not a relative path or a package name',
          );
        }
        const wanted = resolve(dirname(args.importer), specifier);
        if (!within(realFolder, wanted)) return refuse(`which is outside ${outside}: only the files there are bundled`);
        const found = candidate(wanted);
        if (found === undefined) return { errors: [{ text: `cannot find "${specifier}"` }] }; // a typo: tsx says it better
        let real: string;
        try {
          real = realpathSync(found);
        } catch {
          return { errors: [{ text: `cannot find "${specifier}"` }] }; // gone meanwhile
        }
        if (!within(realFolder, real)) return refuse(`a link to a file outside ${outside}`);
        if (!statSync(real).isFile()) return refuse(NOT_A_FILE);
        return { path: real };
      });
      build.onLoad({ filter: /.*/ }, (args) => {
        const contents = readConfined(args.path);
        if (typeof contents === 'string') return { errors: [{ text: `imports ${shown(base, args.path)}, ${contents}`, detail: REFUSED }] };
        files += 1;
        bytes += contents.length;
        if (files > MAX_BUNDLE_FILES) return { errors: [{ text: `more than ${MAX_BUNDLE_FILES} files are imported`, detail: REFUSED }] };
        if (bytes > MAX_BUNDLE_INPUT_BYTES)
          return { errors: [{ text: `the imported files are larger than ${mib(MAX_BUNDLE_INPUT_BYTES)} together`, detail: REFUSED }] };
        const type = args.with.type;
        const loader = type === 'text' ? 'text' : type === 'json' ? 'json' : (LOADERS[extname(args.path)] ?? 'default');
        return { contents, loader };
      });
    },
  };
}

const NOT_A_FILE = 'a device, a FIFO or a socket, not a file: only files are bundled';

/** Marks an error as a refusal (not a mistake in the code, which tsx may explain better). */
export const REFUSED = 'theinference: refused';

/** A regular file's bytes, read without following a link and without waiting on a FIFO; or why not. */
function readConfined(path: string): Uint8Array | string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code})`;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return NOT_A_FILE;
    if (stat.size > MAX_BUNDLE_INPUT_BYTES) return `larger than ${mib(MAX_BUNDLE_INPUT_BYTES)}`;
    const buffer = Buffer.alloc(stat.size);
    let read = 0;
    while (read < buffer.length) {
      const got = readSync(fd, buffer, read, buffer.length - read, read);
      if (got === 0) break;
      read += got;
    }
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

function shown(base: string, path: string): string {
  const rel = relative(base, path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

function mib(bytes: number): string {
  return `${bytes / 1024 / 1024} MiB`;
}
