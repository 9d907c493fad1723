// A new transport is one folder and one table entry: a toy one (test/architecture/toy-transport/,
// an in-memory pipe into the player) is given to the grader beside the real ones, and the reference
// solution's handshake cases are graded over it, their cassettes replayed through it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCourse, type Case } from '../../harness/course.ts';
import { gradeCase } from '../../harness/grade/case.ts';
import { launcher } from '../../harness/run/launcher.ts';
import { COURSE_CONTENT } from '../../harness/stages/index.ts';
import { PROTOCOLS } from '../../harness/protocols/index.ts';
import { REPO } from '../helpers/cli.ts';
import { memoryPipe, played } from './toy-transport/index.ts';

describe('a transport', () => {
  it('is one folder and one table entry: the handshake cases, played over a toy one, pass as over stdio', async () => {
    const handshake = loadCourse(REPO).stages.find((stage) => stage.slug === 'handshake')!;
    const start = await launcher(REPO, { bundle: true });
    const context = {
      runRoot: REPO,
      launcher: start,
      env: process.env,
      limits: { timeoutMs: 30_000, outputCap: 1024 * 1024 },
      content: COURSE_CONTENT,
      protocols: { ...PROTOCOLS, mcp: { ...PROTOCOLS.mcp!, transports: { ...PROTOCOLS.mcp!.transports, 'memory-pipe': memoryPipe } } },
    };
    // (a case whose .mcp.json has the program start the server is stdio's own: not this one's)
    const cases = handshake.cases.filter((testCase) => !existsSync(join(REPO, testCase.casePath, '.mcp.json'))).slice(0, 3);
    expect(cases.length).toBe(3);
    for (const testCase of cases) {
      const before = played.sessions;
      const verdict = await gradeCase(onTransport(testCase, 'memory-pipe'), context);
      expect({ name: verdict.name, status: verdict.status, message: verdict.message }).toEqual({
        name: testCase.name,
        status: 'pass',
        message: expect.any(String),
      });
      expect(played.sessions).toBe(before + 1);
      // the cassette was replayed through it: every message the recording has went over the pipe
      expect(verdict.sessions?.[0]?.exchange?.steps.some((step) => step.from === 'client' && step.method === 'initialize')).toBe(true);
    }
    // and a name no table has is the grader's to say, not a crash
    const unknown = await gradeCase(onTransport(cases[0]!, 'carrier-pigeon'), context);
    expect(unknown).toMatchObject({ status: 'infra', message: 'no transport named "carrier-pigeon" to play endpoint mcp on' });
  });
});

/** The case with its endpoint played over `transport`. */
function onTransport(testCase: Case, transport: string): Case {
  return { ...testCase, endpoints: testCase.endpoints.map((endpoint) => ({ ...endpoint, transport })) };
}
