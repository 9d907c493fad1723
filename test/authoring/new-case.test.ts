// From a real server to a graded case in one command (issue 51), into the course: `new-case` records a
// session from a real server from npm and makes a case of it, for a stdio stage (handshake: the
// everything server), Streamable HTTP (the everything server, started by record on a free port) and
// OAuth (the SDK's example server with its auth router, on free ports). The reference passes each case,
// a broken solution fails it for its mistake, and an export made afterwards carries the new cases. Bad
// input changes nothing on disk. (Into a hidden folder: new-case-hidden.test.ts.)
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from '../helpers/cli.ts';
import { followPath, PATHS, type Scratch, scratchCourse, tree } from './new-case-paths.ts';
import { writeFileSync } from 'node:fs';

let scratch: Scratch;
beforeAll(async () => {
  scratch = await scratchCourse();
}, 60_000);
afterAll(() => scratch?.done());

describe('new-case into the course', () => {
  it.each(PATHS)('makes a $stage case of a live server in one command; the reference passes it, $broken fails it', (path) =>
    followPath(scratch, path, `authored-${path.stage}`),
  );

  it('an export made afterwards carries the cases new-case made', async () => {
    const target = join(scratch.dir, 'student');
    const exported = await runCli(['export', target], { cwd: scratch.course });
    expect(exported.code, exported.stderr).toBe(0);
    const files = tree(target);
    for (const { stage } of PATHS) expect(files).toContain(join('cases', stage, `authored-${stage}`, 'case.md'));
  });
});

describe('bad input', () => {
  it('an unknown stage, a case that exists, a cassette lint refuses: one line naming what is wrong, exit 2, nothing changed', async () => {
    const { course } = scratch;
    const before = tree(course);
    const from = join(REPO, 'cassettes', 'everything-http-tools.yaml');
    const unknown = await runCli(['new-case', '--stage', 'no-such-stage', '--name', 'x', '--from', from], { cwd: course });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('theinference new-case: unknown stage "no-such-stage" (known: config-and-framing, handshake');
    const existing = await runCli(['new-case', '--stage', 'streamable-http', '--name', 'everything-server', '--from', from], { cwd: course });
    expect(existing.code).toBe(2);
    expect(existing.stderr).toContain('cases/streamable-http/everything-server exists: a case is never overwritten');
    const refused = join(scratch.dir, 'cut-short.yaml');
    writeFileSync(
      refused,
      'version: 1\ntransport: stdio\nprovenance: {command: [node, server.js], recorded: 2026-01-01}\nframes:\n  - client: {jsonrpc: "2.0", id: 0, method: initialize, params: {}}\n',
    );
    const linted = await runCli(['new-case', '--stage', 'handshake', '--name', 'cut-short', '--from', refused], { cwd: course });
    expect(linted.code).toBe(2);
    expect(linted.stderr).toContain(`${refused}: the session has no server message`);
    expect(linted.stderr).toContain('expected a cassette lint passes');
    expect(tree(course)).toEqual(before);
  });
});
