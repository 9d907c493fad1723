// The teacher's view of a class: a small class graded for real (local git repositories), in which two
// students hand in the starter and one forgets the config's defaults. The gradebook page ranks the checks
// by how many students fail them, hidden ones named as the teacher's reports name them, and links each
// student's name to the teacher's report; no file a student reads has that ranking.
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failingChecks } from '../../harness/classroom/failing-checks.ts';
import { readGradebook } from '../../harness/classroom/gradebook.ts';
import { cleanUp, folder, REFERENCE } from '../ci/helpers.ts';
import { courseCopy, REPO, runCli, scenarioSubmission, trimCourse } from '../helpers/cli.ts';
import { repository, roster, url } from './helpers.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0', '--seed', '9'];
const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');

/** The teacher's hidden cases: a public mcp-frame case under another name. */
const hidden = folder({
  'cases/config-and-framing/mcp-frame/secret/messages.json': readFileSync(join(REPO, 'cases/config-and-framing/mcp-frame/numbers/messages.json'), 'utf8'),
  'fixtures/config-and-framing/mcp-frame/secret/expected.json': readFileSync(join(REPO, 'fixtures/config-and-framing/mcp-frame/numbers/expected.json'), 'utf8'),
});

const CLASS = [
  { id: 'ada', repo: url(repository([{ files: { 'src/mcp.ts': REFERENCE } }])) },
  { id: 'bea', repo: url(repository([{ files: { 'src/mcp.ts': STARTER } }])) },
  { id: 'cyd', repo: url(repository([{ files: { 'src/mcp.ts': STARTER } }])) },
  { id: 'dov', repo: url(repository([{ files: { 'src/mcp.ts': readFileSync(join(scenarioSubmission('config-no-defaults'), 'src/mcp.ts'), 'utf8') } }])) },
];

const out = join(folder({}), 'gradebook');

beforeAll(async () => {
  const run = await runCli(['classroom', '--roster', join(roster(CLASS), 'roster.csv'), '--out', out, '--jobs', '2', '--cases', hidden, ...QUICK], {
    cwd: COURSE,
  });
  expect(run.stderr).toBe('');
  expect(run.code, run.stdout).toBe(0);
});

afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

/** Text as the page escapes it. */
const escaped = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll("'", '&#39;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** Every file under `dir`, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((path) => statSync(join(dir, path)).isFile());
}

describe('the checks most students fail', () => {
  it('counts, for each check, the graded students who fail it, most failed first, hidden ones named', () => {
    const ranked = failingChecks(out, readGradebook(join(out, 'gradebook.json')));
    expect(ranked.students).toBe(4);
    expect(ranked.unread).toEqual([]);
    // bea, cyd and dov fill in no defaults; bea and cyd (the starter) frame nothing, the hidden case's frame neither
    expect(ranked.checks[0]).toEqual({ stage: 'config-and-framing', name: 'mcp-config/defaults-filled', origin: 'public', failed: 3, graded: 4 });
    expect(ranked.checks).toContainEqual({ stage: 'config-and-framing', name: 'hidden-mcp-frame/secret', origin: 'hidden', failed: 2, graded: 4 });
    expect(ranked.checks.map((check) => check.failed)).toEqual([3, 2, 2, 2, 2, 2, 2]);
    // the page shows the same, in that order
    const section = readFileSync(join(out, 'gradebook.html'), 'utf8').split('<h2>checks most students fail</h2>')[1]?.replaceAll('<wbr>', '') ?? '';
    const shown = [...section.matchAll(/<tr><td><b>(\d+)<\/b> <span class="dim">of (\d+)<\/span><\/td><td>(.*?)<\/td><td>(.*?)<\/td><\/tr>/g)];
    expect(shown.map(([, failed, graded, name, stage]) => [failed, graded, name, stage])).toEqual(
      ranked.checks.map((check) => [
        String(check.failed),
        String(check.graded),
        `${escaped(check.name)}${check.origin === 'hidden' ? ' <span class="badge">hidden</span>' : ''}`,
        `1 ${check.stage}`,
      ]),
    );
  });

  it("links each student's name to the teacher's report of them", () => {
    const page = readFileSync(join(out, 'gradebook.html'), 'utf8');
    for (const { id } of CLASS) expect(page).toContain(`<a href="teacher/${id}/report.html">${id}</a>`);
  });

  it("is on the teacher's page, and in no file a student reads", () => {
    expect(readFileSync(join(out, 'gradebook.html'), 'utf8')).toContain('<h2>checks most students fail</h2>');
    const files = filesUnder(join(out, 'students'));
    expect(files.length).toBeGreaterThan(0);
    for (const path of files) {
      const text = readFileSync(join(out, 'students', path), 'utf8');
      expect(text, path).not.toContain('checks most students fail');
      expect(text, path).not.toContain('checks-most-students-fail');
    }
  });
});
