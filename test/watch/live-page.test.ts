// Watch mode with --html: the report is served on 127.0.0.1 as well as written, and a page open on it
// shows each grading as it ends, with no hand on the browser. Where Chromium is installed, a real
// browser holds the page open across a failing save; elsewhere the page's event stream is read.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

const CHROMIUM = (() => {
  try {
    return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

describe('test --watch --html', () => {
  const dir = courseCopy();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the page it writes, which reloads to the next grading by itself, and stops serving with watch', { timeout: 120_000 }, async () => {
    trimCourse(dir, ['mcp-config/no-servers'], ['config-and-framing']);
    const report = join(dir, 'report.html');
    const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), 'test', '--stage', '1', '--watch', '--seed', '3', '--html', report], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    const waiters: { text: RegExp; resolve: () => void }[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const waiter of waiters.filter((candidate) => candidate.text.test(output))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
    /** Resolves once the output holds `text`; the line after a grading's last one comes in a write of its own. */
    const seen = (text: RegExp) => new Promise<void>((resolve) => (text.test(output) ? resolve() : waiters.push({ text, resolve })));
    const PAGE = /^the HTML report, which reloads after each grading: (http:\/\/127\.0\.0\.1:\d+\/)$/m;

    await seen(PAGE);
    expect(output).toContain('[watch] waiting for changes');
    const url = PAGE.exec(output)?.[1];
    // what is served is what is written
    const first = await (await fetch(url!)).text();
    expect(first).toBe(readFileSync(report, 'utf8'));
    expect(first).toMatch(/<title>theinference: pass, /);
    // asked under another name (a site whose name was rebound to 127.0.0.1), it serves nothing
    const rebound = await new Promise<number | undefined>((resolve, reject) =>
      get(url!, { headers: { host: 'rebound.example' } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      }).on('error', reject),
    );
    expect(rebound).toBe(421);

    const browser = CHROMIUM ? await chromium.launch({ executablePath: CHROMIUM }) : undefined;
    try {
      const tab = await browser?.newPage();
      const problems: string[] = [];
      tab?.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
      await tab?.goto(url!, { waitUntil: 'load' });
      expect(await tab?.title()).toMatch(/^theinference: pass, /);
      const events = await fetch(`${url}events`);
      const reader = events.body!.getReader();

      output = '';
      const source = join(dir, 'src/mcp.ts');
      const reference = readFileSync(source, 'utf8');
      writeFileSync(source, reference.replace("  return JSON.stringify(msg) + '\\n';", "  return JSON.stringify(msg, null, 2) + '\\n';"));
      await seen(PAGE);
      expect(output).toContain('stage config-and-framing fails');

      // the page's listeners are told once the new page is written
      let said = '';
      while (!said.includes('data: graded')) said += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      expect(await (await fetch(url!)).text()).toMatch(/<title>theinference: fail, /);
      // the open page, untouched, now shows the failing grading
      await tab?.waitForFunction(() => document.title.startsWith('theinference: fail, '));
      expect(problems).toEqual([]);
    } finally {
      await browser?.close();
    }

    child.kill('SIGINT');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    await expect(fetch(url!)).rejects.toThrow();
  });
});
