// A submission whose every program speaks: a marker on stderr, in an error line it crashes with, in what it
// prints, in the messages its client sends and in what its functions throw under the property suite. A
// program that met a hidden case could hand what it learned (the case's input, and so its answer) to any
// other program of the machine through a channel the kernel leaves open (a lock, the page cache), and that
// program's words would carry it to the student. So in a sealed grading (hidden cases given) no output a
// student reads holds any of it, whichever check spoke: the terminal, results.json, the summary, JUnit,
// the HTML. The teacher's report has every word. And the hidden cases run last, after every program whose
// verdict the student reads, so that none of those can have learned anything from one of them.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResultsReport } from '../../harness/report/model.ts';
import { checks, cleanUp, folder, runCi, submission, type CiRun } from '../ci/helpers.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

const MARK = 'spoken-7c41e';

const course = courseCopy();
trimCourse(course);
afterAll(() => {
  rmSync(course, { recursive: true, force: true });
  cleanUp();
});

/** A hidden frame case (the reference's answer its expected.json) and a hidden handshake (a public one's copy). */
function hiddenCases(): string {
  const dir = folder({
    'cases/config-and-framing/mcp-frame/kept/messages.json': '[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n',
    'cases/handshake/kept-session/case.md': 'a hidden handshake\n',
  });
  const expected = execFileSync(join(REPO, 'your_program.sh'), ['mcp-frame', join(dir, 'cases/config-and-framing/mcp-frame/kept')], { cwd: REPO });
  mkdirSync(join(dir, 'fixtures/config-and-framing/mcp-frame/kept'), { recursive: true });
  writeFileSync(join(dir, 'fixtures/config-and-framing/mcp-frame/kept/expected.json'), expected);
  mkdirSync(join(dir, 'fixtures/handshake/kept-session'), { recursive: true });
  for (const file of ['cassette.yaml', 'expected.json'])
    writeFileSync(join(dir, 'fixtures/handshake/kept-session', file), readFileSync(join(REPO, 'fixtures/handshake/everything-server', file)));
  return dir;
}

/** The reference, speaking wherever a program can: its frame() throws only in the property suite's oracle. */
function speaker(): string {
  const prelude = `console.error('${MARK} on stderr');
if (process.argv[2] === 'mcp-frame') {
  process.stdout.write('${MARK} on stdout\\n');
  throw new Error('${MARK} in an error line');
}`;
  return submission(prelude, [
    [
      "return JSON.stringify(msg) + '\\n';",
      `if (process.argv.includes('--module') && JSON.stringify(msg).length > 120) throw new Error('${MARK} thrown'); return JSON.stringify(msg) + '\\n';`,
    ],
    ["{ name: 'mcp-course-client', version: '1.0.0' }", `{ name: '${MARK}', version: '1.0.0' }`],
  ]);
}

const out = folder({});
const teacher = join(out, 'teacher');
const files = { summary: join(out, 'summary.md'), junit: join(out, 'junit.xml'), html: join(out, 'report.html') };
let run: CiRun;
let report: ResultsReport;

beforeAll(async () => {
  const args = ['test', '--all', '--stage', 'handshake', '--runs', '50', '--seed', '11', '--random', '1', '--submission', speaker(), '--cases', hiddenCases()];
  run = await runCi([...args, '--summary', files.summary, '--junit', files.junit, '--html', files.html, '--teacher-report', teacher], { cwd: course });
  report = run.report!;
});

describe('speaks-through-other-checks: a sealed grading tells no program word, whichever check spoke', () => {
  it("every origin of check was graded, and each spoke: the teacher's report holds the marker", () => {
    expect(new Set(checks(report).map((check) => check.origin))).toEqual(new Set(['public', 'generated', 'property', 'hidden']));
    for (const file of ['results.json', 'summary.md', 'report.html']) expect(readFileSync(join(teacher, file), 'utf8'), file).toContain(MARK);
    const whole = JSON.parse(readFileSync(join(teacher, 'results.json'), 'utf8')) as ResultsReport;
    const spoke = checks(whole).filter((check) => JSON.stringify(check).includes(MARK));
    // a crash quotes its line, a property its throw, a handshake's exchange the client's name, and each its stderr
    expect(new Set(spoke.map((check) => check.origin))).toEqual(new Set(['public', 'generated', 'property', 'hidden']));
  });

  it('no output a student reads holds it, nor a duration finer than the run', () => {
    const read = {
      terminal: run.stdout + run.stderr,
      'results.json': readFileSync(join(run.tmp, '..', 'results.json'), 'utf8'),
      summary: readFileSync(files.summary, 'utf8'),
      junit: readFileSync(files.junit, 'utf8'),
      html: readFileSync(files.html, 'utf8'),
    };
    for (const [where, text] of Object.entries(read)) expect(text.includes(MARK), `${where} holds the marker`).toBe(false);
    expect(report.sealed).toBe(true);
    for (const stage of report.stages) expect(stage.durationMs, stage.slug).toBe(0);
    for (const check of checks(report))
      expect({ name: check.name, durationMs: check.durationMs, stderr: check.stderr, output: check.output }).toEqual({
        name: check.name,
        durationMs: 0,
        stderr: null,
        output: null,
      });
    expect(run.stdout).not.toMatch(/\d\.\d+ s\b/);
  });

  it('the hidden cases are graded after every other check', () => {
    const lines = run.stdout.split('\n');
    const hiddenBlocks = lines.flatMap((line, at) => (line.includes('(hidden cases)') ? [at] : []));
    expect(hiddenBlocks.length).toBe(2);
    const others = lines.flatMap((line, at) => (/^ {2}[✓✗!] /.test(line) && !line.includes('hidden-') ? [at] : []));
    expect(others.length).toBeGreaterThan(4);
    expect(Math.max(...others)).toBeLessThan(Math.min(...hiddenBlocks));
  });
});
