// A class graded from the teacher's repository: local git repositories (file URLs) for the reference,
// the starter, broken solutions and hostile ones, on a roster as GitHub Classroom exports it. Each student
// gets the row they deserve; nothing of theirs but src/ is read or run; the gradebook's CSV parses with a
// CSV library; shards merge into the gradebook of the whole class.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import type { Gradebook } from '../../harness/classroom/gradebook.ts';
import type { ResultsReport } from '../../harness/report/model.ts';
import { cleanUp, folder, REFERENCE } from '../ci/helpers.ts';
import { head, repository, roster, url } from './helpers.ts';
import { courseCopy, REPO, runCli, scenarioSubmission, trimCourse } from '../helpers/cli.ts';

/** The course the teacher grades with here: a case of each command (the rows below come out the same
 *  on every case; that the reference passes them all, and how each mistake fails them, the grader's
 *  and the scenarios' tests show). */
const COURSE = courseCopy();
trimCourse(COURSE);

afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
/** Stage 1, few property runs, no generated cases: what a class is graded on here (every stage: the same, slower). */
const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0', '--seed', '9'];
/** Where a hostile repository's scripts would leave a mark, had anything of theirs run. */
const marks = folder({});

const reference = repository([{ files: { 'src/mcp.ts': REFERENCE } }]);
const starter = repository([{ files: { 'src/mcp.ts': STARTER } }]);
const crlf = repository([{ files: { 'src/mcp.ts': readFileSync(join(scenarioSubmission('crlf'), 'src/mcp.ts'), 'utf8') } }]);
const noDefaults = repository([{ files: { 'src/mcp.ts': readFileSync(join(scenarioSubmission('config-no-defaults'), 'src/mcp.ts'), 'utf8') } }]);
// the starter, with every file around src/ made to pass: the driver prints each case's expected output,
// the stage table drops the stages, the package's scripts and a file: dependency leave a mark if run
const edited = repository([
  {
    files: {
      'src/mcp.ts': STARTER,
      'program.ts': `import { readFileSync } from 'node:fs';\nprocess.stdout.write(readFileSync(process.argv[3] + '/../../../../fixtures/' + process.argv[3].split('cases/')[1] + '/expected.json'));\n`,
      'course.yaml': 'version: 1\ncommands: {}\nstages: []\n',
      'package.json': JSON.stringify({
        name: 'evil',
        scripts: { preinstall: `touch ${marks}/preinstall`, postinstall: `touch ${marks}/postinstall`, prepare: `touch ${marks}/prepare` },
        devDependencies: { theinference: 'file:./evil' },
      }),
      'evil/package.json': JSON.stringify({ name: 'theinference', bin: { theinference: 'bin.js' }, scripts: { postinstall: `touch ${marks}/dependency` } }),
      'evil/bin.js': `require('node:fs').writeFileSync('${marks}/bin', 'ran');\n`,
      '.gitattributes': 'src/mcp.ts filter=evil\n',
    },
  },
]);
// src/mcp.ts a link to the course's reference, and a folder of src/ one to the machine's /etc
const linked = repository([{ files: { 'src/other.ts': 'export {};\n' }, links: { 'src/mcp.ts': join(REPO, 'src/mcp.ts'), 'src/etc': '/etc' } }]);
// the reference, and a link under src/ named with an escape sequence and a line break: left out, and named
const oddlyNamed = repository([{ files: { 'src/mcp.ts': REFERENCE }, links: { 'src/\x1b[31mred\nline.ts': '/etc/passwd' } }]);
const noSrc = repository([{ files: { 'README.md': 'nothing here\n' } }]);
// the reference first, then the starter: the roster pins the first commit
const pinned = repository([{ files: { 'src/mcp.ts': REFERENCE } }, { files: { 'src/mcp.ts': STARTER } }]);
const pinnedCommit = execFileSync('git', ['rev-list', '--max-parents=0', 'HEAD'], { cwd: pinned, encoding: 'utf8' }).trim();
// the reference before the deadline, the starter after it
const late = repository([
  { files: { 'src/mcp.ts': REFERENCE }, date: '2026-11-30T12:00:00Z' },
  { files: { 'src/mcp.ts': STARTER }, date: '2026-12-02T12:00:00Z' },
]);

