// A class graded from the teacher's repository: for each student of the roster (this shard's), their
// repository's src/ fetched (fetch.ts), then graded as CI grades a submission, by this grader in a
// process of its own (`theinference test --all --submission`: the scratch copy, the sandbox, the course's
// own program.ts, cases and fixtures, the generated and the hidden cases, one seed for the class), up to
// `jobs` students at once. Nothing of a student's but src/ is read, and nothing of theirs runs outside
// the sandbox. A student who cannot be graded gets a row that says why; the rest of the class is graded.
//
// Other students' work, and the hidden cases, are on the machine: every grading is sealed (ci/grade.ts).
// A student's folder (students/<folder>/) gets the sealed results.json, summary and HTML report; the
// teacher's (teacher/<folder>/) the whole ones and the grading's terminal output. With hidden cases, every
// student's other checks are graded before anyone's hidden ones, so that no program whose verdict a
// student reads runs once a program has met a hidden case, theirs or a classmate's.
//
// Each student's grading is bounded in CPU time (the grader's and its programs' together), with a wall
// backstop that follows its progress (run/spawn.ts): one that goes past it is that student's error row.
// The gradebook is written again as each student's row is done, so a run that is killed leaves every row
// done so far; run again on the same folder, it grades only the rest. Given students to grade again
// (`regrade`), a run on a finished gradebook grades only those, in place: every other row and folder is
// kept as it is, byte for byte.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Course, Stage } from '../course.ts';
import { InputError } from '../errors.ts';
import { inShard, type Shard } from '../ci/shard.ts';
import { TEACHER_FILES } from '../ci/grade.ts';
import { courseDigest } from '../report/course-digest.ts';
import { REPORT_FORMATS } from '../report/formats.ts';
import { mergeParts, readReport } from '../report/merge.ts';
import type { ResultsReport } from '../report/model.ts';
import { graderVersion } from '../report/version.ts';
import { writeAtomically } from '../files.ts';
import { runPooled } from '../run/pool.ts';
import { runProcess } from '../run/spawn.ts';
import { oneLine } from '../terminal-text.ts';
import { FetchProblem, fetchSubmission, type Fetched } from './fetch.ts';
import {
  type DeadlineRule,
  GRADEBOOK_VERSION,
  gradedRow,
  readGradebook,
  rosterDigest,
  ungradedRow,
  writeGradebook,
  type Gradebook,
  type GradebookRow,
} from './gradebook.ts';
import { readRoster, type Student } from './roster.ts';
import { scratchFolder } from '../scratch.ts';

export interface ClassSettings {
  course: Course;
  /** The stages each student is graded on, in course order: every one, or those up to --stage. */
  stages: readonly Stage[];
  roster: string;
  /** The gradebook's folder: new, empty, or one this class's run left (its rows done are kept). */
  out: string;
  /** Students (as the roster names them, or several, comma-separated) to grade again into the gradebook
   *  `out` holds, every other row kept as it is; none: grade the students not graded yet. */
  regrade?: readonly string[];
  /** The generated cases and property tests of every student; none: the gradebook's, else classSeed's. */
  seed?: number;
  shard: Shard;
  /** Students graded at once. */
  jobs: number;
  /** The run's deadline, where the roster gives none for a student. */
  deadline?: Date;
  /** Hidden cases (--cases), given to every student's grading. */
  hiddenDir?: string;
  /** Options handed on to each student's `theinference test` (--stage, --runs, --random, --no-network ...). */
  testArgs: string[];
  /** The most CPU time one student's grading may take, the grader's and its programs' together. */
  studentCpuMs: number;
  /** The teacher's token for reading private repositories on GitHub (CLASSROOM_TOKEN). */
  token?: string;
  write: (text: string) => void;
  signal?: AbortSignal;
}

/** The grader's own command line, run for each student. */
const BIN = fileURLToPath(new URL('../../bin/theinference.js', import.meta.url));
/** The teacher's credentials, which a student's grading process is never given (programEnv keeps them
 *  from every program anyway; the grader itself has no need of them). */
const KEPT_FROM_GRADING = ['CLASSROOM_TOKEN', 'GITHUB_TOKEN', 'GH_TOKEN'];
/** What a student's grading may print (its terminal output, kept in the teacher's folder). */
const GRADING_OUTPUT_BYTES = 16 * 1024 * 1024;
/** The checks graded before any student's hidden cases, and those graded after. */
const BEFORE_HIDDEN = 'public,generated,property';
const HIDDEN = 'hidden';

