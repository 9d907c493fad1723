// What the two new-case tests share (new-case.test.ts into the course, new-case-hidden.test.ts into a
// hidden folder, apart so that they run side by side): a scratch course as an author has it, the real
// servers each stage's session comes from, and one path followed from a server to a graded case.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { expect } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { startSdkOAuthServer } from '../../scripts/oauth-session.ts';
import { EVERYTHING_ENTRY } from '../../scripts/record-http-cassettes.ts';
import { REPO, runCli, scenarioSubmission, trimCourse } from '../helpers/cli.ts';

export interface Scratch {
  dir: string;
  /** The course as an author has it (what export needs too), its stages cut to a case of each command. */
  course: string;
  /** The SDK's example server behind its auth router, on free ports. */
  oauth: Awaited<ReturnType<typeof startSdkOAuthServer>>;
  /** Each path's time, printed by `done` (no verdict rests on it). */
  timings: string[];
  done(): Promise<void>;
}

export async function scratchCourse(): Promise<Scratch> {
  const dir = mkdtempSync(join(tmpdir(), 'new-case-'));
  const course = join(dir, 'course');
  for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'tsconfig.json', 'package.json', 'docs', 'src', 'starter', 'cases', 'fixtures']) {
    cpSync(join(REPO, part), join(course, part), { recursive: true });
  }
  symlinkSync(join(REPO, 'node_modules'), join(course, 'node_modules'), 'dir');
  trimCourse(course);
  const oauth = await startSdkOAuthServer();
  const timings: string[] = [];
  return {
    dir,
    course,
    oauth,
    timings,
    async done() {
      await oauth.stop();
      rmSync(dir, { recursive: true, force: true });
      // the closing note's figures
      console.log(`new-case, each path (recording and blessing, then the two gradings):\n${timings.join('\n')}`);
    },
  };
}

const ECHO = { name: 'echo', arguments: { message: 'hello from new-case' } };

/** A session script in the scratch folder. */
function script(scratch: Scratch, name: string, steps: string[]): string {
  const file = join(scratch.dir, `${name}.yaml`);
  writeFileSync(file, ['steps:', ...steps.map((step) => `  - ${step}`), ''].join('\n'));
  return file;
}

/** Each stage's path: where its session comes from, and a broken solution it catches, with what the grader says of it. */
export const PATHS = [
  {
    stage: 'handshake',
    source: (scratch: Scratch) => ['--script', script(scratch, 'ping', ['ping']), '--', 'node', EVERYTHING_ENTRY, 'stdio'],
    inputs: ['case.md'],
    broken: 'initialized-missing',
    says: 'the session ended before your client sent notifications/initialized',
  },
  {
    stage: 'streamable-http',
    source: (scratch: Scratch) => [
      '--http',
      'http://127.0.0.1:0/mcp',
      '--script',
      script(scratch, 'echo', ['tools/list', `tools/call: ${JSON.stringify(ECHO)}`]),
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
    source: (scratch: Scratch) => ['--http', scratch.oauth.url, '--script', script(scratch, 'oauth', ['tools/list', `tools/call: ${JSON.stringify(ECHO)}`])],
    inputs: ['calls.json', 'case.md'],
    broken: 'pkce-plain',
    says: 'code_challenge_method "plain"',
  },
];

/** Every path under `dir` (files and folders), for a before-and-after: but node_modules, the repo's,
 *  where the tests running beside this one write their caches. */
export function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path !== 'node_modules' && !path.startsWith('node_modules/'))
    .sort();
}

const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

/** One path from a live server to a graded case: new-case into the course (`hiddenDir` unset) or into a
 *  hidden folder; the case's files; then the reference graded on it (pass) and the broken solution (fail). */
export async function followPath(scratch: Scratch, path: (typeof PATHS)[number], caseName: string, hiddenDir?: string): Promise<void> {
  const { course } = scratch;
  const root = hiddenDir ?? course;
  const into = hiddenDir === undefined ? [] : ['--into', hiddenDir];
  const courseBefore = tree(course);
  const started = performance.now();
  const made = await runCli(['new-case', '--stage', path.stage, '--name', caseName, ...into, ...path.source(scratch)], { cwd: course });
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
  // a course case alone (--case); a hidden one with its stage (--case does not go with --cases), and no
  // generated cases; few property runs: what is under test is the case, not what the stages before it hold
  const which = hiddenDir === undefined ? ['--case', caseName] : ['--cases', hiddenDir, '--random', '0'];
  const grade = (more: string[]) => runCli(['test', '--stage', path.stage, '--seed', '7', '--runs', '20', ...which, ...more], { cwd: course });
  const passed = await grade([]);
  expect(passed.code, passed.stdout + passed.stderr).toBe(0);
  expect(passed.stdout).toMatch(new RegExp(`✓ (hidden-${path.stage}/)?${caseName}\\b`));
  const failed = await grade(['--submission', scenarioSubmission(path.broken)]);
  expect(failed.code, failed.stdout + failed.stderr).toBe(1);
  expect(failed.stdout).toMatch(new RegExp(`✗ (hidden-${path.stage}/)?${caseName}\\b`));
  // a course case names the mistake; a hidden one says only its verdict and hint, in general words
  if (hiddenDir === undefined) expect(failed.stdout).toContain(path.says);
  scratch.timings.push(`  ${path.stage} into ${hiddenDir === undefined ? 'the course' : 'a hidden folder'}: new-case ${making}, grading ${seconds(grading)}`);
}
