// Hostile submissions, graded as CI grades them (sandbox required, the default under --submission).
// Each is the starter with one import added: `test/attacks/<name>/src/attack.ts`, run when the
// module loads, in every case program and in the property oracle. For each: the verdict is the
// honest one (the starter's: nothing passes), nothing the submission started is alive afterwards,
// the report file is the one the grader wrote, and the grader exits as documented.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import type { ResultsReport } from '../../harness/report/model.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';
import { checks, cleanUp, folder, leftBehind, leftInTmp, QUICK, runCi, stillRunning, submission } from '../ci/helpers.ts';

afterAll(cleanUp);

const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');
const BIN = join(REPO, 'bin/theinference.js');
/** A third of stage 1, few property runs, no generated cases: what the attacks need is the processes,
 *  and the attack runs alike in each. The third is the one its property suite falls in (the unit after
 *  its cases: shards take every third unit). */
const SUITE_SHARD = (loadCourse(REPO).stages[0]!.cases.length % 3) + 1;
const STAGE_1 = ['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '5', '--random', '0', '--shard', `${SUITE_SHARD}/3`];

/** The starter, importing the attack first. */
function attack(name: string): string {
  const dir = folder({ 'src/mcp.ts': `import './attack.ts';\n${STARTER}` });
  cpSync(join(REPO, 'test/attacks', name, 'src'), join(dir, 'src'), { recursive: true });
  return dir;
}

/** Processes anywhere on the machine whose command line carries `marker`. */
function running(marker: string): Promise<number[]> {
  return stillRunning((pid) => readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker));
}

/** A folder of hidden cases (--cases) holding one: a public mcp-frame case under the name "secret". */
function hiddenFrameCase(): string {
  return folder({
    'cases/config-and-framing/mcp-frame/secret/messages.json': readFileSync(join(REPO, 'cases/config-and-framing/mcp-frame/numbers/messages.json'), 'utf8'),
    'fixtures/config-and-framing/mcp-frame/secret/expected.json': readFileSync(
      join(REPO, 'fixtures/config-and-framing/mcp-frame/numbers/expected.json'),
      'utf8',
    ),
  });
}

/** The starter passes nothing (its recorded grader output says so, and grader.test.ts checks it):
 *  an attack that passes anything has forged it. */
function expectHonest(report: ResultsReport | undefined): void {
  const all = checks(report);
  expect(all.length).toBeGreaterThan(10);
  expect(readFileSync(join(REPO, 'test/golden/starter-config-and-framing.txt'), 'utf8')).not.toContain('✓');
  expect(all.filter((check) => check.status === 'pass').map((check) => check.name)).toEqual([]);
  expect(report).toMatchObject({ status: 'fail', exitCode: 1, sandbox: 'bwrap' });
}