export async function gradeClass(settings: ClassSettings): Promise<number> {
  const students = readRoster(settings.roster, settings.deadline);
  const earlier = earlierRun(settings);
  // refused before anything is written
  const again = settings.regrade === undefined ? undefined : regraded(settings, settings.regrade, students, earlier);
  const seed = settings.seed ?? earlier?.seed ?? classSeed(settings);
  const mine = students.filter((student) => inShard(student.position, settings.shard));
  const folders = studentFolders(students);
  // A rerun keeps the rows that passed or failed; a regrade every row but those it grades again (and
  // those still to grade, which it leaves so).
  const keep = (row: GradebookRow) =>
    again === undefined
      ? row.status === 'pass' || row.status === 'fail'
      : !again.has(row.student) && !(row.status === 'not graded' && row.reason.endsWith(NOT_YET));
  const done = new Map((earlier?.rows ?? []).filter(keep).map((row) => [row.student, row]));
  // a row that names no student cannot be graded (nor kept apart from another such row): its error row is made in save
  const rest = mine.filter((student) => student.problem === undefined && (again === undefined ? !done.has(student.id) : again.has(student.id)));
  mkdirSync(join(settings.out, 'students'), { recursive: true });
  mkdirSync(join(settings.out, 'teacher'), { recursive: true });
  // what an earlier grading of a student graded again wrote goes, so that none of it outlives their new row
  for (const student of again === undefined ? [] : rest)
    for (const part of ['students', 'teacher']) rmSync(join(settings.out, part, folders.get(student.position)!), { recursive: true, force: true });
  const book: Gradebook = {
    version: GRADEBOOK_VERSION,
    course: { digest: courseDigest(settings.course) },
    roster: { digest: rosterDigest(settings.roster), students: students.length },
    seed,
    shard: settings.shard.count > 1 ? settings.shard : null,
    mergedShards: earlier?.mergedShards ?? null,
    startedAt: earlier?.startedAt ?? new Date().toISOString(),
    grader: { name: 'theinference', version: graderVersion() },
    stages: settings.stages.map((stage) => ({ slug: stage.slug, title: stage.title, points: stage.points })),
    rows: [],
    problems: [],
  };
  // Every student of the shard has a row: theirs once done, until then one that says so.
  const save = () => {
    book.rows = mine.map((student) => {
      const base = baseRow(student, folders.get(student.position)!);
      if (student.problem !== undefined) return ungradedRow(base, 'error', student.problem, settings.stages.length);
      return done.get(student.id) ?? ungradedRow(base, 'not graded', withNote(student, NOT_YET), settings.stages.length);
    });
    const missing = mine.filter((student) => student.problem === undefined && !done.has(student.id)).length;
    book.problems = missing === 0 ? [] : [`${missing} of ${mine.length} students not graded yet: run classroom again with this --out to grade them`];
    writeGradebook(settings.out, book);
  };
  save();
  const kept = mine.length - rest.length;
  settings.write(
    `grading ${rest.length} of ${students.length} students${again === undefined ? '' : ' again'}${settings.shard.count > 1 ? ` (shard ${settings.shard.index}/${settings.shard.count})` : ''}` +
      `${kept > 0 ? (again === undefined ? ` (${kept} graded already, kept)` : ` (${kept} kept as they are)`) : ''} with --seed ${seed}, ${settings.jobs} at once\n`,
  );
  const finished = (row: GradebookRow) => {
    done.set(row.student, row);
    save();
    settings.write(
      `  ${MARK[row.status]} ${oneLine(row.student)}  ${row.status}${row.points ? `  ${row.points.earned}/${row.points.possible}` : ''}${row.reason ? `  (${oneLine(row.reason)})` : ''}\n`,
    );
  };
  const scratch = scratchFolder('class');
  try {
    const gradings = rest.map(
      (student) => new StudentGrading(student, folders.get(student.position)!, { ...settings, seed }, join(scratch, String(student.position))),
    );
    // Without hidden cases, each student is graded whole at once; with them, everyone's other checks first.
    await runPooled(
      gradings.map((grading) => () => grading.firstPart()),
      settings.jobs,
      (row) => row && finished(row),
    );
    if (settings.hiddenDir !== undefined)
      await runPooled(
        gradings.map((grading) => () => grading.hiddenPart()),
        settings.jobs,
        (row) => row && finished(row),
      );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  settings.write(`gradebook: ${join(settings.out, 'gradebook.csv')}, ${join(settings.out, 'gradebook.html')}\n`);
  return book.rows.some((row) => row.status === 'error') || book.problems.length > 0 ? 2 : 0;
}

/** The class's seed when none is given: made from the course's digest and the roster's, so that every
 *  shard of a class, on any machine, and every run on the same roster file, grades the same generated
 *  cases (shards given a random seed each could not be merged, found only once all were graded). */
function classSeed(settings: ClassSettings): number {
  const digest = createHash('sha256')
    .update(`${courseDigest(settings.course)}\n${rosterDigest(settings.roster)}`)
    .digest();
  return digest.readUInt32BE(0) % 2 ** 31;
}

const MARK: Record<GradebookRow['status'], string> = { pass: '✓', fail: '✗', error: '!', 'not graded': '·' };

/** The row of a student this run has not graded (yet): stopped before, or not reached. */
const NOT_YET = 'not graded yet';

/** A row's reason with what the roster said of the student before it (their identifier blank). */
function withNote(student: Student, reason: string): string {
  return [student.note, reason].filter((part) => part !== undefined && part !== '').join('; ');
}

/** What a student's row says before their grading. */
function baseRow(student: Student, folder: string, fetched?: Fetched) {
  return {
    student: student.id,
    githubUsername: student.githubUsername ?? null,
    repository: student.repository,
    position: student.position,
    commit: fetched?.commit ?? null,
    committedAt: fetched?.committedAt ?? null,
    deadlineRule: deadlineRule(student),
    deadline: student.deadline?.toISOString() ?? null,
    submittedAt: student.submittedAt?.toISOString() ?? null,
    laterCommits: fetched?.laterCommits ?? null,
    folder,
  };
}

function deadlineRule(student: Student): DeadlineRule {
  if (student.commit !== undefined) return 'pinned commit';
  return student.deadline === undefined ? 'newest commit' : 'commit date before deadline';
}

/** What the row says of the deadline: commits after it, and GitHub Classroom's time where it is later than
 *  the deadline. git alone cannot tell a backdated commit: its author and committer dates are both the
 *  student's git's; the platform's time is not. */
function deadlineNotes(student: Student, fetched: Fetched): string[] {
  if (student.deadline === undefined || student.commit !== undefined) return [];
  const later = fetched.laterCommits ?? 0;
  return [
    ...(later > 0 ? [`${later} later commit${later === 1 ? '' : 's'} on its default branch, dated after the deadline by the student's git`] : []),
    ...(student.submittedAt !== undefined && student.submittedAt > student.deadline
      ? [
          `GitHub Classroom's submission_timestamp ${student.submittedAt.toISOString()} is after the deadline ${student.deadline.toISOString()}, ` +
            `though the commit graded is dated ${fetched.committedAt} by the student's git`,
        ]
      : []),
  ];
}

/** The gradebook an earlier run of this class left in `out` (its rows done are kept), none for a new or
 *  empty folder; a UsageError for a folder that holds anything else. */
function earlierRun(settings: ClassSettings): Gradebook | undefined {
  if (!existsSync(settings.out) || readdirSync(settings.out).length === 0) return undefined;
  const path = join(settings.out, 'gradebook.json');
  if (!existsSync(path)) throw new InputError(`${settings.out} is neither empty nor a gradebook's folder: give a new or empty folder`);
  const book = readGradebook(path);
  const differ = (what: string) => new InputError(`${settings.out} holds a gradebook of ${what}: give a new or empty folder`);
  if (book.course.digest !== courseDigest(settings.course)) throw differ('another course (its course.yaml or case folders differ)');
  if (book.roster.digest !== rosterDigest(settings.roster)) throw differ('another roster');
  if (settings.seed !== undefined && book.seed !== settings.seed) throw differ(`another seed (${book.seed})`);
  if ((book.shard?.index ?? 1) !== settings.shard.index || (book.shard?.count ?? 1) !== settings.shard.count) throw differ('another shard');
  if (book.stages.map((stage) => stage.slug).join() !== settings.stages.map((stage) => stage.slug).join()) throw differ('other stages');
  return book;
}

/** The ids of the students `names` asks to grade again (each a roster's name, or names separated by
 *  commas), or an InputError: there is no gradebook of this class to grade them into, or the roster (this
 *  shard of it) does not name one. */
function regraded(settings: ClassSettings, names: readonly string[], students: readonly Student[], earlier: Gradebook | undefined): Set<string> {
  if (earlier === undefined) throw new InputError(`--regrade: ${settings.out} holds no gradebook: grade the class into it first`);
  const named = new Map(students.filter((student) => student.problem === undefined).map((student) => [student.id, student]));
  // a name with a comma in it is one the roster may give (a quoted field)
  const wanted = names.flatMap((name) => (named.has(name) ? [name] : name.split(',').map((part) => part.trim())));
  const ids = new Set<string>();
  for (const name of wanted) {
    const student = named.get(name);
    if (student === undefined) throw new InputError(`--regrade: ${settings.roster} names no student "${oneLine(name)}"`);
    if (!inShard(student.position, settings.shard))
      throw new InputError(`--regrade: "${oneLine(name)}" is not in shard ${settings.shard.index}/${settings.shard.count}: give that student's shard`);
    ids.add(student.id);
  }
  return ids;
}

/** One student's grading: their submission fetched, then graded in one part, or, with hidden cases, in
 *  two (every student's first part before anyone's hidden one). */
class StudentGrading {
  private fetched: Fetched | undefined;
  /** The reports of the parts graded so far: the student's (sealed) and the teacher's (whole). */
  private parts: { student: ResultsReport; teacher: ResultsReport }[] = [];
  /** CPU time the student's grading has used so far. */
  private cpuMs = 0;
  /** Set once the row is made: nothing more to grade. */
  private ended = false;

  constructor(
    private readonly student: Student,
    private readonly folder: string,
    private readonly settings: ClassSettings & { seed: number },
    private readonly scratch: string,
  ) {}

  private get base() {
    return baseRow(this.student, this.folder, this.fetched);
  }

  private get stageCount() {
    return this.settings.stages.length;
  }

  /** Fetched and graded: all of it, or all but the hidden cases. The row, where it is made now. */
  async firstPart(): Promise<GradebookRow | undefined> {
    if (this.settings.signal?.aborted) return void this.end(); // left for the next run
    mkdirSync(this.scratch, { recursive: true });
    const fetched = await fetchSubmission(this.student, this.scratch, { token: this.settings.token });
    if (fetched instanceof FetchProblem) return this.end(ungradedRow(this.base, 'not graded', withNote(this.student, fetched.reason), this.stageCount));
    this.fetched = fetched;
    const problem = await this.grade(this.settings.hiddenDir === undefined ? undefined : BEFORE_HIDDEN);
    if (this.settings.signal?.aborted) return void this.end();
    if (problem !== undefined) return this.end(ungradedRow(this.base, 'error', withNote(this.student, problem), this.stageCount));
    return this.settings.hiddenDir === undefined ? this.row() : undefined;
  }

  /** The hidden cases, graded once every student's first part is; the row. */
  async hiddenPart(): Promise<GradebookRow | undefined> {
    if (this.ended) return undefined;
    if (this.settings.signal?.aborted) return void this.end(); // left for the next run
    const problem = await this.grade(HIDDEN);
    if (this.settings.signal?.aborted) return void this.end();
    if (problem !== undefined) return this.end(ungradedRow(this.base, 'error', withNote(this.student, problem), this.stageCount));
    return this.row();
  }

  /** Nothing more to grade: the row, where there is one (none: stopped, left for the next run). */
  private end(): undefined;
  private end(row: GradebookRow): GradebookRow;
  private end(row?: GradebookRow): GradebookRow | undefined {
    this.ended = true;
    rmSync(this.scratch, { recursive: true, force: true });
    return row;
  }

  /** The parts' reports as one, written in the student's folder and the teacher's; the row. */
  private row(): GradebookRow {
    const joined = (reader: 'student' | 'teacher') => mergeParts(this.parts.map((part, index) => ({ path: `part ${index + 1}`, report: part[reader] })));
    writeReports(join(this.settings.out, 'students', this.folder), joined('student'));
    writeReports(join(this.settings.out, 'teacher', this.folder), joined('teacher'));
    const notes = [
      ...(this.fetched && this.fetched.left.length > 0 ? [`left out of src/: ${this.fetched.left.map((path) => oneLine(path)).join(', ')}`] : []),
      ...(this.fetched ? deadlineNotes(this.student, this.fetched) : []),
      ...(this.student.note === undefined ? [] : [this.student.note]),
    ];
    return this.end(gradedRow(this.base, joined('student'), notes, this.settings.stages));
  }

  /** One part of the grading (`only`: its origins; none: all), in a process of its own, within what is
   *  left of the student's CPU time. Why it could not be graded, or undefined. */
  private async grade(only: string | undefined): Promise<string | undefined> {
    const part = join(this.scratch, `part-${this.parts.length + 1}`);
    const teacher = join(part, 'teacher');
    const report = join(part, 'results.json');
    const args = [
      BIN,
      'test',
      '--all',
      '--submission',
      this.fetched!.folder,
      '--seed',
      String(this.settings.seed),
      '--report',
      report,
      '--teacher-report',
      teacher,
      '--sealed',
      '--no-color',
      ...(this.settings.hiddenDir ? ['--cases', this.settings.hiddenDir] : []),
      ...(only === undefined ? [] : ['--only', only]),
      ...this.settings.testArgs,
    ];
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !KEPT_FROM_GRADING.includes(name)));
    mkdirSync(part, { recursive: true });
    const left = this.settings.studentCpuMs - this.cpuMs;
    const result = await runProcess(process.execPath, args, {
      cwd: this.settings.course.root,
      env,
      limits: { timeoutMs: left, outputCap: GRADING_OUTPUT_BYTES },
      ...(this.settings.signal && { signal: this.settings.signal }),
    });
    this.cpuMs += result.cpuMs;
    const output = Buffer.concat([result.stdout, result.stderr]);
    const teacherDir = join(this.settings.out, 'teacher', this.folder);
    mkdirSync(teacherDir, { recursive: true });
    writeAtomically(join(teacherDir, `grading${this.parts.length === 0 ? '' : `-${this.parts.length + 1}`}.txt`), output, { overwrite: true });
    const limit = `${Math.round(this.settings.studentCpuMs / 1000)} s`;
    if (result.timeLimit === 'cpu') return `its grading went past the bound of ${limit} of CPU time a student's grading has, and was stopped`;
    if (result.timeLimit === 'wall') return `its grading made no progress for too long (the wall-time backstop of a ${limit} bound), and was stopped`;
    if (result.flooded) return `its grading printed more than ${GRADING_OUTPUT_BYTES / 1024 / 1024} MiB, and was stopped`;
    try {
      this.parts.push({ student: readReport(report), teacher: readReport(join(teacher, 'results.json')) });
      return undefined;
    } catch {
      // the one-line error the grader ends with is in the teacher's folder, beside the rest of its output
      return `the grader could not grade it (exit ${result.exitCode ?? result.signal}): see teacher/${this.folder}/grading.txt`;
    }
  }
}

