// Submissions that misbehave, graded as CI grades them: each ends in the right verdict, the
// run ends, and nothing it started is left running nor anything left in its TMPDIR.
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import { MEMORY_COUNTED_AS, memoryCounted } from '../../harness/run/cgroup.ts';
import { afterProgress } from '../../harness/run/progress.ts';
import { runProcess } from '../../harness/run/spawn.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';
import { checks, cleanUp, folder, leftBehind, leftInTmp, QUICK, runCi, submission } from './helpers.ts';

/** Whether this machine has a network interface besides loopback (a test needs one to see it hidden). */
const HAS_INTERFACE = Object.keys(networkInterfaces()).some((name) => name !== 'lo');

/** A case of each command: each misbehaves alike in every case, and stage 1 has 30. */
const trimmed = courseCopy();
trimCourse(trimmed);
afterAll(() => {
  cleanUp();
  rmSync(trimmed, { recursive: true, force: true });
});

/** Only under program.ts (argv: <command> <case>), never in the property runner. */
const UNDER_PROGRAM = `const underProgram = ['mcp-frame', 'mcp-config'].includes(process.argv[2] ?? '');`;

describe('limits on a submission', () => {
  it('a solution that hangs: timeout verdicts, the run ends, nothing left', async () => {
    const hangs = submission('', [['export function frame(msg: object): string {', 'export function frame(msg: object): string {\n  for (;;) {}']]);
    const run = await runCi([...QUICK, '--submission', hangs, '--timeout', '0.5', '--random', '0'], { cwd: trimmed });
    expect(run.code).toBe(1);
    const frameChecks = checks(run.report).filter((check) => check.name.startsWith('mcp-frame/'));
    expect(frameChecks.length).toBeGreaterThan(0);
    for (const check of frameChecks) expect(check).toMatchObject({ status: 'timeout', message: 'used more than 0.5 s of CPU time and was stopped' });
    expect(await leftBehind(run.tmp)).toEqual([]);
    expect(leftInTmp(run.tmp)).toEqual([]);
  });

  it('a solution whose grandchild leaves the process group and keeps the pipe open: graded on what it printed, grandchild killed', async () => {
    const prelude = `import * as ciChild from 'node:child_process';
${UNDER_PROGRAM}
if (underProgram) {
  // setsid (detached) puts it out of the program's process group; stdio inherited keeps stdout open
  ciChild.spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }).unref();
}`;
    const run = await runCi([...QUICK, '--submission', submission(prelude), '--random', '0', '--timeout', '5'], { cwd: trimmed });
    expect(run.stdout).not.toContain('timed out');
    expect(run.code).toBe(0);
    expect(checks(run.report).every((check) => check.status === 'pass')).toBe(true);
    expect(await leftBehind(run.tmp)).toEqual([]);
  });

  it('a solution that writes 1 GB to stdout: stopped at the 1 MiB cap, output kept truncated and flagged', async () => {
    const prelude = `import * as ciFs from 'node:fs';
${UNDER_PROGRAM}
if (underProgram) {
  const block = Buffer.alloc(1024 * 1024, 'x');
  for (let written = 0; written < 1024; written++) ciFs.writeSync(1, block); // synchronous: really pushes the bytes
}`;
    const run = await runCi([...QUICK, '--submission', submission(prelude), '--random', '0', '--timeout', '20'], { cwd: trimmed });
    expect(run.code).toBe(1);
    const cases = checks(run.report).filter((check) => check.origin === 'public');
    expect(cases.length).toBeGreaterThan(0);
    for (const check of cases) {
      expect(check).toMatchObject({ status: 'fail', message: 'printed more than 1 MiB on stdout and was stopped (output truncated at 1 MiB)' });
      expect(check.output).toMatchObject({ size: 1024 * 1024, truncated: true });
    }
    expect(await leftBehind(run.tmp)).toEqual([]);
    expect(leftInTmp(run.tmp)).toEqual([]);
  });

  it('a solution that grows past the memory limit: crash, saying so', async () => {
    const prelude = `${UNDER_PROGRAM}
if (underProgram) {
  const kept: Buffer[] = [];
  for (;;) kept.push(Buffer.alloc(8 * 1024 * 1024, 1)); // filled, so the pages are really resident
}`;
    const run = await runCi([...QUICK, '--submission', submission(prelude), '--random', '0', '--memory', '100', '--timeout', '20'], { cwd: trimmed });
    expect(run.code).toBe(1);
    const cases = checks(run.report).filter((check) => check.origin === 'public');
    const counted = memoryCounted(true) as 'cgroup' | 'resident';
    expect(run.report?.limits).toMatchObject({ memoryBytes: 100 * 1024 * 1024, memoryCounted: counted });
    for (const check of cases)
      expect(check).toMatchObject({ status: 'crash', message: `used more than 100 MiB of memory (${MEMORY_COUNTED_AS[counted]}) and was stopped` });
    expect(await leftBehind(run.tmp)).toEqual([]);
  });

  it("the environment is scrubbed: a token in the grader's environment does not reach the program", async () => {
    const prelude = `${UNDER_PROGRAM}
if (underProgram && Object.keys(process.env).some((name) => /TOKEN|SECRET|KEY/.test(name))) throw new Error('a secret reached the program');`;
    const run = await runCi([...QUICK, '--submission', submission(prelude), '--random', '0'], {
      cwd: trimmed,
      env: { GITHUB_TOKEN: 'ghp_x', AWS_SECRET_ACCESS_KEY: 'y' },
    });
    expect(run.stdout).not.toContain('a secret reached the program');
    expect(run.code).toBe(0);
  });

  it(`by default the program sees no network interface but loopback${HAS_INTERFACE ? ', and sees them with --network' : ' (the machine has no other interface: only that half is checked)'}`, async () => {
    const prelude = `import * as ciOs from 'node:os';
${UNDER_PROGRAM}
const interfaces = Object.keys(ciOs.networkInterfaces()).filter((name) => name !== 'lo');
if (underProgram && interfaces.length > 0) throw new Error('network interfaces: ' + interfaces.join(', '));`;
    const dir = submission(prelude);
    const off = await runCi([...QUICK, '--submission', dir, '--random', '0'], { cwd: trimmed });
    expect(off.stderr).toBe('');
    expect(off.code).toBe(0);
    expect(off.report?.limits.network).toBe('off');
    // The other half needs an interface to see: on a machine with only a loopback there is none.
    if (!HAS_INTERFACE) return;
    const on = await runCi([...QUICK, '--submission', dir, '--random', '0', '--network'], { cwd: trimmed });
    expect(on.report?.limits.network).toBe('on');
    expect(on.code).toBe(1); // the same program crashes when it sees this machine's interface
    expect(on.stdout).toContain('network interfaces: ');
  });
  it("without network (the default; --no-network without a sandbox): an HTTP stage's programs reach their case's player through its gate, and no other case's", async () => {
    // Each program knocks at every player gate it is shown (in a sandbox its own alone; without one, every
    // case's, in the grader's folder of sockets) without the token: a gate that lets it through to a
    // player fails its case. Then it goes on as the reference does.
    const prelude = `import * as ciFs from 'node:fs';
import * as ciNet from 'node:net';
if (process.argv[2] === 'http') {
  const folder = process.env.THEINFERENCE_SERVER_URL_GATE!.replace(/[^/]*$/, '');
  const gates = ciFs.readdirSync(folder).filter((name) => name.endsWith('.sock'));
  if (gates.length === 0) throw new Error('no player gate to knock at');
  // in a sandbox (its case at 'case'), its own alone
  if (process.argv[3] === 'case' && gates.length > 1) throw new Error('the gates of other cases are shown: ' + gates.join(', '));
  for (const gate of gates) {
    const heard = await new Promise<string>((resolve) => {
      let answer = '';
      const socket = ciNet.createConnection(folder + gate);
      socket.on('data', (chunk) => (answer += chunk)).on('close', () => resolve(answer)).on('error', () => resolve(answer));
      socket.end('not-the-token\\nPOST /mcp HTTP/1.1\\r\\nhost: x\\r\\ncontent-length: 2\\r\\n\\r\\n{}');
    });
    if (heard !== '') throw new Error('a player answered a program without its token: ' + heard.slice(0, 80));
  }
}`;
    const dir = submission(prelude);
    // every HTTP case (each knocks at the others' gates too), and a case of each command before them
    const course = courseCopy();
    trimCourse(
      course,
      readdirSync(join(course, 'cases/streamable-http')).map((name) => `streamable-http/${name}`),
    );
    onTestFinished(() => rmSync(course, { recursive: true, force: true }));
    // in a sandbox, and without one (each program under `unshare --net`, its loopback brought up)
    for (const sandbox of [[], ['--no-network', '--no-sandbox']]) {
      const run = await runCi(['test', '--stage', 'streamable-http', '--runs', '20', '--seed', '3', '--submission', dir, '--random', '0', ...sandbox], {
        cwd: course,
      });
      expect(run.stderr).toBe('');
      const http = checks(run.report).filter((check) => check.id.startsWith('streamable-http/'));
      expect(http.length).toBe(loadCourse(REPO).stages.find((stage) => stage.slug === 'streamable-http')!.cases.length);
      // each one that did not pass, by what it says
      const notPassed = http.filter((check) => check.status !== 'pass').map(({ id, status, message, details }) => ({ id, status, message, details }));
      expect(notPassed, sandbox.length === 0 ? 'in a sandbox' : sandbox.join(' ')).toEqual([]);
      expect(run.code).toBe(0);
      expect(leftInTmp(run.tmp)).toEqual([]);
    }
  });
});

describe('runProcess, past the process group', () => {
  it('kills a daemon that left the group and closed its stdio, once it has been seen', async () => {
    const tmp = folder({});
    // It stays until told to go: the grader looks at /proc every half second of its own running, and a
    // look that never came while it lived would leave the daemon unseen, which only a sandbox prevents.
    const script = `const { spawn } = require('node:child_process');
      const { existsSync, writeFileSync } = require('node:fs');
      const daemon = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      daemon.unref();
      daemon.on('spawn', () => {
        writeFileSync('daemon', String(daemon.pid));
        const wait = setInterval(() => existsSync('go') && clearInterval(wait), 20);
      });`;
    const run = runProcess(process.execPath, ['-e', script], {
      cwd: tmp,
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      limits: { timeoutMs: 5000, outputCap: 1024, memoryBytes: 1024 ** 3 },
    });
    // once the daemon is there: three of the grader's looks, in the grader's own progress (its event loop ran)
    while (!existsSync(join(tmp, 'daemon'))) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise<void>((resolve) => afterProgress(1500, resolve));
    writeFileSync(join(tmp, 'go'), '');
    const result = await run;
    expect(result.exitCode).toBe(0);
    expect(await leftBehind(tmp)).toEqual([]);
  });
});
