// A client that puts its access token in a URL is refused (oauth-token-in-query), and the URL is drawn
// in the session the report keeps: the grader's report shows the token by its role, never the
// value the player minted, as the terminal does (a report goes to CI logs and artifacts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopies, keepOnly, runInProcess, scenarioSubmission } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'token-in-the-report-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a token the program put in a URL', () => {
  it('is in the report by its role only', async () => {
    const course = courseCopies((dir, only) => keepOnly(dir, 'authorization', only))('sdk-auth-router');
    const submission = scenarioSubmission('token-in-query');
    const report = join(scratch, 'results.json');
    try {
      const run = await runInProcess(['test', '--stage', 'authorization', '--submission', submission, '--report', report], { cwd: course });
      expect(run.code).toBe(1);
      const text = readFileSync(report, 'utf8');
      const inUrls = [...text.matchAll(/access_token=([^\s"&\\]+)/g)].map((match) => match[1]);
      expect(inUrls.length).toBeGreaterThan(0); // the refused requests are drawn
      expect(new Set(inUrls)).toEqual(new Set(['<access-token>']));
    } finally {
      rmSync(submission, { recursive: true, force: true });
    }
  });
});
