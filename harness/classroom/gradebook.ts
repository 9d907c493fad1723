// A class's grades: one row per student of the roster (the commit graded, each stage's points, the
// total, or why the student was not graded), kept as gradebook.json (what merge-reports joins), and
// shown as gradebook.csv, which a learning platform imports, and gradebook.html, the teacher's overview:
// each student's points linked to their report, the pass rate of each stage, and the checks most fail.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Html, html, page } from '../report/page.ts';
import type { Points, ResultsReport } from '../report/model.ts';
import { InputError } from '../errors.ts';
import { oneLine } from '../terminal-text.ts';
import { failingChecks, RANKED_CHECKS, type FailingChecks } from './failing-checks.ts';

export const GRADEBOOK_VERSION = 1;

/** pass, fail, error (the grader could not grade it: see `reason`), or not graded (nothing to grade). */
export type RowStatus = 'pass' | 'fail' | 'error' | 'not graded';

export interface GradebookRow {
  /** As the roster names them: its identifier, else (said in `reason`) their GitHub login; empty for a row naming no one. */
  student: string;
  /** Their GitHub login, where the roster gives it (absent from gradebooks written before it was kept). */
  githubUsername?: string | null;
  repository: string;
  /** Its place in the roster (0-based). */
  position: number;
  commit: string | null;
  committedAt: string | null;
  /** How the commit graded was chosen (absent from gradebooks written before it was kept). */
  deadlineRule?: DeadlineRule;
  /** The deadline that applied to the student, where one did. */
  deadline?: string | null;
  /** When GitHub Classroom says they submitted (the roster's `submission_timestamp`), where it says. */
  submittedAt?: string | null;
  /** Commits on their default branch after the one graded (by history, not date); null where not known. */
  laterCommits?: number | null;
  status: RowStatus;
  /** Each stage's verdict and the points it earned, in course order; null where the student was not graded. */
  stages: (StageGrade | null)[];
  points: Points | null;
  /** Why the row is what it is, beyond its points (not graded, the grader's trouble, files left out). */
  reason: string;
  /** The student's folder in the gradebook: `students/<folder>/` holds what the student reads (results.json,
   *  summary.md, report.html, sealed), `teacher/<folder>/` the same whole, and the grading's output. */
  folder: string;
}

/** How a student's commit was chosen: the one the roster pins; the newest (no deadline); or the last whose
 *  committer date is before the deadline, a date the student's git writes and the student can set. */
export type DeadlineRule = 'pinned commit' | 'newest commit' | 'commit date before deadline';

/** What a row holds before its grading. */
export type RowBase = Pick<
  GradebookRow,
  'student' | 'githubUsername' | 'repository' | 'position' | 'commit' | 'committedAt' | 'deadlineRule' | 'deadline' | 'submittedAt' | 'laterCommits' | 'folder'
>;

export interface StageGrade {
  status: 'pass' | 'fail' | 'error' | 'skipped';
  earned: number;
}

export interface Gradebook {
  version: typeof GRADEBOOK_VERSION;
  course: { digest: string };
  roster: { digest: string; students: number };
  seed: number;
  shard: { index: number; count: number } | null;
  mergedShards: number[] | null;
  startedAt: string;
  grader: { name: string; version: string };
  stages: { slug: string; title: string; points: number }[];
  rows: GradebookRow[];
  /** Why the gradebook is incomplete (a shard missing from a merge). */
  problems: string[];
}

