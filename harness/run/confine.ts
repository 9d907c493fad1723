// The bundler's plugin: what a bundle may take in. It runs in the bundler's own sandbox (bundle.ts),
// which shows the bundler nothing but the submission's src/, the entries and esbuild: this is the
// second wall, which holds where there is no sandbox (a student's Mac) and names what it refuses.
// Every import is resolved here, never by esbuild (which then reads no tsconfig.json or package.json):
// a relative import must stay under the one folder (src/) after its links are resolved and name a
// regular file; a Node built-in and a package the course allows stay imports, resolved at run time
// in the program's sandbox; anything else is refused. Every file is read here too, bounded, and only
// after its real path is found under the folder: esbuild expands a computed import (a template
// literal, a string built from parts) by walking folders itself, past onResolve, and the files it
// finds arrive at onLoad unasked: they are refused, as is a computed import it cannot expand.
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, extname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { Loader, Message, Metafile, Plugin } from 'esbuild';
import { escapeControls, oneLine } from '../terminal-text.ts';

/** A bundle's files together may not be larger than this (a course's src/ is a few dozen KiB). */
export const MAX_BUNDLE_INPUT_BYTES = 16 * 1024 * 1024;
/** Nor may they be more than this many. */
export const MAX_BUNDLE_FILES = 1000;

export interface Confinement {
  /** The files a bundle starts from (the course's driver, or the module itself). */
  entries: readonly string[];
  /** The folder every other file must lie in, links resolved. */
  folder: string;
  /** Paths in refusals are told from here (the run root). */
  base: string;
  /** The packages course.yaml allows a submission to import (`packages:`), by name. */
  packages: readonly string[];
}

/** The course's rule on imports, quoted in a refusal (seed 002, "Writing the client by hand"). */
export const COURSE_RULE =
  'a submission imports Node\'s built-ins, its own files under src/ and the packages course.yaml lists; the client is written by hand (the course: "There is an official SDK. Project #2 does not use it for the client half, on purpose.")';

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

/** esbuild's own messages for a computed import it cannot expand, made errors (bundle options'
 *  `logOverride`), each told in the course's words. */
export const COMPUTED_IMPORTS: Record<string, string> = {
  'unsupported-dynamic-import': 'import() of a computed value',
  'unsupported-require-call': 'require() of a computed value',
  'indirect-require': 'require used as a value',
};

/** A package or a Node builtin: a name, not a path or a URL (`fs`, `yaml`, `@scope/pkg/sub`). */
function isPackage(specifier: string): boolean {
  return /^(?:@[\w.-]+\/)?[\w#][\w.-]*(?:\/.*)?$/.test(specifier) && !specifier.startsWith('.');
}

/** A package's name from an import of it or of a file in it (`@scope/pkg/sub/path` -> `@scope/pkg`). */
function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function isRelative(specifier: string): boolean {
  return specifier === '.' || specifier === '..' || specifier.startsWith('./') || specifier.startsWith('../');
}

function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel);
}

/** The first of the paths an import may mean that exists (any kind of file, a link or not, a link to
 *  nothing this process can see among them). */
function candidate(path: string): string | undefined {
  const ext = extname(path);
  const tries = [path, ...(TS_FOR_JS[ext] ?? []).map((other) => path.slice(0, -ext.length) + other), ...IMPLIED.map((implied) => path + implied)];
  tries.push(...IMPLIED.map((implied) => resolve(path, `index${implied}`)));
  return tries.find((path) => {
    try {
      const stat = statSync(path, { throwIfNoEntry: false }) ?? lstatSync(path, { throwIfNoEntry: false });
      return stat !== undefined && !stat.isDirectory();
    } catch {
      return false; // a name too long for the file system (ENAMETOOLONG), or a file in the way of a folder: nothing there
    }
  });
}

/** Where a link leads, its target unresolved: in the bundler's sandbox a link out of src/ leads to nothing there. */
function linkTarget(path: string): string | undefined {
  try {
    return resolve(dirname(path), readlinkSync(path));
  } catch {
    return undefined;
  }
}

