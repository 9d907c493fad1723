// The grader tested as testers are: its whole output on the reference solution, on the starter
// and on each deliberately broken solution (test/scenarios/<mistake>/mistake.diff, applied to the
// reference) is recorded once as a golden file and compared; beside that, each run must end in the
// exit code and name the mistake it was built for.
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectGolden, normalise, patchedSubmission, REPO, runCli, scenarioSubmission } from './helpers/cli.ts';

const SEED = ['--seed', '7'];

/** What each broken solution must make the grader say (written by hand, not recorded). */
const SCENARIOS: Record<string, { stage: string; says: string[]; timeout?: string }> = {
  // stage 1: framing
  'pretty-printed': { stage: 'config-and-framing', says: ['pretty-printed', 'indent'] },
  crlf: { stage: 'config-and-framing', says: ['\\r\\n'] },
  'no-newline': { stage: 'config-and-framing', says: ['no final newline'] },
  'two-newlines': { stage: 'config-and-framing', says: ['ends with 2 newlines'] },
  'whitespace-stripped': { stage: 'config-and-framing', says: ['whitespace inside strings was removed'] },
  'keys-sorted': { stage: 'config-and-framing', says: ['keys are in another order (yours are sorted)'] },
  'non-ascii-escaped': { stage: 'config-and-framing', says: ['as \\uXXXX'] },
  'slash-escaped': { stage: 'config-and-framing', says: ["escapes '/' as '\\/'"] },
  'parse-assumes-newline': { stage: 'config-and-framing', says: ['parseFrame(line without its "\\n") threw'] },
  'logs-to-stdout': { stage: 'config-and-framing', says: ['a log line on stdout', 'use console.error'] },
  hangs: { stage: 'config-and-framing', says: ['timeout: used more than 2 s of CPU time'], timeout: '2' },
  'floods-stdout': { stage: 'config-and-framing', says: ['printed more than 1 MiB on stdout'], timeout: '3' },
  crashes: { stage: 'config-and-framing', says: ['crash: exited with code 1', 'TypeError'] },
  // stage 1: config
  'config-no-defaults': { stage: 'config-and-framing', says: ['defaults are missing'] },
  'config-accepts-invalid': { stage: 'config-and-framing', says: ['an invalid config was accepted'] },
  'config-type-not-inferred': { stage: 'config-and-framing', says: ['has no type, expected "stdio"'] },
  'config-order-lost': { stage: 'config-and-framing', says: ["keep the file's order"] },
  // stage 2: handshake
  'initialized-missing': { stage: 'handshake', says: ['the session ended before your client sent notifications/initialized'] },
  'initialized-before-response': { stage: 'handshake', says: ['before the initialize result had arrived'] },
  'first-message-is-the-response': { stage: 'handshake', says: ["the response is the message with your request's id"] },
  'chunk-is-a-message': { stage: 'handshake', says: ['result-split-across-reads'], timeout: '3' },
  'version-not-checked': {
    stage: 'handshake',
    says: ['which your client does not support', 'the recording has no more client messages; your client sent notifications/initialized'],
  },
  'version-compared-by-date': {
    stage: 'handshake',
    says: ['"2000-01-01", which your client does not support', 'comparing dates lets it through', 'your client sent notifications/initialized'],
  },
  'version-must-match-exactly': {
    stage: 'handshake',
    says: [
      'initialize refused the protocol version the server offered in return, "2025-06-18"',
      'the session ended before your client sent notifications/initialized',
    ],
  },
  'close-does-nothing': { stage: 'handshake', says: ['"closed": false', "the transport's close() its wire"] },
  'error-taken-as-result': { stage: 'handshake', says: ['an error response must reject the request with McpError'] },
  'non-json-line-crashes': { stage: 'handshake', says: ['non-json-line-before-result', 'SyntaxError'] },
  // stage 3: tools
  'pagination-not-followed': { stage: 'tools', says: ['follow nextCursor', 'the session ended before your client sent tools/list (recorded id 101)'] },
  'is-error-thrown': { stage: 'tools', says: ['a tool that failed is still a result'] },
  'responses-matched-in-order': { stage: 'tools', says: ['match each response to its request by id'] },
  'server-requests-ignored': {
    stage: 'tools',
    says: ["your client sent an answer to the server's ping request", 'any other request with a -32601 error', 'request-not-handled'],
    timeout: '1',
  },
  'ids-reused': { stage: 'tools', says: ['with an id it already gave initialize in this session', 'a counter that only grows'] },
  'text-content-only': { stage: 'tools', says: ['lost its audio content', 'keep every content item of a result'] },
};

describe('the grader', () => {
  it('passes the reference solution on every stage, case and property', async () => {
    const run = await runCli(['test', ...SEED]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toMatch(/✗|!/);
    expect(run.stdout).toContain('all graded stages pass: config-and-framing, handshake, tools');
    expectGolden(normalise(run.stdout), join(REPO, 'test/golden/reference.txt'));
  });

  for (const stage of ['config-and-framing', 'handshake', 'tools']) {
    it(`fails the starter at ${stage}, with its "not implemented yet" message`, async () => {
      const run = await runCli(['test', '--stage', stage, ...SEED, '--submission', join(REPO, 'starter')]);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(/not implemented yet: \w+(\.\w+)? \(stage [a-z-]+\)/);
      expect(run.stdout).not.toContain('✓'); // a student starts at zero: nothing unwritten passes
      expectGolden(normalise(run.stdout), join(REPO, `test/golden/starter-${stage}.txt`));
    });
  }

  for (const [scenario, { stage, says, timeout }] of Object.entries(SCENARIOS)) {
    it(`fails ${scenario} at ${stage}, saying so`, async () => {
      const submission = scenarioSubmission(scenario);
      try {
        const run = await runCli(['test', '--stage', stage, ...SEED, '--submission', submission, ...(timeout ? ['--timeout', timeout] : [])]);
        expect(run.code).toBe(1);
        expect(run.stderr).toBe('');
        for (const phrase of says) expect(run.stdout).toContain(phrase);
        expectGolden(normalise(run.stdout), join(REPO, 'test/scenarios', scenario, 'grader-output.txt'));
      } finally {
        rmSync(submission, { recursive: true, force: true });
      }
    });
  }

  // Correct clients that chose otherwise where the protocol lets them (test/variants/<choice>/change.diff):
  // the cases ask for what MCP asks and nothing more, so each passes every stage.
  for (const variant of readdirSync(join(REPO, 'test/variants'))) {
    it(`passes ${variant}, a correct client that chose otherwise`, async () => {
      const submission = patchedSubmission(join(REPO, 'test/variants', variant, 'change.diff'));
      try {
        const run = await runCli(['test', '--stage', 'tools', '--runs', '10', ...SEED, '--submission', submission]);
        expect(run.stdout).not.toMatch(/✗|!/);
        expect(run.stdout).toMatch(/^all graded stages pass: tools, handshake, config-and-framing$/m);
        expect(run.code).toBe(0);
      } finally {
        rmSync(submission, { recursive: true, force: true });
      }
    });
  }

  it('has a test for every scenario folder', () => {
    expect(readdirSync(join(REPO, 'test/scenarios')).sort()).toEqual(Object.keys(SCENARIOS).sort());
  });
});