/** A roster's digest: shards of one class grade the same roster. */
export function rosterDigest(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** A student's row from their report (and what fetching their repository said). */
export function gradedRow(base: RowBase, report: ResultsReport, notes: string[], stages: readonly { slug: string }[]): GradebookRow {
  const status: RowStatus = report.status === 'pass' || report.status === 'fail' ? report.status : 'error';
  const reasons = [
    ...report.submission.missing.map((path) => `no ${path}`),
    ...report.problems,
    ...(report.status === 'interrupted' ? ['its grading was interrupted'] : []),
    ...notes,
  ];
  return {
    ...base,
    status,
    stages: stages.map(({ slug }) => {
      const graded = status === 'error' ? undefined : report.stages.find((stage) => stage.slug === slug);
      return graded ? { status: graded.status, earned: graded.points.earned } : null;
    }),
    points: status === 'error' ? null : report.points,
    reason: reasons.join('; '),
  };
}

/** A student who was not graded: nothing to grade, or the grader could not. */
export function ungradedRow(base: RowBase, status: 'error' | 'not graded', reason: string, stages: number): GradebookRow {
  return { ...base, status, stages: Array<null>(stages).fill(null), points: null, reason };
}

/** The three files of a gradebook, written whole. */
export function writeGradebook(out: string, book: Gradebook): void {
  writeFileSync(join(out, 'gradebook.json'), `${JSON.stringify(book, null, 2)}\n`);
  writeFileSync(join(out, 'gradebook.csv'), toCsv(book));
  writeFileSync(join(out, 'gradebook.html'), toGradebookHtml(book, failingChecks(out, book)));
}

// ---------------------------------------------------------------------------- CSV

/** The gradebook as CSV (RFC 4180): a header, then one row per student in roster order. It starts with a
 *  UTF-8 byte order mark, without which Excel on Windows reads the file in the machine's code page and
 *  mangles every name that is not ASCII (`Zoë Ñúñez`); CSV readers and learning platforms skip it. */
export function toCsv(book: Gradebook): string {
  const header = [
    'student',
    'github_username',
    'repository',
    'commit',
    'committed_at',
    'deadline',
    'deadline_rule',
    'submitted_at',
    'later_commits',
    'status',
    ...book.stages.map((stage) => `${stage.slug} (${stage.points})`),
    'points',
    'points_possible',
    'reason',
    'report',
  ];
  const rows = book.rows.map((row) => [
    row.student,
    row.githubUsername ?? '',
    row.repository,
    row.commit ?? '',
    row.committedAt ?? '',
    row.deadline ?? '',
    row.deadlineRule ?? '',
    row.submittedAt ?? '',
    row.laterCommits === null || row.laterCommits === undefined ? '' : String(row.laterCommits),
    row.status,
    ...row.stages.map((stage) => (stage === null ? '' : String(stage.earned))),
    row.points === null ? '' : String(row.points.earned),
    String(book.stages.reduce((sum, stage) => sum + stage.points, 0)),
    row.reason,
    row.status === 'not graded' ? '' : `students/${row.folder}/results.json`,
  ]);
  const cell = (value: string, index: number) => (IDENTIFIER_COLUMNS.includes(index) ? identifierCell(value) : csvCell(value));
  return `\ufeff${[header.map(csvCell).join(','), ...rows.map((cells) => cells.map(cell).join(','))].join('\r\n')}\r\n`;
}

/** The columns a learning platform matches a student on (`student`, `github_username`): their value must
 *  reach it as the roster gave it. */
const IDENTIFIER_COLUMNS = [0, 1];

/** One cell of free text: its control characters shown escaped, as every report shows a program's (a
 *  student's file names reach the reason); quoted where it must be; a text a spreadsheet would take for a
 *  formula (=, +, -, @ first) gets a leading apostrophe, so that opening the file runs nothing (OWASP's
 *  guidance on CSV injection: https://owasp.org/www-community/attacks/CSV_Injection). */
function csvCell(cell: string): string {
  const value = oneLine(cell);
  const text = /^[=+\-@]/.test(value) && !/^-?\d+(\.\d+)?$/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? quoted(text) : text;
}

/** An identifier that no spreadsheet can turn into a call or a link: letters, marks, digits, spaces and
 *  `. _ - + @`, no `=`. A formula needs parentheses to call a function and `|`, `!`, `:` or quotes to
 *  reach anything outside its cell, so opened in a spreadsheet such a value shows at worst as a number or
 *  `#NAME?` (`-ada`), and runs nothing. */
const PLAIN_IDENTIFIER = /^[\p{L}\p{M}\p{N} ._@+-]+$/u;

/** One cell of an identifier column: a plain identifier is written as it is, quoted, even with =, +, - or
 *  @ first, since the apostrophe OWASP's guidance puts before those changes the value a platform's import
 *  matches on (`'-ada` is not `-ada`); any other is guarded as free text is. */
function identifierCell(cell: string): string {
  return PLAIN_IDENTIFIER.test(cell) ? quoted(cell) : csvCell(cell);
}

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

// ---------------------------------------------------------------------------- HTML

/** The teacher's page of the class (it names hidden checks, so it is never among what a student reads).
 *  At 1366 px its points and reasons show without scrolling sideways: points come right after the name,
 *  a stage's column is headed by its number (its slug and title in the header's tooltip and the legend),
 *  and a reason may break after any `/`, `.`, `_` or `-` of a long path. The page's style is the one every
 *  report shares (report/page.ts), so all of this is made in the markup. */
export function toGradebookHtml(book: Gradebook, failing: FailingChecks = { checks: [], students: 0, unread: [] }): string {
  const possible = book.stages.reduce((sum, stage) => sum + stage.points, 0);
  const graded = book.rows.filter((row) => row.status === 'pass' || row.status === 'fail');
  const rate = (index: number) => `${graded.filter((row) => row.stages[index]?.status === 'pass').length} of ${graded.length}`;
  const title = `gradebook: ${book.rows.length} students, ${graded.filter((row) => row.status === 'pass').length} pass every stage`;
  const facts = [
    `${book.grader.name} ${book.grader.version}`,
    `seed ${book.seed}`,
    book.shard && book.shard.count > 1 && `shard ${book.shard.index} of ${book.shard.count}`,
    book.mergedShards && `merged shards ${book.mergedShards.join(', ')}`,
    `started ${book.startedAt}`,
    `course ${book.course.digest.slice(0, 12)}`,
  ].filter((fact): fact is string => typeof fact === 'string');
  const cell = (row: GradebookRow, index: number): Html => {
    const stage = row.stages[index];
    return stage ? html`<td class="status-${stage.status}" title="${stage.status}">${stage.earned}</td>` : html`<td class="dim">·</td>`;
  };
  const report = (part: 'teacher' | 'students', row: GradebookRow) => `${part}/${encodeURIComponent(row.folder)}/report.html`;
  const rows = book.rows.map(
    (
      row,
    ) => html`<tr><th scope="row">${row.status === 'not graded' ? row.student : html`<a href="${report('teacher', row)}">${row.student}</a> <a class="dim" href="${report('students', row)}">(theirs)</a>`}</th>
<td class="points">${pointsCell(row, possible)}</td>${book.stages.map((_, index) => cell(row, index))}<td class="dim">${breakable(row.reason)}</td><td><code>${row.commit?.slice(0, 12) ?? ''}</code></td></tr>`,
  );
  return page(
    title,
    html`<header><h1>${title}</h1><p class="facts">${facts.join(' · ')}</p>
${book.problems.length > 0 && html`<ul class="notes">${book.problems.map((problem) => html`<li>${problem}</li>`)}</ul>`}
<p class="facts">stages: ${book.stages.map((stage, index) => html`${index > 0 && ' · '}<b>${index + 1}</b> ${stage.slug}`)}</p></header>
<main><table class="gradebook"><thead><tr><th>student</th><th>points <span class="dim">of ${possible}</span></th>${book.stages.map((stage, index) => html`<th title="${`${stage.slug}: ${stage.title} (${stage.points} points)`}">${index + 1} <span class="dim">(${stage.points})</span></th>`)}<th>reason</th><th>commit</th></tr>
<tr class="dim"><td>passed by</td><td></td>${book.stages.map((_, index) => html`<td>${rate(index)}</td>`)}<td></td><td></td></tr></thead>
<tbody>${rows}</tbody></table>
${failingSection(failing, book)}</main>`,
  );
}

/** A student's points of those possible, as a bar that is green only at full points, amber from half the
 *  points, red below (a <meter>'s own colours: the page's policy admits no style of its own). The
 *  badge says pass only for every stage passed, and error or not graded where there are no points. */
function pointsCell(row: GradebookRow, possible: number): Html {
  if (row.points === null || row.status === 'error' || row.status === 'not graded')
    return row.status === 'not graded' ? html`<span class="badge">not graded</span>` : html`<span class="badge status-error">error</span>`;
  const { earned } = row.points;
  return html`<meter min="0" max="${possible}" low="${possible / 2}" high="${possible - 0.5}" optimum="${possible}" value="${earned}" title="${`${earned} of ${possible}`}"></meter> <b>${earned}</b><span class="dim">/${possible}</span>${row.status === 'pass' && html` <span class="badge status-pass">pass</span>`}`;
}

/** Text that may wrap after a `/`, `.`, `_` or `-`: a long path in a reason would otherwise widen its column
 *  past the screen. Each piece is escaped as any text is; only the break opportunities are markup. */
function breakable(text: string): Html {
  return html`${text.split(/(?<=[/._-])/).map((piece, index) => html`${index > 0 && new Html('<wbr>')}${piece}`)}`;
}

/** The checks most students fail, for the teacher: hidden ones too, named as the teacher's reports name them. */
function failingSection(failing: FailingChecks, book: Gradebook): Html {
  const stageNumber = (slug: string) => book.stages.findIndex((stage) => stage.slug === slug) + 1;
  return html`<section id="${FAILING_CHECKS_ID}"><h2>checks most students fail</h2>
<p class="facts">of the ${failing.students} graded students${failing.checks.length === RANKED_CHECKS && `, the ${RANKED_CHECKS} checks failed most`}; read from each student's report in teacher/</p>
${failing.unread.length > 0 && html`<ul class="notes">${failing.unread.map((problem) => html`<li>${problem}</li>`)}</ul>`}
${
  failing.checks.length === 0
    ? html`<p>No check is failed by any graded student.</p>`
    : html`<table class="gradebook"><thead><tr><th>failed by</th><th>check</th><th>stage</th></tr></thead>
<tbody>${failing.checks.map(
        (check) =>
          html`<tr><td><b>${check.failed}</b> <span class="dim">of ${check.graded}</span></td><td>${breakable(check.name)}${check.origin === 'hidden' && html` <span class="badge">hidden</span>`}</td><td>${stageNumber(check.stage) > 0 && `${stageNumber(check.stage)} `}${check.stage}</td></tr>`,
      )}</tbody></table>`
}</section>`;
}

/** The element that holds the teacher's ranking of failed checks. */
export const FAILING_CHECKS_ID = 'checks-most-students-fail';

// ---------------------------------------------------------------------------- read back

/** A gradebook.json, or an InputError naming the file and what is wrong. */
export function readGradebook(path: string): Gradebook {
  let book: Partial<Gradebook>;
  try {
    book = JSON.parse(readFileSync(path, 'utf8')) as Partial<Gradebook>;
  } catch (error) {
    throw new InputError(
      `${path}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not JSON'} (expected a gradebook.json that classroom wrote)`,
    );
  }
  if (book.version !== GRADEBOOK_VERSION) throw new InputError(`${path}: not a version ${GRADEBOOK_VERSION} gradebook`);
  for (const field of ['course', 'roster', 'seed', 'stages', 'rows', 'problems'] as const) {
    if (book[field] === undefined) throw new InputError(`${path}: ${field}: missing`);
  }
  return book as Gradebook;
}