/** A path's real path, or undefined when it is gone. */
function real(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

export function confine({ entries, folder, base, packages }: Confinement): Plugin {
  const realFolder = real(folder) ?? folder; // none: a submission without src/, whose imports all find nothing
  // An entry under the folder (the module itself) is held to it like any file; the driver is the course's.
  const realEntries = new Set(
    entries.flatMap((entry) => {
      const path = real(entry);
      return path === undefined || (within(folder, entry) && !within(realFolder, path)) ? [] : [path];
    }),
  );
  const outside = `${shown(base, folder)}/`;
  const allowed = new Set(packages);
  /** Every file this plugin resolved: what esbuild loads besides is what it found by itself. */
  const resolved = new Set<string>();
  let bytes = 0;
  let files = 0;
  const refuse = (text: string) => ({ errors: [{ text, detail: REFUSED }] });
  return {
    name: 'theinference-confine',
    setup(build) {
      // Node's builtins by their `node:` names are esbuild's own to leave as imports (no file is read).
      build.onResolve({ filter: NOT_NODE_BUILTIN }, (args) => {
        const specifier = args.path;
        const refused = (why: string) => refuse(`imports "${oneLine(specifier, SPECIFIER_CHARS)}", ${why}`);
        if (args.kind === 'entry-point') {
          const path = real(specifier);
          if (path !== undefined && realEntries.has(path)) {
            resolved.add(path);
            return { path };
          }
          if (lstatSync(specifier, { throwIfNoEntry: false })) return refused(`a link to a file outside ${outside}`);
          return { errors: [{ text: `cannot find ${shown(base, specifier)}` }] };
        }
        if (isBuiltin(specifier)) return { path: specifier, external: true };
        if (isPackage(specifier)) {
          if (allowed.has(packageName(specifier))) return { path: specifier, external: true };
          const listed = packages.length === 0 ? 'none' : packages.join(', ');
          return refused(`a package the course does not allow (course.yaml's packages: ${listed}): ${COURSE_RULE}`);
        }
        if (!isRelative(specifier)) {
          return refused(
            isAbsolute(specifier) ? 'an absolute path: import your own files by a relative path' : 'which is not a relative path or a package name',
          );
        }
        const wanted = resolve(dirname(args.importer), specifier);
        if (!within(realFolder, wanted)) return refused(`which is outside ${outside}: only the files there are bundled`);
        const found = candidate(wanted);
        const path = found && (real(found) ?? linkTarget(found));
        if (path === undefined) return { errors: [{ text: `cannot find "${oneLine(specifier, SPECIFIER_CHARS)}"` }] }; // a typo, or gone meanwhile
        if (!within(realFolder, path)) return refused(`a link to a file outside ${outside}`);
        if (real(path) === undefined) return { errors: [{ text: `cannot find "${oneLine(specifier, SPECIFIER_CHARS)}"` }] }; // a link to nothing under src/
        if (!statSync(path).isFile()) return refused(NOT_A_FILE);
        resolved.add(path);
        return { path };
      });
      build.onLoad({ filter: /.*/ }, (args) => {
        // A file no import named: esbuild found it expanding a computed import. Refused, wherever it is.
        if (!resolved.has(args.path)) return refuse(`a computed import (a template literal, or a string built from parts): ${COMPUTED_WORDS}`);
        const path = real(args.path);
        if (path === undefined || !(realEntries.has(path) || within(realFolder, path))) return refuse(`imports ${shown(base, args.path)}, outside ${outside}`);
        const contents = readRegularFile(path, MAX_BUNDLE_INPUT_BYTES);
        if (typeof contents === 'string') return refuse(`imports ${shown(base, args.path)}, ${contents}`);
        files += 1;
        bytes += contents.length;
        if (files > MAX_BUNDLE_FILES) return refuse(`more than ${MAX_BUNDLE_FILES} files are imported`);
        if (bytes > MAX_BUNDLE_INPUT_BYTES) return refuse(`the imported files are larger than ${mib(MAX_BUNDLE_INPUT_BYTES)} together`);
        const type = args.with.type;
        const loader = type === 'text' ? 'text' : type === 'json' ? 'json' : (LOADERS[extname(path)] ?? 'default');
        // esbuild reads the source map a script links to by itself, to carry it into the bundle's.
        const linked = loader === 'text' || loader === 'json' ? undefined : mapOutside(contents, dirname(path), realFolder);
        if (linked !== undefined)
          return refuse(`${shown(base, args.path)} links a source map outside ${outside} (${linked}): only the files there are bundled`);
        return { contents, loader };
      });
    },
  };
}

const COMPUTED_WORDS = 'import each of your files by a string literal, so that the bundle holds what you name and nothing else';
/** The most characters of an import quoted in a refusal: the words after it say why, and must fit. */
const SPECIFIER_CHARS = 200;
const NOT_A_FILE = 'a device, a FIFO or a socket, not a file: only files are bundled';

/** Marks an error as a refusal (not a mistake in the code). */
export const REFUSED = 'theinference: refused';

/** The first `sourceMappingURL` of a script that names a file outside `folder` (a data: URL names none). */
export function mapOutside(contents: Uint8Array, dir: string, folder: string): string | undefined {
  const text = Buffer.from(contents.buffer, contents.byteOffset, contents.byteLength).toString('latin1');
  for (const [, url] of text.matchAll(/[#@][ \t]*sourceMappingURL[ \t]*=[ \t]*([^\s*'"`]+)/g)) {
    if (url!.startsWith('data:')) continue;
    let path: string;
    try {
      path = url!.startsWith('file:') ? new URL(url!).pathname : resolve(dir, decodeURIComponent(url!));
    } catch {
      return url;
    }
    // a file that is not there has no real path: asked without the exception real() makes, which costs
    // ten times as much (a file of 16 MiB may name half a million maps: 11 s of the bundler's 10)
    const found = (existsSync(path) ? real(path) : undefined) ?? path;
    if (!within(folder, found)) return url;
  }
  return undefined;
}

/** A computed import in a bundle that was made: one whose files were all loaded already (the file
 *  itself, or files imported by name too) reaches no onLoad, but esbuild lists it among the file's
 *  imports as the pattern it expanded (`./**\/*.ts`). */
export function computedImportIn(metafile: Metafile): string | undefined {
  for (const [file, input] of Object.entries(metafile.inputs)) {
    const glob = input.imports.find((record) => record.path.includes('*'));
    if (glob) return `${file}: a computed import (esbuild reads it as "${oneLine(glob.path, SPECIFIER_CHARS)}"): ${COMPUTED_WORDS}`;
  }
  return undefined;
}

/** The most characters of a refusal's file name and of its words: both are the student's to choose
 *  (esbuild's words quote their code, a token or an import of any length), and the refusal goes back to
 *  the grader on the bundler's outcome line, whose cap (64 KiB, bundle.ts) holds two entries' refusals. */
const REFUSAL_FILE_CHARS = 500;
const REFUSAL_WORDS_CHARS = 2000;
/** How much of a long line the code frame shows around the error, and how much of that before it. */
const FRAME_CHARS = 120;
const FRAME_CHARS_BEFORE = 40;

/** Refusals and compile errors of a failed build, as one line: `<file>:<line>:<column>: <what>`, the
 *  file as it stands in the run root; a refusal (the plugin's, or a computed import) before a mistake. */
export function refusalOf(errors: readonly Message[]): string | undefined {
  const refusedHere = errors.find((message) => computedWords(message) !== undefined || message.detail === REFUSED);
  const first = refusedHere ?? errors[0];
  if (first === undefined) return undefined;
  // The file's name and esbuild's words (which quote the code) are the student's to choose: a line break in
  // them must not start a line of theirs under ours. Only the code frame's lines follow the first.
  const at = first.location ? `${oneLine(first.location.file, REFUSAL_FILE_CHARS)}:${first.location.line}:${first.location.column + 1}: ` : '';
  const words = oneLine(computedWords(first) ?? first.text, REFUSAL_WORDS_CHARS);
  return refusedHere ? `${at}${words}` : `${at}${words} (your code does not compile)${codeFrame(first)}`;
}

/** Under a compile error, the line it is on and a caret under where (`\n  12 | code\n     |   ^`): the
 *  lines after the first, which a verdict shows as its details. A line longer than FRAME_CHARS is shown
 *  as the window of it around the error, cut with `…`, the caret under the same place. */
function codeFrame({ location }: Message): string {
  if (!location?.lineText) return '';
  const line = location.lineText;
  const column = Math.min(location.column, line.length);
  let from = line.length <= FRAME_CHARS ? 0 : Math.max(0, Math.min(column - FRAME_CHARS_BEFORE, line.length - FRAME_CHARS));
  let to = Math.min(line.length, from + FRAME_CHARS);
  // a cut between the two halves of a character would show neither
  if (isLowSurrogate(line.charCodeAt(from)) && from < column) from++;
  if (isLowSurrogate(line.charCodeAt(to)) && to > column) to--;
  const before = `${from > 0 ? '…' : ''}${escapeControls(line.slice(from, column))}`;
  const after = `${escapeControls(line.slice(column, to))}${to < line.length ? '…' : ''}`;
  const number = String(location.line);
  const gutter = ' '.repeat(number.length);
  const marks = '^'.repeat(Math.max(1, Math.min(location.length, to - column)));
  return `\n  ${number} | ${before}${after}\n  ${gutter} | ${' '.repeat(before.length)}${marks}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** A computed import, told in the course's words: one esbuild cannot expand (its own message, made an
 *  error), or one whose pattern matched nothing (in the sandbox, outside src/ there is nothing to match). */
function computedWords(message: Message): string | undefined {
  const kind = COMPUTED_IMPORTS[message.id];
  if (kind !== undefined) return `${kind}: ${COMPUTED_WORDS}`;
  const pattern = unresolvedPattern(message.text);
  return pattern === undefined
    ? undefined
    : `a computed import (esbuild reads it as "${oneLine(pattern, SPECIFIER_CHARS)}", and finds nothing there): ${COMPUTED_WORDS}`;
}

/** The pattern of `Could not resolve import("<pattern>")` (or require) that has a `*` in it: up to the
 *  last `")` of the message's first line, with a `*` before it. Read off with indexOf, not matched as
 *  `("(.*\*.*)"\)`, which scans the rest of the line again from every `*` when no `")` follows them
 *  (the pattern is the submission's). */
function unresolvedPattern(text: string): string | undefined {
  const opening = /^Could not resolve (?:import|require)\("/.exec(text)?.[0];
  if (opening === undefined) return undefined;
  const [line = ''] = text.slice(opening.length).split(/[\n\r\u2028\u2029]/, 1);
  const close = line.lastIndexOf('")');
  const star = line.indexOf('*');
  return star !== -1 && star < close ? line.slice(0, close) : undefined;
}

/** A regular file's bytes, at most `maxBytes`, read without following a link and without waiting on a
 *  FIFO; or why not. */
export function readRegularFile(path: string, maxBytes: number): Uint8Array | string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return `unreadable (${(error as NodeJS.ErrnoException).code})`;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return NOT_A_FILE;
    if (stat.size > maxBytes) return `larger than ${mib(maxBytes)}`;
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

/** A path as a refusal names it: from `base`, its control characters (a line break) shown escaped. */
function shown(base: string, path: string): string {
  const rel = relative(base, path);
  return oneLine(rel === '' || rel.startsWith('..') ? path : rel);
}

function mib(bytes: number): string {
  return `${bytes / 1024 / 1024} MiB`;
}
