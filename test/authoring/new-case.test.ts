// From a real server to a graded case in one command (issue 51): `new-case` records a session from a
// real server from npm and makes a case of it, for a stdio stage (handshake: the everything server),
// Streamable HTTP (the everything server, started by record on a free port) and OAuth (the SDK's
// example server with its auth router, on free ports), into a scratch copy of the course and into a
// hidden-cases folder. The reference passes each case, a broken solution fails it for its mistake,
// and an export made afterwards holds none of the hidden cases. Each path's time is printed (no
// verdict rests on it). Bad input changes nothing on disk.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { startSdkOAuthServer } from '../../scripts/oauth-session.ts';
import { EVERYTHING_ENTRY } from '../../scripts/record-http-cassettes.ts';
import { REPO, runCli, scenarioSubmission, trimCourse } from '../helpers/cli.ts';

const scratch = mkdtempSync(join(tmpdir(), 'new-case-'));
/** The course as an author has it (what export needs too), its stages cut to a case of each command. */
const course = join(scratch, 'course');
for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'tsconfig.json', 'package.json', 'docs', 'src', 'starter', 'cases', 'fixtures']) {
  cpSync(join(REPO, part), join(course, part), { recursive: true });
}
symlinkSync(join(REPO, 'node_modules'), join(course, 'node_modules'), 'dir');
trimCourse(course);
const hidden = join(scratch, 'hidden');
let oauth: Awaited<ReturnType<typeof startSdkOAuthServer>> | undefined;
const timings: string[] = [];

beforeAll(async () => {
  oauth = await startSdkOAuthServer();
}, 60_000);
afterAll(async () => {
  await oauth?.stop();
  rmSync(scratch, { recursive: true, force: true });
  // the closing note's figures
  console.log(`new-case, each path (recording and blessing, then the two gradings):\n${timings.join('\n')}`);
});

/** A session script in the scratch folder. */
function script(name: string, steps: string[]): string {
  const file = join(scratch, `${name}.yaml`);
  writeFileSync(file, ['steps:', ...steps.map((step) => `  - ${step}`), ''].join('\n'));
  return file;
}

const ECHO = { name: 'echo', arguments: { message: 'hello from new-case' } };

/** Each stage's path: where its session comes from, and a broken solution it catches, with what the grader says of it. */
const PATHS = [
  {
    stage: 'handshake',
    source: () => ['--script', script('ping', ['ping']), '--', 'node', EVERYTHING_ENTRY, 'stdio'],
    inputs: ['case.md'],
    broken: 'initialized-missing',
    says: 'the session ended before your client sent notifications/initialized',
  },
  {
    stage: 'streamable-http',
    source: () => [
      '--http',
      'http://127.0.0.1:0/mcp',
      '--script',
      script('echo', ['tools/list', `tools/call: ${JSON.stringify(ECHO)}`]),
      '--',
      'node',
      EVERYTHING_ENTRY,
      'streamableHttp',
    ],
    inputs: ['calls.json', 'case.md'],
    broken: 'session-id-not-sent',
    says: 'without the Mcp-Session-Id header',
  },
  {
    stage: 'authorization',
    source: () => ['--http', oauth!.url, '--script', script('oauth', ['tools/list', `tools/call: ${JSON.stringify(ECHO)}`])],
    inputs: ['calls.json', 'case.md'],
    broken: 'pkce-plain',
    says: 'code_challenge_method "plain"',
  },
];

/** Every path under `dir` (files and folders), for a before-and-after: but node_modules, the repo's,
 *  where the tests running beside this one write their caches. */
function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path !== 'node_modules' && !path.startsWith('node_modules/'))
    .sort();
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

