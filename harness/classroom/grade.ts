// A class graded from the teacher's repository: for each student of the roster (this shard's), their
// repository's src/ fetched (fetch.ts), then graded as CI grades a submission, by this grader in a
// process of its own (`theinference test --all --submission`: the scratch copy, the sandbox, the course's
// own program.ts, cases and fixtures, the generated and the hidden cases, one seed for the class), up to
// `jobs` students at once. Each student's folder gets their results.json, their feedback summary and
// their HTML report; the class gets gradebook.json, .csv and .html. Nothing of a student's but src/ is
// read, and nothing of theirs runs outside the sandbox. A student who cannot be graded gets a row that
// says why; the rest of the class is graded.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Course, Stage } from '../course.ts';
import { UsageError } from '../errors.ts';
import { inShard, type Shard } from '../ci/shard.ts';
import { courseDigest } from '../report/course-digest.ts';
import { readReport } from '../report/merge.ts';
import { graderVersion } from '../report/version.ts';
import { runPooled } from '../run/pool.ts';
import { oneLine } from '../terminal-text.ts';
import { FetchProblem, fetchSubmission } from './fetch.ts';
import { GRADEBOOK_VERSION, gradedRow, rosterDigest, ungradedRow, writeGradebook, type Gradebook, type GradebookRow } from './gradebook.ts';
import { readRoster, type Student } from './roster.ts';
import { scratchFolder } from '../scratch.ts';

export interface ClassSettings {
  course: Course;
  /** The stages each student is graded on, in course order: every one, or those up to --stage. */
  stages: readonly Stage[];
  roster: string;
  /** The gradebook's folder: new, or empty. */
  out: string;
  seed: number;
  shard: Shard;
  /** Students graded at once. */
  jobs: number;
  /** The run's deadline, where the roster gives none for a student. */
  deadline?: Date;
  /** Hidden cases (--cases), given to every student's grading. */
  hiddenDir?: string;
  /** Options handed on to each student's `theinference test` (--stage, --runs, --random, --no-network ...). */
  testArgs: string[];
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

export async function gradeClass(settings: ClassSettings): Promise<number> {
  const students = readRoster(settings.roster, settings.deadline);
  if (existsSync(settings.out) && readdirSync(settings.out).length > 0)
    throw new UsageError(`classroom: ${settings.out} is not empty: give a new or empty folder for the gradebook`);
  mkdirSync(join(settings.out, 'students'), { recursive: true });
  const mine = students.filter((student) => inShard(student.position, settings.shard));
  const folders = studentFolders(students);
  const startedAt = new Date();
  settings.write(
    `grading ${mine.length} of ${students.length} students${settings.shard.count > 1 ? ` (shard ${settings.shard.index}/${settings.shard.count})` : ''} with --seed ${settings.seed}, ${settings.jobs} at once\n`,
  );
  const rows = await runPooled(
    mine.map((student) => () => gradeStudent(student, folders.get(student.id)!, settings)),
    settings.jobs,
    (row) =>
      settings.write(
        `  ${MARK[row.status]} ${oneLine(row.student)}  ${row.status}${row.points ? `  ${row.points.earned}/${row.points.possible}` : ''}${row.reason ? `  (${oneLine(row.reason)})` : ''}\n`,
      ),
  );
  const book: Gradebook = {
    version: GRADEBOOK_VERSION,
    course: { digest: courseDigest(settings.course) },
    roster: { digest: rosterDigest(settings.roster), students: students.length },
    seed: settings.seed,
    shard: settings.shard.count > 1 ? settings.shard : null,
    mergedShards: null,
    startedAt: startedAt.toISOString(),
    grader: { name: 'theinference', version: graderVersion() },
    stages: settings.stages.map((stage) => ({ slug: stage.slug, title: stage.title, points: stage.points })),
    rows,
    problems: settings.signal?.aborted ? ['interrupted: the students not yet graded are not graded'] : [],
  };
  writeGradebook(settings.out, book);
  settings.write(`gradebook: ${join(settings.out, 'gradebook.csv')}, ${join(settings.out, 'gradebook.html')}\n`);
  return rows.some((row) => row.status === 'error') || book.problems.length > 0 ? 2 : 0;
}

const MARK: Record<GradebookRow['status'], string> = { pass: '✓', fail: '✗', error: '!', 'not graded': '·' };

async function gradeStudent(student: Student, folder: string, settings: ClassSettings): Promise<GradebookRow> {
  const base = { student: student.id, repository: student.repository, position: student.position, commit: null, committedAt: null, folder };
  const stages = settings.stages.length;
  if (settings.signal?.aborted) return ungradedRow(base, 'not graded', 'interrupted before it was graded', stages);
  const scratch = scratchFolder('student');
  try {
    const fetched = await fetchSubmission(student, scratch, { token: settings.token });
    if (fetched instanceof FetchProblem) return ungradedRow(base, 'not graded', fetched.reason, stages);
    const row = { ...base, commit: fetched.commit, committedAt: fetched.committedAt };
    const notes = fetched.left.length > 0 ? [`left out of src/: ${fetched.left.join(', ')}`] : [];
    const dir = join(settings.out, 'students', folder);
    mkdirSync(dir, { recursive: true });
    const graded = await gradeFolder(fetched.folder, dir, settings);
    if (typeof graded === 'string') return ungradedRow(row, 'error', graded, stages);
    return gradedRow(row, graded, notes, settings.stages);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** One student's src/ graded by this grader, in CI mode, in a process of its own: their report, or why there is none. */
async function gradeFolder(submission: string, dir: string, settings: ClassSettings) {
  const report = join(dir, 'results.json');
  const args = [
    BIN,
    'test',
    '--all',
    '--submission',
    submission,
    '--seed',
    String(settings.seed),
    '--report',
    report,
    '--summary',
    join(dir, 'summary.md'),
    '--html',
    join(dir, 'report.html'),
    '--no-color',
    ...(settings.hiddenDir ? ['--cases', settings.hiddenDir] : []),
    ...settings.testArgs,
  ];
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !KEPT_FROM_GRADING.includes(name)));
  const { code, output } = await run(process.execPath, args, settings.course.root, env, settings.signal);
  writeFileSync(join(dir, 'grading.txt'), output);
  try {
    return readReport(report);
  } catch {
    const last = output.trim().split('\n').at(-1) ?? '';
    return oneLine(`the grader could not grade it (exit ${code}): ${last}`, 500);
  }
}

/** A grader process, its terminal output kept; stopped (SIGTERM: it writes an interrupted report) when `signal` aborts. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const stop = () => child.kill('SIGTERM');
    signal?.addEventListener('abort', stop, { once: true });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', stop);
      resolve({ code, output: Buffer.concat(chunks).toString('utf8') });
    });
  });
}

/** Each student's folder name in the gradebook: their id, made safe for a path, unique. */
function studentFolders(students: readonly Student[]): Map<string, string> {
  const folders = new Map<string, string>();
  const taken = new Set<string>();
  for (const student of students) {
    const base =
      student.id
        .replace(/[^A-Za-z0-9._-]+/g, '-')
        .replace(/^[.-]+/, '')
        .slice(0, 64) || 'student';
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n += 1) name = `${base}-${n}`;
    taken.add(name.toLowerCase());
    folders.set(student.id, name);
  }
  return folders;
}