const CLASS = [
  { id: 'ada', repo: url(reference) },
  { id: 'bea', repo: url(starter) },
  { id: 'cyd', repo: url(crlf) },
  { id: 'dov', repo: url(noDefaults) },
  { id: 'eli', repo: url(edited) },
  { id: 'fay', repo: url(linked) },
  { id: 'gus', repo: url(noSrc) },
  { id: 'hal', repo: url(join(marks, 'no-such-repository')) },
  { id: 'ivy', repo: '' },
  { id: 'jon', repo: url(pinned), commit: pinnedCommit },
  { id: 'kit', repo: url(late), deadline: '2026-12-01T00:00:00Z' },
  { id: '=HYPERLINK("http://evil.example")', repo: url(noSrc) },
  { id: 'lee', repo: url(oddlyNamed) },
];

/** The teacher's hidden cases: a public mcp-frame case under another name. */
const hidden = folder({
  'cases/config-and-framing/mcp-frame/secret/messages.json': readFileSync(join(REPO, 'cases/config-and-framing/mcp-frame/numbers/messages.json'), 'utf8'),
  'fixtures/config-and-framing/mcp-frame/secret/expected.json': readFileSync(join(REPO, 'fixtures/config-and-framing/mcp-frame/numbers/expected.json'), 'utf8'),
});

type Row = Record<string, string>;

function csvRows(out: string): Row[] {
  return parse(readFileSync(join(out, 'gradebook.csv')), { columns: true, bom: true }) as Row[];
}

