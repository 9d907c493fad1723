// Bad input around the cassette player: a client that writes garbage or never reads, a cassette
// that is malformed or missing. Each ends in a precise verdict or one clear line, never a grader
// crash or hang.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CourseError, loadCourse } from '../harness/course.ts';
import { gradeCase } from '../harness/grade/case.ts';
import { detailText } from '../harness/report/details.ts';
import { programEnv } from '../harness/run/env.ts';
import { launcher } from '../harness/run/launcher.ts';
import { courseCopy } from './helpers/cli.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** A course copy whose reference solution is changed by `edit`. */
function courseWith(edit: (source: string) => string): string {
  const dir = courseCopy();
  copies.push(dir);
  const path = join(dir, 'src/mcp.ts');
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error('the edit changed nothing');
  writeFileSync(path, after);
  return dir;
}

async function grade(dir: string, slug: string, name: string) {
  const stage = loadCourse(dir).stages.find((candidate) => candidate.slug === slug)!;
  const testCase = stage.cases.find((candidate) => candidate.name === name)!;
  return gradeCase(testCase, {
    runRoot: dir,
    content: COURSE_CONTENT,
    launcher: await launcher(dir, { bundle: true }),
    env: programEnv(),
    limits: { timeoutMs: 2000, outputCap: 1024 * 1024 },
  });
}

describe('the cassette player in grading', () => {
  it('a client that writes garbage on the wire: the player says so, and the case ends in bounded time', async () => {
    const dir = courseWith((source) =>
      source.replace('    this.wire.write(frame(msg));', "    this.wire.write('\\u0000\\u00ff garbage ' + frame(msg).slice(3));"),
    );
    const verdict = await grade(dir, 'handshake', 'everything-server');
    // the client waits for an answer to a request the player could not read: the session cannot go on,
    // the case ends once the client has done nothing for a while, and the deviation is its verdict
    expect(verdict.status).toBe('error');
    expect(verdict.message).toMatch(/^your client wrote a line that is not JSON: /);
    expect(verdict.details).toBe(
      'then your client did nothing for 2 s while the server waited for its next message, and was stopped: the session could not go on',
    );
    expect(detailText(verdict)).toContain('not-json: your client wrote a line that is not JSON');
  });

  // Bounded time is the test's timeout: room for a loaded machine, far below an unbounded player's.
  it('a client that floods the wire with 128k lines of garbage: a bounded verdict, in bounded time', { timeout: 60_000 }, async () => {
    const dir = courseWith((source) =>
      source.replace('    this.wire.write(frame(msg));', "    this.wire.write('\\u001b[31mgarbage\\n'.repeat(128_000) + frame(msg));"),
    );
    const verdict = await grade(dir, 'handshake', 'everything-server');
    const said = (detailText(verdict) ?? '').split('\n').filter((line) => line.includes('not-json:'));
    expect(said).toHaveLength(20);
    expect(said[0]).toBe('  not-json: your client wrote a line that is not JSON: \\x1b[31mgarbage');
    expect(detailText(verdict)!.length).toBeLessThan(20_000);
  });

  it('a client that never reads what the server sends: timeout, and the player says what it waited for', async () => {
    const dir = courseWith((source) =>
      source.replace('    this.messages = readLines(wire.chunks);', '    this.messages = (async function* () { await new Promise(() => {}); })();'),
    );
    const verdict = await grade(dir, 'handshake', 'everything-server');
    expect(verdict.status).toBe('timeout');
    expect(detailText(verdict)).toContain('unused: the session ended before your client sent notifications/initialized');
  });

  it('a malformed cassette: an infra verdict naming the file, the line and the field', async () => {
    const dir = courseCopy();
    copies.push(dir);
    const cassette = join(dir, 'fixtures/handshake/everything-server/cassette.yaml');
    writeFileSync(cassette, readFileSync(cassette, 'utf8').replace('version: 1', 'version: 3'));
    const verdict = await grade(dir, 'handshake', 'everything-server');
    expect(verdict.status).toBe('infra');
    expect(verdict.message).toMatch(/^the case's cassette is unusable: .*fixtures\/handshake\/everything-server\/cassette\.yaml:1: version/);
  });

  it('a case without its cassette stops the course from loading, naming the case', () => {
    const dir = courseCopy();
    copies.push(dir);
    rmSync(join(dir, 'fixtures/tools/pagination/cassette.yaml'));
    expect(() => loadCourse(dir)).toThrow(CourseError);
    expect(() => loadCourse(dir)).toThrow('case tools/pagination has no fixtures/tools/pagination/cassette.yaml');
  });
});
