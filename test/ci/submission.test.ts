// What a submission contains cannot change how it is graded: only its src/ is used, the expected
// outputs are nowhere it can read them, generated cases catch output learnt by heart, and hidden
// cases fail without showing what they expect.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import { HIDDEN_DETAILS, SEALED_DETAILS } from '../../harness/grade/sealed-verdict.ts';
import { checkResultsReport, type ResultsReport } from '../../harness/report/model.ts';
import { courseCopy, REPO, runCli, runInProcess, trimCourse } from '../helpers/cli.ts';
import { checks, cleanUp, folder, leftBehind, leftInTmp, QUICK, REFERENCE, runCi, submission } from './helpers.ts';

const made: string[] = [];
afterAll(() => {
  cleanUp();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A case of each command and the cases the tests below name: for the tests of what a submission can
 *  and cannot do, which every case would show alike, and for the reference's CI run (that it passes
 *  every public case is grader.test.ts's golden; here, every stage in CI mode, generated cases included). */
const trimmed = courseCopy();
made.push(trimmed);
trimCourse(trimmed, ['mcp-frame/numbers', 'mcp-frame/requests', 'mcp-config/stdio-full']);

const FRAME_CASES = join(REPO, 'cases/config-and-framing/mcp-frame');
const FRAME_FIXTURES = join(REPO, 'fixtures/config-and-framing/mcp-frame');

describe('grading only src/', () => {
  it('the reference solution passes every stage, generated cases included, with the seed in the report', async () => {
    const run = await runCi(['test', '--all', '--seed', '11', '--runs', '50', '--submission', REPO], { cwd: trimmed });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = run.report!;
    expect(report).toMatchObject({ version: 2, status: 'pass', exitCode: 0, seed: 11, shard: null });
    expect(report.stages.map((stage) => stage.status)).toEqual(report.stages.map(() => 'pass'));
    const generated = checks(report).filter((check) => check.origin === 'generated');
    expect(generated.map((check) => check.name)).toEqual(expect.arrayContaining(['random-mcp-frame/1', 'random-mcp-config/3', 'random-tools/2']));
    expect(generated.find((check) => check.name === 'random-tools/1')?.sessions.map((session) => session.cassette)).toEqual(['generated (--seed 11)']);
    expect(generated.every((check) => check.seed === 11)).toBe(true);
    // every stage's points, as course.yaml gives them
    const total = loadCourse(REPO).stages.reduce((sum, stage) => sum + stage.points, 0);
    expect(run.stdout).toContain(`graded with --seed 11: pass, ${total} of ${total} points`);
    expect(report.points).toEqual({ earned: total, possible: total });
    expect(report.stages.map((stage) => stage.points.earned)).toEqual(loadCourse(REPO).stages.map((stage) => stage.points));
    expect(leftInTmp(run.tmp)).toEqual([]);
  });

  it('a solution that reads expected.json and prints it finds none: every case fails', async () => {
    // At import, under program.ts: print the fixture of the case being run, as a course copy would have it.
    const prelude = `import * as ciFs from 'node:fs';
import * as ciPath from 'node:path';
const ciCase = process.argv[3];
if (ciCase !== undefined) {
  const expected = ciPath.join('fixtures', ciPath.relative('cases', ciCase), 'expected.json');
  process.stdout.write(ciFs.readFileSync(expected));
  process.exit(0);
}`;
    const cheat = submission(prelude);
    // In a folder that has the fixtures, the cheat works: the case below passes by hand.
    const byHand = execFileSync(join(REPO, 'your_program.sh'), ['mcp-frame', 'cases/config-and-framing/mcp-frame/numbers'], {
      cwd: REPO,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    expect(byHand.equals(readFileSync(join(FRAME_FIXTURES, 'numbers/expected.json')))).toBe(true);

    const run = await runCi([...QUICK, '--submission', cheat, '--random', '0', '--shard', '1/3']);
    expect(run.code).toBe(1);
    const cases = checks(run.report).filter((check) => check.origin === 'public');
    expect(cases.length).toBeGreaterThan(5);
    for (const check of cases) {
      expect(check.status).toBe('crash');
      expect(check.message).toContain('ENOENT');
    }
  });

  it('a submission that edits program.ts and a fixture gains nothing, and the report lists both', async () => {
    const dir = folder({
      // this program.ts would print the expected output whatever src/ does
      'program.ts': `import { readFileSync } from 'node:fs';\nprocess.stdout.write(readFileSync(process.argv[3].replace('cases', 'fixtures') + '/expected.json'));\n`,
      'fixtures/config-and-framing/mcp-frame/numbers/expected.json': '{}\n',
      'notes.txt': 'mine\n',
      'src/mcp.ts': REFERENCE.replace("return JSON.stringify(msg) + '\\n';", "return JSON.stringify(msg, null, 2) + '\\n';"),
    });
    const run = await runCi([...QUICK, '--submission', dir, '--random', '0'], { cwd: trimmed });
    expect(run.code).toBe(1);
    const byName = new Map(checks(run.report).map((check) => [check.name, check]));
    expect(byName.get('mcp-frame/numbers')?.status).toBe('fail'); // graded against the course's expected.json, with the course's program.ts
    expect(byName.get('mcp-config/stdio-full')?.status).toBe('pass');
    expect(run.report?.submission.changedOutsideSrc).toEqual([
      { path: 'fixtures/config-and-framing/mcp-frame/numbers/expected.json', change: 'modified' },
      { path: 'notes.txt', change: 'added' },
      { path: 'program.ts', change: 'modified' },
    ]);
    expect(run.stdout).toContain(
      'files outside src/ that the submission changed, not used in grading: fixtures/config-and-framing/mcp-frame/numbers/expected.json (modified)',
    );
  });

  it('a submission without src/mcp.ts: every check fails, the report says what is missing', async () => {
    const dir = folder({ 'src/client.ts': 'export {};\n', 'README.md': 'no mcp.ts here\n' });
    // one shard of three: each case starts through tsx here (there is nothing to bundle), so it is slower
    const run = await runCi([...QUICK, '--submission', dir, '--random', '0', '--runs', '5', '--shard', '1/3']);
    expect(run.code).toBe(1);
    expect(run.report?.submission.missing).toEqual(['src/mcp.ts']);
    expect(run.stdout).toContain('the submission has no src/mcp.ts: every check will fail');
    const all = checks(run.report);
    expect(all.length).toBeGreaterThan(8);
    expect(all.filter((check) => check.status === 'pass')).toEqual([]);
    expect(await leftBehind(run.tmp)).toEqual([]);
  });

  it('a solution that learnt the public cases by heart fails the generated ones', async () => {
    // frame() answers from a table of the public cases' frames, and returns nonsense for anything else.
    const table: Record<string, string> = {};
    for (const name of readdirSync(FRAME_CASES)) {
      const messages = JSON.parse(readFileSync(join(FRAME_CASES, name, 'messages.json'), 'utf8')) as object[];
      const { frames } = JSON.parse(readFileSync(join(FRAME_FIXTURES, name, 'expected.json'), 'utf8')) as { frames: string[] };
      messages.forEach((message, index) => (table[JSON.stringify(message)] = frames[index]!));
    }
    const learnt = submission(`const ciTable: Record<string, string> = ${JSON.stringify(table)};`, [
      ["return JSON.stringify(msg) + '\\n';", "return ciTable[JSON.stringify(msg)] ?? '{}\\n';"],
    ]);
    const run = await runCi([...QUICK, '--submission', learnt, '--runs', '1', '--seed', '21'], { cwd: trimmed });
    expect(run.code).toBe(1);
    const frameChecks = checks(run.report).filter((check) => check.name.includes('mcp-frame/'));
    expect(frameChecks.filter((check) => check.origin === 'public').every((check) => check.status === 'pass')).toBe(true);
    const generated = frameChecks.filter((check) => check.origin === 'generated');
    expect(generated.length).toBe(3);
    expect(generated.every((check) => check.status === 'fail')).toBe(true);
  });
});

describe('hidden cases', () => {
  /** A hidden mcp-frame case with a string in it that appears nowhere else; its expected.json from the reference. */
  function hiddenCases(): string {
    const messages = `[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"path":"/hidden/only-here/x"}}]\n`;
    const dir = folder({ 'cases/config-and-framing/mcp-frame/secret/messages.json': messages });
    const expected = execFileSync(join(REPO, 'your_program.sh'), ['mcp-frame', join(dir, 'cases/config-and-framing/mcp-frame/secret')], { cwd: REPO });
    // and a handshake case, played from a cassette kept beside its expected.json (a public case's, renamed)
    const handshake = (file: string) => readFileSync(join(REPO, 'fixtures/handshake/everything-server', file), 'utf8');
    return folder({
      'cases/config-and-framing/mcp-frame/secret/messages.json': messages,
      'fixtures/config-and-framing/mcp-frame/secret/expected.json': expected.toString(),
      'cases/handshake/secret-server/case.md': 'a hidden handshake\n',
      'fixtures/handshake/secret-server/expected.json': handshake('expected.json'),
      'fixtures/handshake/secret-server/cassette.yaml': handshake('cassette.yaml'),
    });
  }

  it('are graded, pass on the reference, and fail a broken solution without showing the expected bytes', async () => {
    const cases = hiddenCases();
    const good = await runCi(['test', '--stage', 'handshake', '--runs', '20', '--submission', REPO, '--cases', cases, '--random', '0'], { cwd: trimmed });
    expect(good.code).toBe(0);
    expect(good.report?.hiddenCases).toBe(2);
    const hiddenChecks = checks(good.report).filter((check) => check.origin === 'hidden');
    expect(hiddenChecks.map(({ name, status }) => ({ name, status }))).toEqual([
      { name: 'hidden-handshake/secret-server', status: 'pass' },
      { name: 'hidden-mcp-frame/secret', status: 'pass' },
    ]);
    // played from its cassette, of which (its path in the hidden cases' folder, its exchange) the report says nothing
    expect(hiddenChecks[0]!.sessions).toEqual([]);

    const slashes = submission('', [["return JSON.stringify(msg) + '\\n';", "return JSON.stringify(msg).replaceAll('/', '\\\\/') + '\\n';"]]);
    const summary = join(folder({}), 'summary.md');
    const teacher = join(folder({}), 'teacher');
    const bad = await runCi(
      [...QUICK, '--submission', slashes, '--cases', cases, '--random', '0', '--verbose', '--summary', summary, '--teacher-report', teacher],
      {
        cwd: trimmed,
      },
    );
    expect(bad.code).toBe(1);
    // the job summary: the stages and the first failure with its hints, and no case's expected bytes
    const page = readFileSync(summary, 'utf8');
    expect(page).toContain('| config\\-and\\-framing | \\.mcp\\.json \\+ framing | ❌ fail |');
    expect(page).toMatch(/### first failure: .+\n\nfail: ` its output is not the expected one `\n\nhints:\n\n- /);
    expect(page).not.toContain('/hidden/only-here/x');
    expect(page).not.toContain('expected.json:');
    const hidden = checks(bad.report).find((check) => check.name === 'hidden-mcp-frame/secret')!;
    expect(hidden.status).toBe('fail');
    expect(hidden.details?.text).toContain(HIDDEN_DETAILS);
    expect(hidden.details?.text).toContain('hint:');
    // the expected bytes (the path unescaped, in a frame) are not in what the report or the terminal explains
    expect(hidden.details?.text).not.toContain('/hidden/only-here/x');
    expect(hidden.details?.text).not.toContain('expected.json:');
    const terminal = bad.stdout.slice(bad.stdout.indexOf('hidden-mcp-frame/secret'));
    expect(terminal).not.toContain('/hidden/only-here/x');
    // a sealed grading: a public case's failure does not show them either, and the teacher's report shows both whole
    const requests = checks(bad.report).find((check) => check.name === 'mcp-frame/requests')!;
    expect(requests.details?.text.split('\n')[0]).toBe(SEALED_DETAILS);
    expect(requests.details?.text).not.toContain('expected.json:');
    expect(bad.report?.sealed).toBe(true);
    const whole = JSON.parse(readFileSync(join(teacher, 'results.json'), 'utf8')) as ResultsReport;
    expect(whole.sealed).toBeUndefined();
    expect(checks(whole).find((check) => check.name === 'mcp-frame/requests')?.details?.text).toContain('expected.json:');
    expect(checks(whole).find((check) => check.name === 'hidden-mcp-frame/secret')?.details?.text).toContain('/hidden/only-here/x');
    expect(readFileSync(join(teacher, 'summary.md'), 'utf8')).toMatch(/### first failure: .+\n\nfail: ` output differs from expected.json `/);
  });
});

// Run in this process (runInProcess): bad input ends before any program starts.
describe('bad input: one line, exit 2', () => {
  const cases: [string, string[], RegExp][] = [
    ['a submission that does not exist', ['--submission', '/nonexistent/sub'], /^theinference test: --submission \/nonexistent\/sub: no such folder\n$/],
    [
      'a report in a folder that does not exist',
      ['--report', '/nonexistent/dir/results.json'],
      /^theinference test: --report \/nonexistent\/dir\/results\.json: cannot write it, the folder \/nonexistent\/dir does not exist\n$/,
    ],
    ['a report path that is a folder', ['--report', '/tmp'], /^theinference test: --report \/tmp: cannot write it, it is a folder\n$/],
    ['a JUnit path that cannot be written', ['--junit', '/nonexistent/junit.xml'], /^theinference test: --junit .*does not exist\n$/],
    ['hidden cases that do not exist', ['--cases', '/nonexistent/hidden'], /^theinference test: --cases \/nonexistent\/hidden: no such folder\n$/],
    // only record and verify take words after --: a server command
    ['words after -- (test takes none)', ['--', 'node', 'server.js'], /^theinference test: Unexpected argument 'node'/],
  ];
  for (const [what, args, says] of cases) {
    it(what, async () => {
      const run = await runInProcess(['test', '--all', ...args]);
      expect(run.stderr).toMatch(says);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
    });
  }

  it('a bad --shard, which the report files asked for say too', async () => {
    const out = folder({});
    const run = await runInProcess(['test', '--shard', '3/2', '--seed', '8', '--report', join(out, 'results.json'), '--summary', join(out, 'summary.md')]);
    expect(run.code).toBe(2);
    const reason = '--shard takes <i>/<n> with 1 <= i <= n, e.g. 2/4, not "3/2"';
    expect(run.stderr).toContain(reason);
    const report = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8')) as ResultsReport;
    expect(report).toMatchObject({ status: 'error', exitCode: 2, seed: 8, problems: [reason], counts: { total: 0 } });
    expect(report.stages.every((stage) => stage.status === 'skipped')).toBe(true);
    expect(checkResultsReport(report, '')).toBe(report);
    expect(readFileSync(join(out, 'summary.md'), 'utf8')).toContain(`- \` ${reason} \``);
  });

  it('no course to read: the summary alone says why', async () => {
    const nowhere = folder({});
    const summary = join(nowhere, 'summary.md');
    const run = await runCli(['test', '--all', '--report', join(nowhere, 'results.json'), '--summary', summary], { cwd: nowhere });
    expect(run.code).toBe(2);
    const reason = `no course.yaml in ${nowhere} or any folder above it: run theinference in the course directory`;
    expect(run.stderr).toBe(`theinference test: ${reason}\n`);
    expect(readFileSync(summary, 'utf8')).toContain(`- \` ${reason} \``);
    expect(existsSync(join(nowhere, 'results.json'))).toBe(false);
  });

  it('malformed hidden cases: a folder no stage names, a case without expected.json', async () => {
    let dir = folder({ 'cases/config-and-framing/mcp-fram/x/messages.json': '[]\n', 'fixtures/config-and-framing/mcp-fram/x/expected.json': '{}\n' });
    const summary = join(folder({}), 'summary.md');
    let run = await runInProcess(['test', '--all', '--cases', dir, '--summary', summary]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^theinference test: --cases .*: cases\/config-and-framing\/mcp-fram is not a case folder of course\.yaml \(known: config-and-framing\/mcp-frame, [^\n]*\)\n$/,
    );
    expect(readFileSync(summary, 'utf8')).toContain('cases/config-and-framing/mcp-fram is not a case folder of course.yaml');
    dir = folder({ 'cases/config-and-framing/mcp-frame/x/messages.json': '[]\n' });
    run = await runInProcess(['test', '--all', '--cases', dir]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/: case config-and-framing\/mcp-frame\/x has no fixtures\/config-and-framing\/mcp-frame\/x\/expected\.json\n$/);
  });
});

describe("the grader's own failures: one line, exit 2, an error report", () => {
  it('a course whose reference fails on a generated case', async () => {
    const course = courseCopy();
    made.push(course);
    const reference = readFileSync(join(course, 'src/mcp.ts'), 'utf8');
    writeFileSync(
      join(course, 'src/mcp.ts'),
      reference.replace(
        'export function frame(msg: object): string {',
        'export function frame(msg: object): string {\n  throw new Error("the reference is broken");',
      ),
    );
    const summary = join(course, 'summary.md');
    const run = await runCi(
      ['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '3', '--random', '1', '--submission', REPO, '--summary', summary],
      { cwd: course },
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(/^theinference test: the reference solution \(.*src\/mcp\.ts\) failed on the generated case .*random-mcp-frame.*--random 0/);
    // the report and the summary give the same line
    const reason = run.stderr.slice('theinference test: '.length).trimEnd();
    expect(run.report).toMatchObject({ status: 'error', exitCode: 2, problems: [reason] });
    expect(readFileSync(summary, 'utf8')).toContain(`- \` ${reason} \``);
    expect(leftInTmp(run.tmp)).toEqual([]);
  });
});
