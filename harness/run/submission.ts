// A submission is graded as src/ only: a scratch copy of the course (its program.ts,
// your_program.sh and case inputs) with the submission's src/ put in, so that nothing else the
// submission contains can change how it is graded. The expected outputs (fixtures/) stay in the
// course: the grader reads them from there, and a program looking for them in its folder finds none.
// What else the submission holds is compared with the course, to say what of it was not used.
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { SubmissionError } from '../errors.ts';
import { dependenciesOf } from '../grader-package.ts';
// A file under src/ larger than a bundle may read in all is of no use: it is left out of the copy.
import { MAX_BUNDLE_INPUT_BYTES as MAX_FILE_COPIED } from './confine.ts';
import { scratchFolder } from '../scratch.ts';

/** What the course contributes to a scratch copy; everything else comes from nowhere. */
const COURSE_PARTS = ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'tsconfig.json', 'cases'];
/** Folders of a submission that say nothing about what it changed. */
const NOT_COMPARED = new Set(['src', 'node_modules', '.git']);
/** A submission with more files than this outside src/ is not walked further (the list says so). */
const MAX_FILES_COMPARED = 5000;

/** What of the course a student's repository holds (what `export` writes of it): these files, and every
 *  file under these folders. The rest of it (src/, package.json, the README, the workflow) is the student's.
 *  The docs are course.md and the pages it points to; tsconfig.json is made for the repository (studentTsconfig). */
export const PUBLISHED = {
  files: ['course.yaml', 'program.ts', 'your_program.sh', 'tsconfig.json', 'docs/course.md', 'docs/cassettes.md', 'docs/conformance.md'],
  folders: ['cases', 'fixtures'],
};

/** Where the stages' contracts are: harness/stages/contract.ts and harness/stages/<slug>/contract.ts. */
const CONTRACTS = join('harness', 'stages');
const CONTRACT = 'contract.ts';
/** What the contracts are made of (JSON), which they import. */
const JSON_TYPES = join('harness', 'json.ts');

/** The stages' contracts: the types of what program.ts reads and prints, which it imports (`import type`,
 *  gone once it runs, so no program is shown them). A student's editor checks program.ts with them, so
 *  they are published beside it, in the same place, and nothing else of the harness is. */
export function contractFiles(courseRoot: string): string[] {
  const folder = join(courseRoot, CONTRACTS);
  if (!existsSync(folder)) return [];
  const stages = readdirSync(folder, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? [join(entry.name, CONTRACT)] : []));
  const contracts = [CONTRACT, ...stages.sort()].filter((path) => existsSync(join(folder, path))).map((path) => join(CONTRACTS, path));
  return [...(contracts.length > 0 ? [JSON_TYPES] : []), ...contracts];
}

/** Every published file of the course at `courseRoot` but those under PUBLISHED.folders. */
export function publishedFiles(courseRoot: string): string[] {
  return [...PUBLISHED.files, ...contractFiles(courseRoot)];
}

/** The names at the top of a student's repository that come from the course: its published files and folders, and src/ (the starter). */
const STUDENT_TOP = new Set([...PUBLISHED.files, ...PUBLISHED.folders, CONTRACTS, 'src'].map((path) => path.split('/')[0]!));

/** The tsconfig.json of a student's repository, made from the course's: its compiler options as they are
 *  (the bundler grades with them, in the repository as in CI), its `include` and `files` without what the
 *  repository has not (the course's harness/, test/, starter/...), so that an editor there finds every
 *  path it names. A pattern whose first part is a wildcard is kept; a tsconfig.json that is not plain JSON
 *  is kept as it is (the bundler reads none of it either). */