/** A report's files (TEACHER_FILES' names) in `dir`. */
function writeReports(dir: string, report: ResultsReport): void {
  mkdirSync(dir, { recursive: true });
  for (const format of REPORT_FORMATS) {
    const file = TEACHER_FILES[format.option];
    if (file !== undefined) writeAtomically(join(dir, file), format.render(report), { overwrite: true });
  }
}

/** The most bytes (UTF-8) of a student's id kept in their folder's name: well within the 255 a file
 *  system allows a name, with room for the suffix that tells two alike apart. */
const FOLDER_BYTES = 96;

/** Each student's folder name in the gradebook (by their place in the roster): their id, made safe for a path, unique. */
function studentFolders(students: readonly Student[]): Map<number, string> {
  const folders = new Map<number, string>();
  const taken = new Set<string>();
  for (const student of students) {
    const base = folderName(student.id);
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${base}-${n}`;
    taken.add(name.toLowerCase());
    folders.set(student.position, name);
  }
  return folders;
}

/** A student's id as one folder name: letters (of any script), marks and digits kept, with `.`, `_` and
 *  `-`; every run of anything else (a separator, a control or format character, a space) one `-`; no
 *  leading dot or dash (so never `.` or `..`), and at most FOLDER_BYTES bytes, cut between characters. */
function folderName(id: string): string {
  const safe = id
    .normalize('NFC')
    .replace(/[^\p{L}\p{M}\p{N}._-]+/gu, '-')
    .replace(/^[.-]+/, '');
  let name = '';
  for (const char of safe) {
    if (Buffer.byteLength(name + char) > FOLDER_BYTES) break;
    name += char;
  }
  return name || 'student';
}
