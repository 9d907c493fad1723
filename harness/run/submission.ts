// A submission is graded as src/ only: a scratch copy of the course (its program.ts,
// your_program.sh and case inputs) with the submission's src/ put in, so that nothing else the
// submission contains can change how it is graded. The expected outputs (fixtures/) stay in the
// course: the grader reads them from there, and a program looking for them in its folder finds none.
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SubmissionError } from '../errors.ts';
// A file under src/ larger than a bundle may read in all is of no use: it is left out of the copy.
import { MAX_BUNDLE_INPUT_BYTES as MAX_FILE_COPIED } from './confine.ts';

/** What the course contributes to a scratch copy; everything else comes from nowhere. */
const COURSE_PARTS = ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'tsconfig.json', 'cases'];
/** Folders of a submission that say nothing about what it changed. */
const NOT_COMPARED = new Set(['src', 'node_modules', '.git']);
/** A submission with more files than this outside src/ is not walked further (the list says so). */
const MAX_FILES_COMPARED = 5000;

export interface OutsideChange {
  /** Relative to the submission's folder. */
  path: string;
  change: 'modified' | 'added';
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

export function scratchCopy(courseRoot: string, submission: string): Scratch {
  if (!statSync(submission, { throwIfNoEntry: false })?.isDirectory()) {
    throw new SubmissionError(`--submission ${submission}: no such folder`);
  }
  const root = mkdtempSync(join(tmpdir(), 'theinference-'));
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
    symlinkSync(join(courseRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
    const facts = { ...changesOutsideSrc(courseRoot, submission), linksIgnored, filesIgnored, hasEntryPoint: existsSync(join(root, 'src', 'mcp.ts')) };
    return { root, facts, remove: () => rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

/** The files outside src/ that the submission has and the course has not, or has with other bytes. */
function changesOutsideSrc(courseRoot: string, submission: string): Pick<SubmissionFacts, 'changedOutsideSrc' | 'changesCut'> {
  const changed: OutsideChange[] = [];
  let seen = 0;
  const walk = (folder: string): boolean => {
    for (const entry of readdirSync(join(submission, folder), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = folder === '' ? entry.name : join(folder, entry.name);
      if (folder === '' && NOT_COMPARED.has(entry.name)) continue;
      if (entry.isDirectory()) {
        if (!walk(path)) return false;
        continue;
      }
      if (!entry.isFile() && !entry.isSymbolicLink()) continue;
      if (++seen > MAX_FILES_COMPARED) return false;
      const change = compare(join(courseRoot, path), join(submission, path));
      if (change) changed.push({ path, change });
    }
    return true;
  };
  const complete = walk('');
  return { changedOutsideSrc: changed, changesCut: !complete };
}

function compare(coursePath: string, submissionPath: string): OutsideChange['change'] | undefined {
  const course = lstatSync(coursePath, { throwIfNoEntry: false });
  if (!course?.isFile()) return 'added';
  const mine = lstatSync(submissionPath);
  if (!mine.isFile() || mine.size !== course.size) return 'modified';
  return readFileSync(coursePath).equals(readFileSync(submissionPath)) ? undefined : 'modified';
}
