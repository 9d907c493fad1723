// The gradebook's page as a teacher reads it on a 1366×768 laptop, in headless Chromium: a class of eight
// on the course's eight stages, with reasons as long as the grader writes, shows every student's points
// and reason without scrolling sideways; each name links to the teacher's report; a student who earned
// most of the points is told apart from one who earned none.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRADEBOOK_VERSION, toGradebookHtml, type Gradebook, type GradebookRow } from '../../harness/classroom/gradebook.ts';
import { cleanUp, folder } from '../ci/helpers.ts';

const CHROMIUM = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

const STAGES = [
  ['config-and-framing', 10],
  ['handshake', 15],
  ['tools', 15],
  ['streamable-http', 15],
  ['translate', 10],
  ['stateless', 15],
  ['authorization', 20],
  ['resources-and-prompts', 15],
] as const;
const POSSIBLE = STAGES.reduce((sum, [, points]) => sum + points, 0);

/** A graded row: the stages passed earn their points, the others none. */
function row(student: string, position: number, passed: number, reason = ''): GradebookRow {
  const stages = STAGES.map(([, points], index) => ({ status: index < passed ? ('pass' as const) : ('fail' as const), earned: index < passed ? points : 0 }));
  const earned = stages.reduce((sum, stage) => sum + stage.earned, 0);
  return {
    student,
    repository: `https://github.com/course/mcp-${student}`,
    position,
    commit: 'ab'.repeat(20),
    committedAt: '2026-12-01T10:00:00Z',
    status: passed === STAGES.length ? 'pass' : 'fail',
    stages,
    points: { earned, possible: POSSIBLE },
    reason,
    folder: student,
  };
}

const LONG_REASON =
  'src/generated/protocol-definitions/very-long-module-name-for-the-streamable-http-transport.ts left out (a link out of src/); commit 2026-12-03T09:00:00Z is after the deadline 2026-12-01T00:00:00Z, 3 later commits';

const BOOK: Gradebook = {
  version: GRADEBOOK_VERSION,
  course: { digest: 'c'.repeat(64) },
  roster: { digest: 'r'.repeat(64), students: 8 },
  seed: 1234567,
  shard: null,
  mergedShards: null,
  startedAt: '2026-12-07T10:00:00.000Z',
  grader: { name: 'theinference', version: '0.1.0' },
  stages: STAGES.map(([slug, points]) => ({ slug, title: `the ${slug} stage`, points })),
  rows: [
    row('Zoë Ñúñez-Castellanos de la Fuente', 0, 8),
    row('almost', 1, 7, LONG_REASON),
    row('nothing', 2, 0, LONG_REASON),
    ...['dan', 'eve', 'fox', 'gil', 'hoa'].map((name, index) => row(name, index + 3, index, LONG_REASON)),
  ],
  problems: [],
};

const dir = folder({});
afterAll(() => cleanUp());

describe('the gradebook page', () => {
  const page = toGradebookHtml(BOOK);

  it("links each student's name to the teacher's report of them", () => {
    expect(page).toContain('<a href="teacher/almost/report.html">almost</a>');
  });

  it('says pass only for every stage passed, and tells 85 points from none', () => {
    const cellOf = (student: string) => page.split(`>${student}</a>`)[1]!.split('</tr>')[0]!;
    expect(cellOf('almost')).toContain('<b>100</b>');
    expect(cellOf('nothing')).toContain('<b>0</b>');
    expect(cellOf('almost')).not.toContain('status-pass">pass');
    expect(cellOf('Zoë Ñúñez-Castellanos de la Fuente')).toContain('status-pass">pass');
  });
});

describe.skipIf(!CHROMIUM)(`the gradebook page in headless Chromium at 1366×768${CHROMIUM ? '' : ' (skipped: no chromium)'}`, () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(() => browser?.close());

  it("shows every student's points and reason without scrolling sideways", async () => {
    const file = join(dir, 'gradebook.html');
    writeFileSync(file, toGradebookHtml(BOOK));
    const tab = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    await tab.goto(`file://${file}`, { waitUntil: 'load' });
    const seen = await tab.evaluate(() => {
      const table = document.querySelector('table.gradebook')!;
      const headers = [...table.querySelectorAll('thead tr:first-child th')].map((th) => th.textContent!.trim());
      const column = (name: string) => headers.findIndex((header) => header.startsWith(name));
      const rightmost = (index: number) => Math.max(...[...table.querySelectorAll('tbody tr')].map((tr) => tr.children[index]!.getBoundingClientRect().right));
      return {
        width: document.documentElement.clientWidth,
        scrollWidth: document.documentElement.scrollWidth,
        points: rightmost(column('points')),
        reason: rightmost(column('reason')),
      };
    });
    expect(seen.points).toBeLessThanOrEqual(seen.width);
    expect(seen.reason).toBeLessThanOrEqual(seen.width);
    expect(seen.scrollWidth).toBeLessThanOrEqual(seen.width);
  });
});
