// Two classmates graded by one classroom run, on one kernel: a program of one that met a hidden case
// could hand what it learned to a program of the other through a channel the kernel leaves open, and
// that program's words would carry it into a report the other student reads. So a class's gradings are
// sealed (every student reads only verdicts and the grader's hints; the teacher's folder has every word),
// and every student's hidden cases are graded after every student's other checks. Here one classmate's
// programs speak a marker in every word they can (stderr, an error line, stdout, their client's name) and
// take three seconds of CPU in a public case, beside the reference: no file of the students' folders
// holds the marker, the teacher's do, and no hidden case was graded before the slow one's other checks
// were done.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanUp, folder, REFERENCE } from '../ci/helpers.ts';
import { repository, roster, url } from '../classroom/helpers.ts';
import { courseCopy, REPO, runCli, trimCourse } from '../helpers/cli.ts';

const MARK = 'classmate-9b02d';
const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const speaker = `console.error('${MARK} on stderr');
if (process.argv[2] === 'mcp-config') {
  const used = () => process.cpuUsage().user + process.cpuUsage().system;
  const until = used() + 3e6;
  while (used() < until);
}
if (process.argv[2] === 'mcp-frame') {
  process.stdout.write('${MARK} on stdout\\n');
  throw new Error('${MARK} in an error line');
}
${REFERENCE.replace("{ name: 'mcp-course-client', version: '1.0.0' }", `{ name: '${MARK}', version: '1.0.0' }`)}`;

const hidden = folder({
  'cases/config-and-framing/mcp-frame/kept/messages.json': readFileSync(join(REPO, 'cases/config-and-framing/mcp-frame/numbers/messages.json'), 'utf8'),
  'fixtures/config-and-framing/mcp-frame/kept/expected.json': readFileSync(join(REPO, 'fixtures/config-and-framing/mcp-frame/numbers/expected.json'), 'utf8'),
});

/** Every file under `dir`, with its text. */
function texts(dir: string): [string, string][] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => [join(entry.parentPath, entry.name), readFileSync(join(entry.parentPath, entry.name), 'utf8')]);
}

describe('colluding-classmates: a class is graded sealed, and its hidden cases after everything else', () => {
  it("no student's folder holds a program's words, the teacher's do; the hidden cases come last", async () => {
    const students = [
      { id: 'loud', repo: url(repository([{ files: { 'src/mcp.ts': speaker } }])) },
      { id: 'quiet', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
    ];
    const out = join(folder({}), 'gradebook');
    const args = ['--stage', 'handshake', '--runs', '20', '--random', '0', '--seed', '4', '--jobs', '2', '--cases', hidden];
    const run = await runCli(['classroom', '--roster', join(roster(students), 'roster.csv'), '--out', out, ...args], { cwd: COURSE });
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    const files = texts(join(out, 'students'));
    expect(files.length).toBeGreaterThanOrEqual(6);
    for (const [path, text] of files) expect(text.includes(MARK), path).toBe(false);
    for (const file of ['results.json', 'summary.md', 'report.html']) expect(readFileSync(join(out, 'teacher/loud', file), 'utf8'), file).toContain(MARK);
    // the quiet one's hidden case was graded after the loud one's slow public cases had ended
    const written = (path: string) => statSync(join(out, 'teacher', path)).mtimeMs;
    expect(written('quiet/grading-2.txt')).toBeGreaterThanOrEqual(written('loud/grading.txt'));
    expect(readFileSync(join(out, 'teacher/quiet/grading-2.txt'), 'utf8')).toContain('hidden-mcp-frame/kept');
    expect(readFileSync(join(out, 'teacher/quiet/grading.txt'), 'utf8')).not.toContain('hidden-mcp-frame/kept');
  });
});