describe('theinference classroom', () => {
  const out = join(folder({}), 'gradebook');
  let run: Awaited<ReturnType<typeof runCli>>;
  let rows: Row[];

  it('grades every student of the roster, two at once, into a gradebook', async () => {
    run = await runCli(['classroom', '--roster', join(roster(CLASS), 'roster.csv'), '--out', out, '--jobs', '2', '--cases', hidden, ...QUICK], {
      cwd: COURSE,
    });
    expect(run.stderr).toBe('');
    rows = csvRows(out);
    expect(run.code, run.stdout).toBe(0);
    expect(rows.map((row) => row.student)).toEqual(CLASS.map(({ id }) => (id.startsWith('=') ? `'${id}` : id)));
    expect(Object.keys(rows[0]!)).toEqual([
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
      'config-and-framing (10)',
      'points',
      'points_possible',
      'reason',
      'report',
    ]);
  });

  it('gives each student the row they deserve', () => {
    const row = (id: string) => rows.find((each) => each.student === id)!;
    const graded = (id: string) => [row(id).status, row(id)['config-and-framing (10)'], row(id).points];
    expect(graded('ada')).toEqual(['pass', '10', '10']);
    expect(row('ada').commit).toBe(head(reference));
    expect(graded('bea')).toEqual(['fail', '0', '0']);
    expect(graded('cyd')).toEqual(['fail', '0', '0']);
    expect(graded('dov')).toEqual(['fail', '0', '0']);
    // the files around src/ are the course's: the edited driver and stage table change nothing
    expect(graded('eli')).toEqual(['fail', '0', '0']);
    // the links are left out, and said so: without its src/mcp.ts, every check fails
    expect(graded('fay')).toEqual(['fail', '0', '0']);
    expect(row('fay').reason).toBe('no src/mcp.ts; left out of src/: src/etc (a symbolic link), src/mcp.ts (a symbolic link)');
    expect(graded('gus')).toEqual(['fail', '0', '0']);
    expect(row('gus').reason).toBe('no src/mcp.ts');
    expect(graded('hal')).toEqual(['not graded', '', '']);
    expect(row('hal').reason).toMatch(/^git fetch: .*no-such-repository' does not appear to be a git repository$/);
    expect(graded('ivy')).toEqual(['not graded', '', '']);
    expect(row('ivy').reason).toBe('the roster gives no repository');
    // the commit the roster pins, and the last before the deadline: the reference both times
    expect(graded('jon')).toEqual(['pass', '10', '10']);
    expect(row('jon').commit).toBe(pinnedCommit);
    expect(graded('kit')).toEqual(['pass', '10', '10']);
    expect(row('kit').committed_at).toBe('2026-11-30T12:00:00+00:00');
    // the reason names the link as the other formats would: its escape and line break shown, not sent
    expect(graded('lee')).toEqual(['pass', '10', '10']);
    expect(row('lee').reason).toBe('left out of src/: src/\\x1b[31mred\\nline.ts (a symbolic link)');
    expect(readFileSync(join(out, 'gradebook.csv'), 'utf8')).not.toMatch(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/);
    for (const each of rows) expect(each.points_possible).toBe('10');
  });

  it("runs nothing of a student's but src/, in the sandbox", () => {
    expect(existsSync(marks) ? readdirSync(marks).filter((name) => name !== 'no-such-repository') : []).toEqual([]);
    const report = JSON.parse(readFileSync(join(out, 'students/eli/results.json'), 'utf8')) as ResultsReport;
    // only src/ was fetched: the submission holds nothing else to compare with the course
    expect(report.submission.changedOutsideSrc).toEqual([]);
    expect(report.sandbox).toBe('bwrap');
    // graded with the teacher's hidden cases too
    expect(report.hiddenCases).toBe(1);
    expect(report.stages[0]!.checks.some((check) => check.origin === 'hidden')).toBe(true);
  });

  it("keeps each graded student's results.json, feedback summary and report, sealed, the teacher's whole, and nothing for the others", () => {
    const graded = ['ada', 'bea', 'cyd', 'dov', 'eli', 'fay', 'gus', 'jon', 'kit', 'HYPERLINK-http-evil.example-', 'lee'].sort();
    expect(readdirSync(join(out, 'students')).sort()).toEqual(graded);
    expect(readdirSync(join(out, 'teacher')).sort()).toEqual(graded);
    for (const file of ['results.json', 'summary.md', 'report.html']) expect(existsSync(join(out, 'students/bea', file)), file).toBe(true);
    // the grading's terminal output is the teacher's: each part's (the hidden cases are graded apart)
    expect(readdirSync(join(out, 'teacher/bea')).sort()).toEqual(['grading-2.txt', 'grading.txt', 'report.html', 'results.json', 'summary.md']);
    expect(readFileSync(join(out, 'students/bea/summary.md'), 'utf8')).toContain('points: 0 of 10');
    expect(rows.find((row) => row.student === 'bea')!.report).toBe('students/bea/results.json');
    // what bea reads is sealed: no check tells what her program printed; the teacher's says it
    const read = JSON.parse(readFileSync(join(out, 'students/bea/results.json'), 'utf8')) as ResultsReport;
    const whole = JSON.parse(readFileSync(join(out, 'teacher/bea/results.json'), 'utf8')) as ResultsReport;
    expect(read.sealed).toBe(true);
    expect(read.stages[0]!.checks.every((check) => check.stderr === null && check.output === null && check.durationMs === 0)).toBe(true);
    expect(whole.sealed).toBeUndefined();
    expect(whole.stages[0]!.checks.some((check) => check.output !== null)).toBe(true);
    expect(whole.stages[0]!.checks.map((check) => [check.id, check.status])).toEqual(read.stages[0]!.checks.map((check) => [check.id, check.status]));
  });

  it('shows the class on one page: each stage passed by how many, each student linked to their report, nothing of the roster as markup', () => {
    const page = readFileSync(join(out, 'gradebook.html'), 'utf8');
    expect(page).toContain('<td>4 of 11</td>'); // ada, jon, kit and lee pass stage 1, of the 11 graded
    expect(page).toContain('<a href="teacher/ada/report.html">');
    expect(page).toContain('<a class="dim" href="students/ada/report.html">');
    expect(page).toContain('=HYPERLINK(&quot;http://evil.example&quot;)');
    expect(page).not.toContain('"http://evil.example"');
  });

  it('grades in shards that merge-reports joins into the same gradebook', async () => {
    const small = join(roster(CLASS.slice(0, 3)), 'roster.csv');
    const parts = [1, 2].map((index) => join(folder({}), `shard-${index}`));
    for (const [index, part] of parts.entries()) {
      const shard = await runCli(['classroom', '--roster', small, '--out', part, '--shard', `${index + 1}/2`, ...QUICK], { cwd: COURSE });
      expect(shard.code, shard.stderr).toBe(0);
    }
    const merged = join(folder({}), 'merged');
    const joined = await runCli(['merge-reports', '--gradebook', merged, ...parts], { cwd: COURSE });
    expect(joined.stdout).toBe('merged 2 gradebooks: 3 students\n');
    expect(joined.code).toBe(0);
    expect(csvRows(merged).map((row) => [row.student, row.status, row.points])).toEqual([
      ['ada', 'pass', '10'],
      ['bea', 'fail', '0'],
      ['cyd', 'fail', '0'],
    ]);
    expect(readdirSync(join(merged, 'students')).sort()).toEqual(['ada', 'bea', 'cyd']);
    const book = JSON.parse(readFileSync(join(merged, 'gradebook.json'), 'utf8')) as Gradebook;
    expect(book).toMatchObject({ shard: { index: 0, count: 2 }, mergedShards: [1, 2], problems: [] });
    // a shard missing is named, and the merge exits 2
    const half = await runCli(['merge-reports', '--gradebook', join(folder({}), 'half'), parts[0]!], { cwd: COURSE });
    expect(half.code).toBe(2);
    expect(half.stdout).toContain('shard 2/2 is missing from the merge');
  });

  it('refuses, before grading anyone, a roster it cannot read, naming the file and the line', async () => {
    const cases: [Record<string, string>, string][] = [
      [
        { 'roster.csv': 'name,email\nada,a@example.com\n' },
        'roster.csv:1: no column names the student (expected one of roster_identifier, identifier, github_username, student, login)',
      ],
      [{ 'roster.csv': 'student,repo\nada,x\nada,y\n' }, 'roster.csv:3: student "ada" is on line 2 already'],
      [{ 'roster.csv': 'student,repo,commit\nada,x,main\n' }, 'roster.csv:2: "main" is not a commit (expected 7 to 64 hex digits)'],
      [{ 'roster.csv': 'student,repo\n"ada,x\n' }, 'roster.csv:2: not CSV'],
    ];
    for (const [files, words] of cases) {
      const dir = folder(files);
      const refused = await runCli(['classroom', '--roster', join(dir, 'roster.csv'), '--out', join(dir, 'out'), ...QUICK], { cwd: COURSE });
      expect(refused.code, words).toBe(2);
      expect(refused.stderr, words).toContain(`${join(dir, words.split(':')[0]!)}:${words.split(':').slice(1).join(':')}`);
      expect(existsSync(join(dir, 'out')), words).toBe(false);
    }
  });
});

// the folder a run's hidden cases come from is checked before anyone is graded
it('classroom --cases: hidden cases that are not laid out as the course says stop the run at once', async () => {
  const dir = folder({ 'roster.csv': `student,repo\nada,${url(reference)}\n` });
  const hidden = folder({ 'nothing.txt': '' });
  const run = await runCli(['classroom', '--roster', join(dir, 'roster.csv'), '--out', join(dir, 'out'), '--cases', hidden, ...QUICK], { cwd: COURSE });
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('cases/');
  expect(existsSync(join(dir, 'out'))).toBe(false);
});
