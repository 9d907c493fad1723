// The HTML report of a real failing run, opened in headless Chromium from a file with every
// request but file:// refused: it renders without a console error, draws one arrow per message of
// each played session, flags the first divergence, opens on its summary with a link to the first failing check, shows a
// repeated hint once, and
// shows a submission's markup as text. And `replay --html`: one session's page, alike.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlayReport } from '../../harness/exchange/diagnosis.ts';
import { FIRST_FAILURE_ID, toHtml } from '../../harness/report/html.ts';
import type { ResultsReport } from '../../harness/report/model.ts';
import { courseCopy, REPO, runCli, scenarioSubmission, trimCourse } from '../helpers/cli.ts';

/** Markup a submission prints: if it ran, it would set window.pwned. */
const HOSTILE = `</script><script>window.pwned = 1</script><img src=x onerror="window.pwned = 2"><!--`;
/** The failing case the hostile text is printed in (stdout and stderr). */
const FAILING_CASE = 'tools/pagination';

const CHROMIUM = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

const dir = mkdtempSync(join(tmpdir(), 'html-report-'));
let report: ResultsReport;
let page: string;
/** Every stage, with a case of each command, the failing one, and one generated case a command: what is
 *  under test is how the page shows checks of every kind, not every case of the course. */
const course = courseCopy();
trimCourse(course, [FAILING_CASE]);

beforeAll(async () => {
  // The reference that does not follow nextCursor (its session strays from the recording), and
  // prints markup in the case where it does.
  const submission = scenarioSubmission('pagination-not-followed');
  const source = join(submission, 'src/mcp.ts');
  const prelude = `if (process.argv.some((arg) => arg.endsWith(${JSON.stringify(FAILING_CASE)}))) {
  process.stdout.write(${JSON.stringify(`${HOSTILE}\n`)});
  console.error(${JSON.stringify(HOSTILE)});
}`;
  writeFileSync(source, `${prelude}\n${readFileSync(source, 'utf8')}`);
  const reportPath = join(dir, 'results.json');
  page = join(dir, 'report.html');
  const run = await runCli(
    ['test', '--all', '--no-sandbox', '--seed', '7', '--random', '1', '--submission', submission, '--report', reportPath, '--html', page],
    {
      cwd: course,
    },
  );
  rmSync(submission, { recursive: true, force: true });
  expect(run.code).toBe(1);
  report = JSON.parse(readFileSync(reportPath, 'utf8')) as ResultsReport;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(course, { recursive: true, force: true });
});

const checks = () => report.stages.flatMap((stage) => stage.checks);
const failing = () => checks().find((check) => check.id === FAILING_CASE)!;

