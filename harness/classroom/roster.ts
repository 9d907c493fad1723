// The class to grade: a roster in CSV, as GitHub Classroom exports an assignment's grades (one row per
// student: `roster_identifier`, `github_username`, `student_repository_url`, ...) or any CSV with a
// column naming the student and one naming the repository; a `commit` or a `deadline` column pins what
// is graded. Read with a CSV library (quoted fields, commas and line breaks inside them); a roster that
// cannot be read stops the run, naming the file, the line and what was expected. A row that names no
// student does not: GitHub Classroom leaves `roster_identifier` blank for every student who never linked
// an identity, so such a row is named by the next column that names them (`github_username`), and a row
// with no name at all is that row's problem, while the rest of the class is graded.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { InputError } from '../errors.ts';

export interface Student {
  /** Who, as the roster names them (unique): the first of its naming columns given on this row. Empty
   *  when none is (see `problem`). */
  id: string;
  /** Their GitHub login, when the roster has a `github_username` column (what a platform may match on). */
  githubUsername?: string;
  /** What the row's reason says of the roster's row: it is named by a later column than the roster's first
   *  (its identifier is blank), its submission_timestamp could not be read. */
  note?: string;
  /** Why the row cannot be graded: it names no student. */
  problem?: string;
  /** Where their repository is (a URL git fetches: https, ssh or file); empty when the roster has none
   *  (a student who never accepted the assignment). */
  repository: string;
  /** The commit to grade, when the roster pins one. */
  commit?: string;
  /** The last moment a graded commit may have been made at, when there is one (the row's, else the run's). */
  deadline?: Date;
  /** When GitHub Classroom says the student submitted (its `submission_timestamp`), where the roster gives it:
   *  a time the platform recorded, not the student's git. */
  submittedAt?: Date;
  /** The roster's line of this row (1-based, its header is line 1). */
  line: number;
  /** Its place in the roster (0-based): the order of the gradebook, and what shards split. */
  position: number;
}

/** A roster that cannot be read: one line, naming the file and the line. */
export class RosterError extends InputError {}

/** Columns that name the student, in the order they are looked for. */
const ID_COLUMNS = ['roster_identifier', 'identifier', 'github_username', 'student', 'login'];
/** Columns that give the repository. */
const REPOSITORY_COLUMNS = ['student_repository_url', 'repository_url', 'repository', 'repo', 'url'];
const GITHUB_USERNAME = 'github_username';
const COMMIT_COLUMNS = ['commit', 'sha'];
const DEADLINE_COLUMNS = ['deadline'];
const SUBMITTED_COLUMNS = ['submission_timestamp'];
/** A git object name, in full or abbreviated (at least 7 hex digits). */
const COMMIT = /^[0-9a-f]{7,64}$/i;

export function readRoster(path: string, deadline?: Date): Student[] {
  let rows: string[][];
  try {
    rows = parse(readFileSync(path), { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (error) {
    const { code, lines } = error as { code?: string; lines?: number };
    if (code === 'ENOENT') throw new RosterError(`${path}: no such file (the roster: a CSV with a column naming each student and one giving their repository)`);
    throw new RosterError(`${path}${lines === undefined ? '' : `:${lines}`}: not CSV (${(error as Error).message.split('\n')[0]})`);
  }
  const [header, ...body] = rows;
  if (header === undefined) throw new RosterError(`${path}: empty (expected a header line, then a row per student)`);
  const columns = header.map((name) => name.toLowerCase());
  const find = (names: string[]) => names.map((name) => columns.indexOf(name)).find((index) => index >= 0);
  // every naming column present, in ID_COLUMNS' order: the first is the roster's, the others its fallbacks
  const idColumns = ID_COLUMNS.map((name) => columns.indexOf(name)).filter((index) => index >= 0);
  const idColumn = idColumns[0];
  const repositoryColumn = find(REPOSITORY_COLUMNS);
  if (idColumn === undefined) throw new RosterError(`${path}:1: no column names the student (expected one of ${ID_COLUMNS.join(', ')})`);
  if (repositoryColumn === undefined) throw new RosterError(`${path}:1: no column gives the repository (expected one of ${REPOSITORY_COLUMNS.join(', ')})`);
  const commitColumn = find(COMMIT_COLUMNS);
  const deadlineColumn = find(DEADLINE_COLUMNS);
  const usernameColumn = find([GITHUB_USERNAME]);
  const submittedColumn = find(SUBMITTED_COLUMNS);
  const seen = new Map<string, number>();
  return body.map((row, index) => {
    const line = index + 2;
    const at = (column: number | undefined) => (column === undefined ? '' : (row[column] ?? ''));
    const naming = idColumns.find((column) => at(column) !== '');
    const id = naming === undefined ? '' : at(naming);
    const names = idColumns.map((column) => `"${header[column]}"`).join(' or ');
    const named = naming !== undefined && naming !== idColumn ? `named by ${header[naming]}: its ${header[idColumn]} is blank` : undefined;
    const problem = naming === undefined ? `${basename(path)}:${line} names no student (${names} blank)` : undefined;
    if (id !== '') {
      const earlier = seen.get(id);
      if (earlier !== undefined) throw new RosterError(`${path}:${line}: student "${id}" is on line ${earlier} already`);
      seen.set(id, line);
    }
    const commit = at(commitColumn);
    if (commit !== '' && !COMMIT.test(commit)) throw new RosterError(`${path}:${line}: "${commit}" is not a commit (expected 7 to 64 hex digits)`);
    const own = at(deadlineColumn);
    const rowDeadline = own === '' ? undefined : new Date(own);
    if (rowDeadline !== undefined && Number.isNaN(rowDeadline.getTime()))
      throw new RosterError(`${path}:${line}: "${own}" is not a date and time (expected ISO 8601, e.g. 2026-12-01T23:59:00Z)`);
    // the platform's column: one it writes oddly is that row's note, not a stop for the class
    const submitted = at(submittedColumn);
    const parsed = submitted === '' ? undefined : new Date(submitted);
    const submittedAt = parsed !== undefined && !Number.isNaN(parsed.getTime()) ? parsed : undefined;
    const unread = parsed !== undefined && submittedAt === undefined ? `its ${header[submittedColumn!]} "${submitted}" is not a date and time` : undefined;
    const notes = [named, unread].filter((part) => part !== undefined).join('; ');
    const when = rowDeadline ?? deadline;
    const username = at(usernameColumn);
    return {
      id,
      ...(username !== '' && { githubUsername: username }),
      ...(notes !== '' && { note: notes }),
      ...(problem && { problem }),
      repository: at(repositoryColumn),
      ...(commit !== '' && { commit }),
      ...(when && { deadline: when }),
      ...(submittedAt && { submittedAt }),
      line,
      position: index,
    };
  });
}
