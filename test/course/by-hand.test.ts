// A case run by hand (`./your_program.sh <command> <case>`, which starts `theinference replay` of its
// cassette) is served as the grader serves it: the reference prints the case's expected.json. The
// authorization's refusal cases above all, whose recording ends where the client must stop: the
// replay waits for the authorization's exchanges, not only for the MCP messages (one, refused 401).
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');

/** The program's stdout, run by hand: no player of the grader's in its environment. */
function byHand(command: string, caseDir: string): Promise<string> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('THEINFERENCE_')));
  return new Promise((resolve) => {
    execFile('sh', ['your_program.sh', command, caseDir], { cwd: REPO, env }, (_error, stdout) => resolve(stdout));
  });
}

describe('a case run by hand', () => {
  // the four refusal cases a student found failing by hand (a whole flow by hand: oauth.test.ts's replay --http)
  it.each(['state-forged', 'iss-missing', 'iss-mixed-up', 'pkce-unsupported'])('authorization %s: the reference prints its expected.json', async (name) => {
    const expected = readFileSync(join(REPO, 'fixtures', 'authorization', name, 'expected.json'), 'utf8');
    expect(await byHand('authorization', join('cases', 'authorization', name))).toBe(expected);
  });
});