describe('the HTML report, as text', () => {
  it('is what --html wrote from the same run as results.json', () => {
    expect(readFileSync(page, 'utf8')).toBe(toHtml(report));
  });

  it("is written by a student's run too, and its path printed", async () => {
    const student = join(dir, 'student.html');
    const run = await runCli(['test', '--stage', 'config-and-framing', '--runs', '10', '--html', student], { cwd: course });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`wrote an HTML report (the exchanges drawn): ${student}\n`);
    const html = readFileSync(student, 'utf8');
    expect(html).toContain('<span class="badge status-pass">pass</span> config-and-framing');
    expect(html).not.toContain('status-skipped');
  });

  it('is one page that asks for nothing outside it, with markup from the submission escaped', () => {
    const html = readFileSync(page, 'utf8');
    expect(failing().output?.text).toContain(HOSTILE); // the run really printed it
    expect(html).not.toMatch(/<script\b/); // a run's report has none of its own (it opens on its summary)
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;window.pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.pwned = 2&quot;&gt;&lt;!--');
    expect(html).not.toMatch(/\b(src|href)=["']?(https?:|\/\/)/);
    expect(html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;');
  });
});

describe.skipIf(!CHROMIUM)(`the HTML report in headless Chromium${CHROMIUM ? '' : ' (skipped: chromium is not installed; apt-get install chromium)'}`, () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM });
  });
  afterAll(() => browser?.close());

  /** The page opened from its file, every other request refused and noted, every console error noted. */
  async function open(file: string): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      problems.push(`request: ${url}`);
      return route.abort();
    });
    await page.goto(`file://${file}`, { waitUntil: 'load' });
    return { page, problems };
  }

  it('renders without a console error or a request, opens on its summary, links to the first failing check, and shows a repeated hint once', async () => {
    const { page: tab, problems } = await open(page);
    const firstFailure = checks().find((check) => check.status !== 'pass')!;
    const placed = await tab.evaluate((id) => {
      const element = document.getElementById(id)!;
      const link = document.querySelector<HTMLAnchorElement>('header a[href^="#"]');
      return {
        check: element.dataset.check,
        scrolled: scrollY,
        open: (element as HTMLDetailsElement).open,
        link: link?.getAttribute('href'),
        linkText: link?.textContent,
      };
    }, FIRST_FAILURE_ID);
    expect(problems).toEqual([]);
    expect(placed.check).toBe(firstFailure.id);
    expect(placed.open).toBe(true);
    expect(placed.scrolled).toBe(0); // the summary first: the header says what passed and what failed
    expect(placed.link).toBe(`#${FIRST_FAILURE_ID}`);
    expect(placed.linkText).toBe(`the first failure: ${firstFailure.name}`);
    // every hint of the run in full once; where its mistake shows again, a link back to where it is
    const hints = await tab.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('li[data-hint]')].map((item) => ({
        kind: item.dataset.hint,
        repeated: item.classList.contains('repeated'),
        target: item.querySelector('a')?.getAttribute('href')?.slice(1),
      })),
    );
    const repeatedKinds = checks().flatMap((check) => check.hints.filter((hint) => !hint.aboutTheCase).map((hint) => hint.kind));
    expect(new Set(hints.filter((hint) => !hint.repeated).map((hint) => hint.kind)).size).toBe(hints.filter((hint) => !hint.repeated).length);
    expect(hints.filter((hint) => hint.repeated).length).toBe(repeatedKinds.length - new Set(repeatedKinds).size);
    expect(hints.some((hint) => hint.repeated)).toBe(true); // the run repeats a mistake: the test sees the link
    for (const hint of hints.filter((item) => item.repeated)) {
      expect(await tab.evaluate((id) => document.getElementById(id!)?.querySelector('li[data-hint]:not(.repeated)') !== null, hint.target)).toBe(true);
    }
  });

  it('draws one arrow per step of each exchange, and flags the first divergence', async () => {
    const { page: tab } = await open(page);
    const drawn = await tab.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('details.check')].map((check) => ({
        id: check.dataset.check,
        arrows: check.querySelectorAll('.sequence [data-step]').length,
        flagged: [...check.querySelectorAll<HTMLElement>('.first-divergence')].map((step) => Number(step.dataset.step)),
        flags: check.querySelectorAll('.flag').length,
      })),
    );
    const played = checks().filter((check) => check.sessions[0]?.exchange);
    expect(played.length).toBeGreaterThan(0);
    for (const check of played) {
      const diagram = drawn.find((each) => each.id === check.id)!;
      const exchange = check.sessions[0]!.exchange!;
      expect(diagram.arrows, check.id).toBe(exchange.steps.length);
      const first = exchange.steps.findIndex((step) => step.diagnosis !== undefined);
      expect(diagram.flagged, check.id).toEqual(first === -1 ? [] : [first]);
    }
    const strayed = drawn.find((each) => each.id === FAILING_CASE)!;
    expect(strayed.flagged).toHaveLength(1);
    expect(strayed.flags).toBe(1);
  });

  it("shows the submission's markup as text and runs none of it", async () => {
    const { page: tab } = await open(page);
    const seen = await tab.evaluate((id) => {
      const check = document.querySelector<HTMLElement>(`details.check[data-check="${id}"]`)!;
      return {
        pwned: (window as { pwned?: number }).pwned,
        images: document.images.length,
        scripts: document.scripts.length,
        stdout: check.querySelector('.stdout pre')!.textContent,
        stderr: check.querySelector('.stderr pre')!.textContent,
      };
    }, FAILING_CASE);
    expect(seen).toMatchObject({ pwned: undefined, images: 0, scripts: 0 });
    expect(seen.stdout).toContain(HOSTILE);
    expect(seen.stderr).toContain(HOSTILE);
  });

  it('replay --html: one session drawn, its divergence flagged and scrolled to', async () => {
    const reportPath = join(dir, 'replay.json');
    const htmlPath = join(dir, 'replay.html');
    const cassette = 'fixtures/tools/everything-server/cassette.yaml';
    const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), 'replay', cassette, '--report', reportPath, '--html', htmlPath], { cwd: REPO });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: HOSTILE, version: '1' } },
    });
    await lines.next(); // the result: nothing more is sent before it
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: HOSTILE } } });
    await lines.next(); // the player's error
    child.stdin.end();
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(1);
    const played = JSON.parse(readFileSync(reportPath, 'utf8')) as PlayReport;
    const { page: tab, problems } = await open(htmlPath);
    const seen = await tab.evaluate(
      (id) => ({
        arrows: document.querySelectorAll('.sequence [data-step]').length,
        flagged: [...document.querySelectorAll<HTMLElement>('.first-divergence')].map((step) => Number(step.dataset.step)),
        top: document.getElementById(id)!.getBoundingClientRect().top,
        images: document.images.length,
        // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out is what a person reads
        text: document.body.innerText,
      }),
      FIRST_FAILURE_ID,
    );
    expect(problems).toEqual([]);
    expect(seen.arrows).toBe(played.exchange.steps.length);
    expect(seen.flagged).toEqual([3]); // initialize, its result, initialized, then a call where the recording has tools/list
    expect(played.exchange.steps[3]).toMatchObject({ method: 'tools/call', diagnosis: { kind: 'unexpected-method' } });
    expect(seen.top).toBeGreaterThanOrEqual(-1);
    expect(seen.top).toBeLessThan(800);
    expect(seen.images).toBe(0);
    expect(seen.text).toContain(played.diagnoses[0]!.message);
  });

  it('replay --http --html: a POST refused before it was read is drawn, as the request and its refusal', async () => {
    const reportPath = join(dir, 'replay-http.json');
    const htmlPath = join(dir, 'replay-http.html');
    const child = spawn(
      process.execPath,
      [join(REPO, 'bin/theinference.js'), 'replay', 'cassettes/everything-http-handshake.yaml', '--report', reportPath, '--html', htmlPath],
      { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const url = (await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next()).value as string;
    const headers = { 'content-type': 'application/json', accept: 'application/json' };
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    });
    const refused = await fetch(url, { method: 'POST', headers, body });
    const why = ((await refused.json()) as { error: { message: string } }).error.message;
    await (await fetch(url, { method: 'DELETE' })).text(); // ends the replay
    expect(await new Promise((resolve) => child.on('close', resolve))).toBe(1);
    const played = JSON.parse(readFileSync(reportPath, 'utf8')) as PlayReport;
    const { page: tab, problems } = await open(htmlPath);
    const seen = await tab.evaluate(() => ({
      labels: [...document.querySelectorAll<HTMLElement>('.sequence [data-step] .label')].map((label) => label.textContent),
      flagged: [...document.querySelectorAll<HTMLElement>('.first-divergence')].map((step) => Number(step.dataset.step)),
      from: [...document.querySelectorAll<HTMLElement>('.sequence [data-step]')].map((step) => step.classList.contains('from-client')),
      sent: [...document.querySelectorAll<HTMLElement>('.sequence [data-step] pre')].map((pre) => pre.textContent),
    }));
    expect(problems).toEqual([]);
    // each labelled by its first line (a long one clipped), whole when opened
    expect(seen.labels[0]).toBe(`POST ${new URL(url).pathname}`);
    expect(`${refused.status} ${why}`.startsWith(seen.labels[1]!.replace(/…$/, ''))).toBe(true);
    expect(seen.sent).toEqual([`POST ${new URL(url).pathname}\naccept: application/json\ncontent-type: application/json`, `${refused.status} ${why}`]);
    expect(seen.from).toEqual([true, false]);
    expect(seen.flagged).toEqual([0]);
    expect(played.exchange.steps[0]!.diagnosis?.kind).toBe('http-accept');
  });
});