describe('attacks on the verdict', () => {
  it('forge-properties: "passed" lines written on fd 3..9 decide nothing', async () => {
    const run = await runCi([...STAGE_1, '--submission', attack('forge-properties')]);
    expect(run.code).toBe(1);
    expectHonest(run.report);
    const properties = checks(run.report).filter((check) => check.origin === 'property');
    expect(properties).toHaveLength(4);
    for (const property of properties) expect(property.status).not.toBe('pass');
    expect(await leftBehind(run.tmp)).toEqual([]);
  });

  it('stray-outlives-grader: a double-forked, setsid, env-less process ends with its case and never reaches the report', async () => {
    const run = await runCi([...STAGE_1, '--submission', attack('stray-outlives-grader')]);
    expect(run.code).toBe(1);
    expectHonest(run.report);
    expect(await running('theinference-attack-stray')).toEqual([]);
    // a stray would rewrite the report every 100 ms: give it the time to, had it survived
    await new Promise((resolve) => setTimeout(resolve, 500));
    const reportPath = join(run.tmp, '..', 'results.json');
    expect(JSON.parse(readFileSync(reportPath, 'utf8'))).toEqual(run.report);
    expect(leftInTmp(run.tmp)).toEqual([]);
  });

  it("rewrites-the-bundles: what the grader runs next (the program bundle, the oracle's module, the programs started ahead, the case server) is read-only to it", async () => {
    const run = await runCi([...STAGE_1, '--submission', attack('rewrites-the-bundles')]);
    expect(run.code).toBe(1);
    expectHonest(run.report);
    const properties = checks(run.report).filter((check) => check.origin === 'property');
    expect(properties).toHaveLength(4);
    for (const property of properties) expect(property.status).not.toBe('pass');
    const said = checks(run.report)
      .map((check) => check.stderr?.text ?? '')
      .join('\n');
    expect(said).toContain('could not rewrite program-');
    expect(said).toContain('could not rewrite case-server/theinference-case-server');
    expect(said).not.toMatch(/^rewrote /m);
  });

  it("cache-poison: the parse cache is out of the program's reach, and the grader does not trust it anyway", async () => {
    const cache = join(REPO, 'node_modules/.cache/theinference/cassettes');
    const before = snapshot(cache);
    const run = await runCi([
      'test',
      '--stage',
      'handshake',
      '--runs',
      '20',
      '--seed',
      '5',
      '--random',
      '0',
      '--submission',
      attack('cache-poison'),
      '--verbose',
    ]);
    expect(run.code).toBe(1);
    const handshake = checks(run.report).filter((check) => check.id.startsWith('handshake/'));
    expect(handshake.length).toBeGreaterThan(5);
    for (const check of handshake) expect(check.status).not.toBe('pass');
    expect(run.stdout).not.toContain('poisoned');
    // other tests may add entries meanwhile (replay writes the cache); none that was there changed
    const after = snapshot(cache);
    for (const [entry, bytes] of Object.entries(before)) expect(after[entry], entry).toBe(bytes);
  });

  it('reads-secrets: no fixtures, no generated or hidden expected outputs, no cached cassettes, no grader command line or environment', async () => {
    const hidden = hiddenFrameCase();
    // replay's parse cache holds cassettes whole: make sure it has one to find
    const cache = join(REPO, 'node_modules/.cache/theinference/cassettes');
    mkdirSync(cache, { recursive: true });
    writeFileSync(join(cache, 'attack-probe.json'), '{"frames":[]}');
    const token = 'tok-attack-7c1d2e';
    // a case of each command is enough to try every kind of case: no player, a stdio player, an HTTP player
    const course = courseCopy();
    onTestFinished(() => rmSync(course, { recursive: true, force: true }));
    trimCourse(course);
    const run = await runCi(
      ['test', '--all', '--runs', '20', '--seed', '5', '--random', '1', '--submission', attack('reads-secrets'), '--cases', hidden, '--verbose'],
      { cwd: course, env: { GRADER_TOKEN: token } },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('found:');
    expect(run.stdout).not.toContain(token);
    expect(readFileSync(join(run.tmp, '..', 'results.json'), 'utf8')).not.toContain(token);
    // public, generated and hidden: none found its expected output
    const frameCases = checks(run.report).filter((check) => check.name.startsWith('mcp-frame/') || check.name.includes('mcp-frame/'));
    expect(frameCases.length).toBe(3);
    for (const check of frameCases) expect(check.status).toBe('fail');
  });

  it('tells-cases-apart: nothing a program sees (its argument, the folders around it, the mount table) says public, generated or hidden', async () => {
    const hidden = hiddenFrameCase();
    const teacher = join(folder({}), 'teacher');
    const run = await runCi([
      'test',
      '--stage',
      'config-and-framing',
      '--runs',
      '20',
      '--seed',
      '5',
      '--random',
      '1',
      '--submission',
      attack('tells-cases-apart'),
      '--cases',
      hidden,
      '--teacher-report',
      teacher,
    ]);
    expectHonest(run.report);
    // what each program saw is in the teacher's report: the student's is sealed (hidden cases were given)
    const whole = JSON.parse(readFileSync(join(teacher, 'results.json'), 'utf8')) as ResultsReport;
    const frameCases = checks(whole).filter((check) => check.name.includes('mcp-frame/'));
    expect(new Set(frameCases.map((check) => check.origin))).toEqual(new Set(['public', 'generated', 'hidden']));
    for (const check of frameCases) {
      // it saw nothing telling, or it would have ended with nothing printed (a fail), not in the starter's crash
      expect(check.status, check.name).toBe('crash');
      const seen = check.stderr?.text ?? '';
      // it looked, and found its own input...
      expect(seen, check.name).toContain('sees: {"caseDir":"case","caseFiles":["case/messages.json"]');
      // ...and nothing that names its kind, nor any other case's folder
      // (a generated case is random-<command>/<n>; /dev/random and /dev/urandom are the sandbox's own devices)
      expect(seen, check.name).not.toMatch(/hidden|random-|secret|numbers/);
    }
  });
});

/** Every check of a run refused at the bundle: failed, each naming the import and where it is. */
function expectRefused(run: { code: number | null; report?: ResultsReport }, words: string): void {
  expect(run.code).toBe(1);
  expectHonest(run.report);
  for (const check of checks(run.report)) {
    expect(check.status).toBe('fail');
    expect(check.message).toContain(words);
  }
}

/** The reference's exports by name: what a submission that brings none of its own re-exports. */
const REFERENCE_EXPORTS = [...readFileSync(join(REPO, 'src/mcp.ts'), 'utf8').matchAll(/^export (?:async )?(?:function\*? ?|class |const )(\w+)/gm)].map(
  (match) => match[1]!,
);
/** Enough `../` to reach / from any scratch copy's src/. */
const UP = '../'.repeat(24);
/** A student's template literal, written as text: `${n}` in it is theirs, not this file's. */
const N = '$' + '{n}';

describe('attacks through the bundler (it runs in a sandbox of its own, which shows it only src/)', () => {
  // A submission with no client code: src/mcp.ts asks the bundler for the course's reference by a path it
  // computes, which esbuild would expand itself by walking folders (issue 45: it passed every stage).
  for (const [what, line] of [
    ['through /proc/self/cwd, by a template literal', `await import(\`${UP}proc/self/cwd/src/${N}.ts\`)`],
    ["by the course folder's own path, through ..", `await import(\`${UP}${REPO.slice(1)}/src/${N}.ts\`)`],
    ['by a string built from parts, through require', `require('${UP}${REPO.slice(1)}/src/' + n + '.ts')`],
  ] as const) {
    it(`globs-the-reference: ${what}, is refused, and passes nothing`, async () => {
      const dir = folder({
        'src/mcp.ts': `const n = String.fromCharCode(109, 99, 112);\nconst ref: any = ${line};\nexport const { ${REFERENCE_EXPORTS.join(', ')} } = ref;\n`,
      });
      expectRefused(await runCi([...STAGE_1, '--submission', dir]), 'a computed import');
    });
  }

  it("globs-the-hidden-answers: a template literal over the hidden cases' folder is refused, and none of their bytes reach a report", async () => {
    const hidden = hiddenFrameCase();
    const answer = readFileSync(join(hidden, 'fixtures/config-and-framing/mcp-frame/secret/expected.json'), 'utf8');
    const dir = folder({
      'src/mcp.ts': `const n = 'secret';\nconst answers: any = await import(\`${UP}${hidden.slice(1)}/fixtures/config-and-framing/mcp-frame/${N}/expected.json\`, { with: { type: 'text' } });\nconsole.error(answers.default);\n${STARTER}`,
    });
    const run = await runCi([...STAGE_1, '--submission', dir, '--cases', hidden, '--verbose']);
    expectRefused(run, 'a computed import');
    const firstLine = answer.split('\n').find((line) => line.length > 20)!;
    expect(run.stdout + run.stderr).not.toContain(firstLine);
    expect(readFileSync(join(run.tmp, '..', 'results.json'), 'utf8')).not.toContain(firstLine);
  });

  it("globs-proc-self: a template literal over the bundler's /proc/self (its binary, its environment) is refused", async () => {
    const token = 'tok-bundler-glob-91c2';
    const dir = folder({
      'src/mcp.ts': `const n = 'exe';\nconst self: any = await import(\`${UP}proc/self/${N}\`, { with: { type: 'text' } });\nconsole.error(self.default.length);\n${STARTER}`,
    });
    const run = await runCi([...STAGE_1, '--submission', dir, '--verbose'], { env: { GRADER_TOKEN: token } });
    expectRefused(run, 'a computed import');
    expect(readFileSync(join(run.tmp, '..', 'results.json'), 'utf8')).not.toContain(token);
  });

  it("imports-the-sdk: the official SDK is refused at the bundle with the course's rule, and is not there to load at run time", async () => {
    const named = folder({ 'src/mcp.ts': `import { Client } from '@modelcontextprotocol/sdk/client/index.js';\nconsole.error(typeof Client);\n${STARTER}` });
    expectRefused(
      await runCi([...STAGE_1, '--submission', named]),
      'src/mcp.ts:1:24: imports "@modelcontextprotocol/sdk/client/index.js", a package the course does not allow',
    );
    // a computed import the bundler cannot see (code made at run time): the program's sandbox has no SDK
    const hiddenFromTheBundler = submission(`const load = new Function('s', 'return import(s)');
try {
  await load('@modelcontextprotocol/sdk/client/index.js');
  console.error('the SDK loaded');
} catch (error) {
  console.error('no SDK: ' + (error as NodeJS.ErrnoException).code);
}`);
    const run = await runCi([...STAGE_1, '--submission', hiddenFromTheBundler, '--verbose']);
    const said = checks(run.report)
      .map((check) => check.stderr?.text ?? '')
      .join('\n');
    expect(said).toContain('no SDK: ERR_MODULE_NOT_FOUND');
    expect(said).not.toContain('the SDK loaded');
  });

  // Each is the whole of src/mcp.ts: a re-export of what the grader would read for it, were its imports followed.
  for (const [what, line, words] of [
    [
      "the course's reference solution, through the grader's /proc/self",
      "export * from '/proc/self/cwd/src/mcp.ts';",
      'src/mcp.ts:1:15: imports "/proc/self/cwd/src/mcp.ts", an absolute path',
    ],
    ['the same by a relative path out of src/', "export * from '../../../../proc/self/cwd/src/mcp.ts';", 'which is outside src/'],
    ['the same as a file: URL', "export * from 'file:///proc/self/cwd/src/mcp.ts';", 'not a relative path or a package name'],
    ["the course's own driver", "import '/proc/self/cwd/program.ts';\nexport * from './starter.ts';", 'src/mcp.ts:1:8: imports "/proc/self/cwd/program.ts"'],
  ] as const) {
    it(`bundles-the-reference: ${what} is refused, naming the import`, async () => {
      const dir = folder({ 'src/mcp.ts': `${line}\n`, 'src/starter.ts': STARTER });
      expectRefused(await runCi([...STAGE_1, '--submission', dir]), words);
    });
  }

  it("reads-the-environment: a text import of the grader's environment is refused, and its token is nowhere", async () => {
    const token = 'tok-bundler-5e0f3a';
    const dir = folder({
      'src/mcp.ts': `import here from '/proc/self/environ' with { type: 'text' };\nimport up from '../../../../proc/self/environ' with { type: 'text' };\nconsole.error(here, up);\n${STARTER}`,
    });
    const run = await runCi([...STAGE_1, '--submission', dir, '--verbose'], { env: { GRADER_TOKEN: token } });
    expectRefused(run, '/proc/self/environ');
    expect(run.stdout + run.stderr).not.toContain(token);
    expect(readFileSync(join(run.tmp, '..', 'results.json'), 'utf8')).not.toContain(token);
  });

  it('reads-a-device: a text import of /dev/zero or /dev/urandom is refused at once, not read without end', async () => {
    const dir = folder({
      'src/mcp.ts': `import zero from '/dev/zero' with { type: 'text' };\nimport noise from '../../../../dev/urandom' with { type: 'text' };\nconsole.error(zero.length, noise.length);\n${STARTER}`,
    });
    expectRefused(await runCi([...STAGE_1, '--submission', dir]), '/dev/zero');
  });

  it('reads-a-fifo: a FIFO under src/ is left out of the copy (it would stop it) and said so; in a course folder, the bundler refuses it', async () => {
    const dir = folder({ 'src/mcp.ts': `import waits from './pipe' with { type: 'text' };\nconsole.error(waits);\n${STARTER}` });
    expect(spawnSync('mkfifo', [join(dir, 'src', 'pipe')]).status).toBe(0);
    const run = await runCi([...STAGE_1, '--submission', dir]);
    expect(run.code).toBe(1);
    expectHonest(run.report);
    expect(run.report?.submission.filesIgnored).toEqual([{ path: 'src/pipe', why: 'not a regular file' }]);
    expect(run.stdout).toContain('files under src/ not copied: src/pipe (not a regular file)');
    // a student grading in the course folder itself: no copy, the bundler meets the FIFO
    const course = courseCopy();
    onTestFinished(() => rmSync(course, { recursive: true, force: true }));
    cpSync(join(dir, 'src', 'mcp.ts'), join(course, 'src', 'mcp.ts'));
    expect(spawnSync('mkfifo', [join(course, 'src', 'pipe')]).status).toBe(0);
    const local = await runCi(['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '5'], { cwd: course, report: false });
    expect(local.code).toBe(1);
    expect(local.stdout).toMatch(/^ {2}0 passed, [1-9]\d* not run/m);
    expect(local.stdout).toContain('✗ src/mcp.ts:1:19: imports "./pipe", a device, a FIFO or a socket, not a file: only files are bundled\n');
  });
});

describe('attacks on the machine', () => {
  it("reaches-the-loopback: by default no program reaches a service on the machine's 127.0.0.1, an HTTP case's player still does", async () => {
    const heard: string[] = [];
    const listener = createServer((socket) => {
      heard.push('connection');
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => listener.close(() => resolve())));
    const port = (listener.address() as { port: number }).port;
    // every program (each case's, the property oracle) knocks first, then goes on as the reference does
    const dir = submission(`import * as knock from 'node:net';
await new Promise<void>((resolve) => {
  const socket = knock.createConnection(${port}, '127.0.0.1');
  socket.on('connect', () => (console.error('reached the grader machine'), socket.destroy(), resolve())).on('error', () => resolve());
});`);
    const course = courseCopy();
    onTestFinished(() => rmSync(course, { recursive: true, force: true }));
    trimCourse(course);
    const http = ['test', '--stage', 'streamable-http', '--runs', '20', '--seed', '5', '--random', '0', '--submission', dir, '--verbose'];
    const off = await runCi(http, { cwd: course });
    expect(off.stdout).not.toContain('reached the grader machine');
    expect(heard).toEqual([]);
    expect(off.report).toMatchObject({ status: 'pass', limits: { network: 'off' }, sandbox: 'bwrap' });
    expect(checks(off.report).filter((check) => check.id.startsWith('streamable-http/')).length).toBeGreaterThan(0);
    // the same programs with --network reach it: the knock is real
    const on = await runCi([...QUICK, '--random', '0', '--submission', dir, '--network', '--verbose'], { cwd: course });
    expect(on.stdout).toContain('reached the grader machine');
    expect(heard.length).toBeGreaterThan(0);
  });
});

describe('attacks on the grader', () => {
  it('floods-the-wire: 130,000 lines on fd 3 and on stderr make one bounded verdict per case', async () => {
    const run = await runCi(['test', '--stage', 'handshake', '--runs', '20', '--seed', '5', '--random', '0', '--submission', attack('floods-the-wire')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(1);
    expect(run.stdout.length).toBeLessThan(512 * 1024);
    const handshake = checks(run.report).filter((check) => check.id.startsWith('handshake/'));
    expect(handshake.length).toBeGreaterThan(5);
    for (const check of handshake) expect(check.status).not.toBe('pass');
    expect(statSync(join(run.tmp, '..', 'results.json')).size).toBeLessThan(2 * 1024 * 1024);
  });

  it('stops-the-grader: SIGSTOP to its parent and to every process it sees freezes nothing outside its sandbox', async () => {
    const run = await runCi([...STAGE_1, '--timeout', '2', '--submission', attack('stops-the-grader')]);
    expect(run.code).toBe(1);
    expectHonest(run.report);
    expect(await leftBehind(run.tmp)).toEqual([]);
  });

  it('escapes-the-log: file names the submission chose (outside src/, links and a FIFO in src/, an import) reach the terminal escaped', async () => {
    const dir = folder({ 'notes\x1b[2J.txt': 'x', 'src/mcp.ts': `export * from '/\x1b]0;owned\x07';\n` });
    symlinkSync('/etc/hostname', join(dir, 'src', 'link\x1b[31m'));
    expect(spawnSync('mkfifo', [join(dir, 'src', 'pipe\x1b[1m')]).status).toBe(0);
    const run = await runCi([...STAGE_1, '--submission', dir]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('notes\\x1b[2J.txt (added)');
    expect(run.stdout).toContain('link\\x1b[31m');
    expect(run.stdout).toContain('pipe\\x1b[1m (not a regular file)');
    expect(run.stdout).toContain('imports "/\\x1b]0;owned\\x07"');
    expect(run.stdout + run.stderr).not.toContain('\x1b');
  });

  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`slow-for-interrupt: ${signal} stops every case, removes the scratch folders, writes an interrupted report, exits ${code}`, async () => {
      const tmp = folder({});
      const report = join(tmp, 'results.json');
      const child = spawn(process.execPath, [BIN, ...STAGE_1, '--submission', attack('slow-for-interrupt'), '--report', report], {
        cwd: REPO,
        env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exit = new Promise<number | null>((resolve) => child.on('exit', (status) => resolve(status)));
      let exited = false;
      void exit.then(() => (exited = true));
      // wait until the cases are running: the first has started once the stage's heading is printed
      while (!output.includes('config-and-framing') && !exited) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(exited ? output : 'still grading').toBe('still grading');
      child.kill(signal);
      expect(await exit).toBe(code);
      const written = JSON.parse(readFileSync(report, 'utf8')) as ResultsReport;
      expect(written).toMatchObject({ status: 'interrupted', exitCode: code });
      expect(await running('theinference-attack-slow')).toEqual([]);
      expect(await leftBehind(tmp)).toEqual([]);
      expect(leftInTmp(tmp)).toEqual([]);
    });
  }
});

/** Every file of a folder with its bytes (none: an empty map). */
function snapshot(dir: string): Record<string, string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return {};
  }
  return Object.fromEntries(entries.map((entry) => [entry, readFileSync(join(dir, entry), 'latin1')]));
}