export function studentTsconfig(course: string): string {
  let config: unknown;
  try {
    config = JSON.parse(course);
  } catch {
    return course;
  }
  if (typeof config !== 'object' || config === null || Array.isArray(config)) return course;
  const held = (entry: unknown) => {
    if (typeof entry !== 'string') return true;
    const first = entry.replace(/^\.\//, '').split('/')[0]!;
    return /[*?]/.test(first) || STUDENT_TOP.has(first);
  };
  const made = Object.entries(config).map(([key, value]) => [key, (key === 'include' || key === 'files') && Array.isArray(value) ? value.filter(held) : value]);
  return `${JSON.stringify(Object.fromEntries(made), null, 2)}\n`;
}

/** The published files a student's repository holds in a form made for it, compared with that form, not the course's bytes. */
const MADE_FOR_STUDENTS = new Map([['tsconfig.json', studentTsconfig]]);

/** A published file as a student's repository holds it (what `export` writes): the course's text, or the form made from it. */
export function forStudents(path: string, course: string): string {
  return MADE_FOR_STUDENTS.get(path)?.(course) ?? course;
}

/** How a submission is compared with the course: every file outside src/ (a submission of any shape), or,
 *  for a student's repository graded with the course as published, the course's files (PUBLISHED) alone. */
export type ComparedWith = 'outside-src' | 'published';

export interface OutsideChange {
  /** Relative to the submission's folder. */
  path: string;
  /** `missing`: a course file the repository does not have (compared with the published course only). */
  change: 'modified' | 'added' | 'missing';
}

export interface SubmissionFacts {
  /** Files outside src/ that differ from the course's or that the course does not have: none of them was used. */
  changedOutsideSrc: OutsideChange[];
  /** Whether the walk stopped at MAX_FILES_COMPARED. */
  changesCut: boolean;
  /** Symbolic links under src/, left out of the copy (a link could reach the course's own solution). */
  linksIgnored: string[];
  /** Files under src/ left out of the copy: not regular files (a FIFO would stop the copy, a device feed it
   *  without end), or too large. */
  filesIgnored: { path: string; why: string }[];
  hasEntryPoint: boolean;
}

export interface Scratch {
  root: string;
  facts: SubmissionFacts;
  remove(): void;
}

export function scratchCopy(courseRoot: string, submission: string, comparison: ComparedWith = 'outside-src'): Scratch {
  if (!statSync(submission, { throwIfNoEntry: false })?.isDirectory()) {
    throw new SubmissionError(`--submission ${submission}: no such folder`);
  }
  const root = scratchFolder('submission');
  try {
    for (const part of COURSE_PARTS) {
      if (existsSync(join(courseRoot, part))) cpSync(join(courseRoot, part), join(root, part), { recursive: true });
    }
    const src = join(submission, 'src');
    const linksIgnored: string[] = [];
    const filesIgnored: SubmissionFacts['filesIgnored'] = [];
    if (statSync(src, { throwIfNoEntry: false })?.isDirectory()) {
      cpSync(src, join(root, 'src'), {
        recursive: true,
        filter: (from) => {
          const stat = lstatSync(from);
          if (stat.isDirectory() || (stat.isFile() && stat.size <= MAX_FILE_COPIED)) return true;
          if (stat.isSymbolicLink()) linksIgnored.push(relative(submission, from));
          else
            filesIgnored.push({
              path: relative(submission, from),
              why: stat.isFile() ? `larger than ${MAX_FILE_COPIED / 1024 / 1024} MiB` : 'not a regular file',
            });
          return false;
        },
      });
    }
    symlinkSync(dependenciesOf(courseRoot), join(root, 'node_modules'), 'dir');
    const changes = comparison === 'published' ? changesFromPublished(courseRoot, submission) : changesOutsideSrc(courseRoot, submission);
    const facts = { ...changes, linksIgnored, filesIgnored, hasEntryPoint: existsSync(join(root, 'src', 'mcp.ts')) };
    return { root, facts, remove: () => rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** The files outside src/ that the submission has and the course has not, or has with other bytes. */
function changesOutsideSrc(courseRoot: string, submission: string): Pick<SubmissionFacts, 'changedOutsideSrc' | 'changesCut'> {
  const { paths, complete } = filesIn(submission, ['']);
  return { changedOutsideSrc: changes(courseRoot, submission, paths), changesCut: !complete };
}

/** A student's repository against the course as published: each of the course's files it does not have or
 *  has with other bytes, and each file it has beside them in the course's folders. */
function changesFromPublished(courseRoot: string, repository: string): Pick<SubmissionFacts, 'changedOutsideSrc' | 'changesCut'> {
  const mine = filesIn(repository, PUBLISHED.folders);
  const paths = new Set([...publishedFiles(courseRoot), ...filesIn(courseRoot, PUBLISHED.folders).paths, ...mine.paths]);
  return {
    changedOutsideSrc: changes(
      courseRoot,
      repository,
      [...paths].sort((a, b) => a.localeCompare(b)),
      MADE_FOR_STUDENTS,
    ),
    changesCut: !mine.complete,
  };
}

/** `made`: the files compared with a form made from the course's (MADE_FOR_STUDENTS), by their paths. */
function changes(courseRoot: string, submission: string, paths: string[], made = new Map<string, (course: string) => string>()): OutsideChange[] {
  return paths.flatMap((path) => {
    const make = made.get(path);
    const change = make ? compareMade(join(courseRoot, path), make, join(submission, path)) : compare(join(courseRoot, path), join(submission, path));
    return change ? [{ path, change }] : [];
  });
}

/** As compare, with the submission's file held to `make` of the course's. */
function compareMade(coursePath: string, make: (course: string) => string, submissionPath: string): OutsideChange['change'] | undefined {
  const mine = lstatSync(submissionPath, { throwIfNoEntry: false });
  if (!lstatSync(coursePath, { throwIfNoEntry: false })?.isFile() || !mine?.isFile()) return compare(coursePath, submissionPath);
  return readFileSync(submissionPath).equals(Buffer.from(make(readFileSync(coursePath, 'utf8')))) ? undefined : 'modified';
}

/** The files (and links) under `folders` of `root` ('' for all of it, but NOT_COMPARED), relative to it, in
 *  name order; `complete` is false where the walk stopped at MAX_FILES_COMPARED. */
function filesIn(root: string, folders: readonly string[]): { paths: string[]; complete: boolean } {
  const paths: string[] = [];
  const walk = (folder: string): boolean => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = folder === '' ? entry.name : join(folder, entry.name);
      if (folder === '' && NOT_COMPARED.has(entry.name)) continue;
      if (entry.isDirectory()) {
        if (!walk(path)) return false;
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (paths.length >= MAX_FILES_COMPARED) return false;
      paths.push(path);
    }
    return true;
  };
  // a folder that is a link is not walked: it could lead anywhere
  const walked = (folder: string) => folder === '' || lstatSync(join(root, folder), { throwIfNoEntry: false })?.isDirectory() === true;
  const complete = folders.every((folder) => !walked(folder) || walk(folder));
  return { paths, complete };
}

function compare(coursePath: string, submissionPath: string): OutsideChange['change'] | undefined {
  const course = lstatSync(coursePath, { throwIfNoEntry: false });
  const mine = lstatSync(submissionPath, { throwIfNoEntry: false });
  if (!course?.isFile()) return mine ? 'added' : undefined;
  if (!mine) return 'missing';
  if (!mine.isFile() || mine.size !== course.size) return 'modified';
  return digest(coursePath) === digest(submissionPath) ? undefined : 'modified';
}

function digest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
