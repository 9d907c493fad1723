// A submission whose program prints markup on stdout and stderr and crashes with it in its error line
// (test/attacks/marks-up-the-reports/src/attack.ts), graded as CI grades it with every report asked
// for. Each shows it as text: the Markdown summary, rendered as GitHub renders it, has the grader's
// markup and no other; results.json's messages are one line; the JUnit XML is well-formed; the HTML
// page, read by Chromium, has the elements of the same report with plain words in it; the terminal
// carries no control character of the program's.
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import { toHtml } from '../../harness/report/html.ts';
import type { CheckReport, ResultsReport } from '../../harness/report/model.ts';
import { toSummary } from '../../harness/report/summary.ts';
import { checks, cleanUp, folder, runCi, type CiRun } from '../ci/helpers.ts';
import { REPO } from '../helpers/cli.ts';
import { elements, renderGfm, textOf } from '../helpers/markdown.ts';
import { xmlProblem } from '../helpers/xml.ts';

afterAll(cleanUp);

/** Control characters a report's reader must never be sent raw: all but newline and tab. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The third of stage 1 its property suite falls in (as attacks.test.ts grades it): cases and a property suite. */
const SUITE_SHARD = (loadCourse(REPO).stages[0]!.cases.length % 3) + 1;

const out = folder({});
const files = { summary: join(out, 'summary.md'), junit: join(out, 'junit.xml'), html: join(out, 'report.html') };
let run: CiRun;
let report: ResultsReport;

beforeAll(async () => {
  const starter = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
  const submission = folder({ 'src/mcp.ts': `import './attack.ts';\n${starter}` });
  cpSync(join(REPO, 'test/attacks/marks-up-the-reports/src'), join(submission, 'src'), { recursive: true });
  run = await runCi([
    'test',
    '--stage',
    'config-and-framing',
    '--runs',
    '20',
    '--seed',
    '5',
    '--random',
    '0',
    '--shard',
    `${SUITE_SHARD}/3`,
    '--submission',
    submission,
    '--summary',
    files.summary,
    '--junit',
    files.junit,
    '--html',
    files.html,
  ]);
  expect(run.code).toBe(1);
  report = run.report!;
});

/** The same report with plain words for every text a program could have put in it. */
function tamed(report: ResultsReport): ResultsReport {
  const plain = (check: CheckReport): CheckReport => ({
    ...check,
    message: 'plain words',
    hints: check.hints.map((hint) => ({ ...hint, lines: hint.lines.map(() => 'plain words') })),
    details: check.details && { ...check.details, text: 'plain words' },
    output: check.output && { ...check.output, text: 'plain words' },
    stderr: check.stderr && { ...check.stderr, text: 'plain words' },
  });
  return { ...report, stages: report.stages.map((stage) => ({ ...stage, checks: stage.checks.map(plain) })) };
}

describe('marks-up-the-reports: what a program prints and crashes with is text in every report', () => {
  it("the checks crashed, each quoting the program's error line on one line, its controls escaped", () => {
    const crashed = checks(report).filter((check) => check.status === 'crash');
    expect(crashed.length).toBeGreaterThan(3);
    for (const check of checks(report)) expect(check.message, check.name).not.toMatch(RAW_CONTROL);
    expect(crashed[0]!.message).toContain('Error: all stages pass\\r=====\\r# all stages pass\\r| forged |');
    expect(crashed[0]!.message).toContain('\\x85next \\u2028line \\u2029paragraph \\u202eflipped\\u202c \\x9b31m');
  });

  it('the summary, rendered as GitHub renders it, has the markup the grader writes and no other', () => {
    const page = renderGfm(readFileSync(files.summary, 'utf8'));
    expect(elements(page)).toEqual(elements(renderGfm(toSummary(tamed(report)))));
    expect(elements(page).filter((tag) => /^<(h\d|a|img|script|table)\b/.test(tag))).toEqual(['<h2>', '<table>', '<h3>']);
    // the program's words are there, as words
    expect(textOf(page)).toContain('Error: all stages pass\\r=====\\r# all stages pass\\r| forged | ✅ pass |\\r|---|---|\\r[click](https://evil.example/a)');
  });

  it('the JUnit XML is well-formed, with no control character of the program', () => {
    const xml = readFileSync(files.junit, 'utf8');
    expect(xmlProblem(xml)).toBeUndefined();
    expect(xml).not.toMatch(RAW_CONTROL);
    expect(xml).toContain('&lt;h1&gt;pwned&lt;/h1&gt;');
  });

  it('the terminal shows the escapes the program wrote, and is sent none', () => {
    expect(run.stdout).toContain('Error: all stages pass\\r=====');
    expect(run.stdout + run.stderr).not.toMatch(RAW_CONTROL);
  });
});

const CHROMIUM = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

describe.skipIf(!CHROMIUM)(`marks-up-the-reports: the HTML page, in headless Chromium${CHROMIUM ? '' : ' (skipped: no chromium)'}`, () => {
  it('has the elements of the same report in plain words, and the markup as text', async () => {
    const tame = join(out, 'tame.html');
    writeFileSync(tame, toHtml(tamed(report)));
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    try {
      const read = async (file: string) => {
        const page = await browser.newPage();
        await page.route('**/*', (route) => (route.request().url().startsWith('file:') ? route.continue() : route.abort()));
        await page.goto(`file://${file}`, { waitUntil: 'load' });
        return page.evaluate(() => ({
          tags: [...document.querySelectorAll('*')].map((element) => element.tagName),
          links: [...document.querySelectorAll('a')].map((link) => link.getAttribute('href')),
          text: document.body.textContent ?? '',
        }));
      };
      const [hostile, plain] = [await read(files.html), await read(tame)];
      expect(hostile.tags).toEqual(plain.tags);
      expect(hostile.links.every((href) => href?.startsWith('#'))).toBe(true);
      expect(hostile.text).toContain('<h1>pwned</h1><img src=x onerror=alert(1)>');
    } finally {
      await browser.close();
    }
  });
});