describe.each([
  { into: 'the course', name: 'authored', hiddenDir: undefined },
  { into: 'a hidden folder', name: 'kept-back', hiddenDir: hidden },
])('new-case into $into', ({ name, hiddenDir }) => {
  it.each(PATHS)('makes a $stage case of a live server in one command; the reference passes it, $broken fails it', async (path) => {
    const caseName = `${name}-${path.stage}`;
    const root = hiddenDir ?? course;
    const into = hiddenDir === undefined ? [] : ['--into', hiddenDir];
    const courseBefore = tree(course);
    const started = performance.now();
    const made = await runCli(['new-case', '--stage', path.stage, '--name', caseName, ...into, ...path.source()], { cwd: course });
    const making = seconds(started);
    expect(made.stderr).not.toContain('nothing written');
    expect(made.code, made.stderr).toBe(0);
    expect(made.stdout).toContain(`new-case: wrote ${hiddenDir === undefined ? '' : '../hidden/'}cases/${path.stage}/${caseName}/`);
    // the case's inputs, its cassette (the client's own choices free) and the reference's output
    expect(readdirSync(join(root, 'cases', path.stage, caseName)).sort()).toEqual(path.inputs);
    expect(readdirSync(join(root, 'fixtures', path.stage, caseName)).sort()).toEqual(['cassette.yaml', 'expected.json']);
    const cassette = loadCassette(join(root, 'fixtures', path.stage, caseName, 'cassette.yaml'), { diskCache: false });
    expect(cassette.free).toEqual(expect.arrayContaining(['params.clientInfo', 'params.capabilities']));
    expect(readFileSync(join(root, 'cases', path.stage, caseName, 'case.md'), 'utf8')).toContain('Made by `theinference new-case`');
    if (path.inputs.includes('calls.json')) expect(JSON.parse(readFileSync(join(root, 'cases', path.stage, caseName, 'calls.json'), 'utf8'))).toEqual([ECHO]);
    if (path.stage === 'authorization') {
      // the flow was recorded, by roles: the scripted client authorized where the server asked
      expect(cassette.frames.some((frame) => frame.from === 'auth')).toBe(true);
      expect(made.stderr).toMatch(/redacted \d+ values: access-token \(/);
    }
    // a hidden case leaves the course as it was
    if (hiddenDir !== undefined) expect(tree(course)).toEqual(courseBefore);

    const grading = performance.now();
    // a course case alone (--case); a hidden one with its stage (--case does not go with --cases)
    // few property runs: what is under test is the case, not the properties the stages before it hold
    const which = hiddenDir === undefined ? ['--case', caseName] : ['--cases', hiddenDir];
    const grade = (more: string[]) => runCli(['test', '--stage', path.stage, '--seed', '7', '--runs', '20', ...which, ...more], { cwd: course });
    const passed = await grade([]);
    expect(passed.code, passed.stdout + passed.stderr).toBe(0);
    expect(passed.stdout).toMatch(new RegExp(`✓ (hidden-${path.stage}/)?${caseName}\\b`));
    const failed = await grade(['--submission', scenarioSubmission(path.broken)]);
    expect(failed.code, failed.stdout + failed.stderr).toBe(1);
    expect(failed.stdout).toMatch(new RegExp(`✗ (hidden-${path.stage}/)?${caseName}\\b`));
    // a course case names the mistake; a hidden one says only its verdict and hint, in general words
    if (hiddenDir === undefined) expect(failed.stdout).toContain(path.says);
    timings.push(`  ${path.stage} into ${hiddenDir === undefined ? 'the course' : 'a hidden folder'}: new-case ${making}, grading ${seconds(grading)}`);
  });
});

describe('after the hidden cases were made', () => {
  it('an export holds the course cases new-case made and none of the hidden ones', async () => {
    const target = join(scratch, 'student');
    const exported = await runCli(['export', target], { cwd: course });
    expect(exported.code, exported.stderr).toBe(0);
    const files = tree(target);
    // the course's new cases are there (the check below would see a hidden one)
    for (const { stage } of PATHS) expect(files).toContain(join('cases', stage, `authored-${stage}`, 'case.md'));
    expect(files.filter((file) => file.includes('kept-back') || file.includes('hidden-'))).toEqual([]);
    const contents = files.filter((file) => statSync(join(target, file)).isFile()).map((file) => readFileSync(join(target, file), 'utf8'));
    expect(contents.filter((content) => content.includes('kept-back'))).toEqual([]);
  });
});

describe('bad input', () => {
  it('an unknown stage, a case that exists, a cassette lint refuses: one line naming what is wrong, exit 2, nothing changed', async () => {
    const before = tree(course);
    const from = join(REPO, 'cassettes', 'everything-http-tools.yaml');
    const unknown = await runCli(['new-case', '--stage', 'no-such-stage', '--name', 'x', '--from', from], { cwd: course });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('theinference new-case: unknown stage "no-such-stage" (known: config-and-framing, handshake');
    const existing = await runCli(['new-case', '--stage', 'streamable-http', '--name', 'everything-server', '--from', from], { cwd: course });
    expect(existing.code).toBe(2);
    expect(existing.stderr).toContain('cases/streamable-http/everything-server exists: a case is never overwritten');
    const refused = join(scratch, 'cut-short.yaml');
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
