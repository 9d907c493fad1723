// The sandbox every graded program runs in (bubblewrap), tried from the inside with real
// processes: what a program can see, write and signal, and that its end is the end of all it started.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { networkInterfaces, tmpdir } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { bundlerJail, jailFor, sandboxAvailability } from '../../harness/run/sandbox.ts';
import { DEFAULT_LIMITS, runCommand, runProcess } from '../../harness/run/spawn.ts';
import { cleanUp, folder, QUICK, runCi } from '../ci/helpers.ts';
import { REPO, runCli } from '../helpers/cli.ts';

afterAll(cleanUp);

/** A run root as the grader makes one, beside what a program must never see. */
function runRoot(): string {
  const root = folder({
    'program.ts': '// driver\n',
    'src/mcp.ts': '// solution\n',
    'cases/a/input.json': '{}\n',
    'fixtures/a/expected.json': '"secret"\n',
    'results.json': '{"status":"fail"}\n',
  });
  // one package the course lets programs load, which depends on another; and one it does not (the SDK)
  for (const [name, dependencies] of [
    ['some-package', { 'its-dependency': '1' }],
    ['its-dependency', {}],
    ['@modelcontextprotocol/sdk', {}],
  ] as const) {
    mkdirSync(join(root, 'node_modules', name), { recursive: true });
    writeFileSync(join(root, 'node_modules', name, 'package.json'), JSON.stringify({ name, dependencies }));
    writeFileSync(join(root, 'node_modules', name, 'index.js'), `// ${name}\n`);
  }
  return root;
}

/** `script` run by node in the sandbox of `root`; with `caseDir`, that case's inputs shown to it. */
async function inSandbox(root: string, script: string, network = true, timeoutMs = 5000, caseDir?: string) {
  const jail = jailFor(root, { sandbox: true, network, packages: ['some-package'] });
  expect(jail.kind).toBe('bwrap');
  const wrapped = jail.wrap(process.execPath, ['-e', script]);
  const { start, caseArg } =
    caseDir === undefined ? { start: jail.withRunRoot(wrapped), caseArg: undefined } : jail.showCase(wrapped, join(root, caseDir), caseDir);
  const result = await runCommand(start, caseArg === undefined ? [] : [caseArg], {
    cwd: root,
    env: { PATH: process.env.PATH },
    limits: { ...DEFAULT_LIMITS, timeoutMs },
    contained: true,
  });
  return { ...result, out: result.stdout.toString(), err: result.stderr.toString() };
}

describe('the sandbox', () => {
  it('can be made on this machine (CI installs bubblewrap)', () => {
    expect(sandboxAvailability()).toEqual({ available: true });
  });

  it("shows the run root's program parts read-only, and nothing else of it", async () => {
    const root = runRoot();
    const script = `
      const fs = require('node:fs');
      const tryWrite = (path) => { try { fs.writeFileSync(path, 'x'); return 'written'; } catch (error) { return error.code; } };
      console.log(JSON.stringify({
        listed: fs.readdirSync(${JSON.stringify(root)}).sort(),
        fixtures: fs.existsSync(${JSON.stringify(join(root, 'fixtures'))}),
        packages: fs.readdirSync(${JSON.stringify(join(root, 'node_modules'))}).sort(),
        dependency: fs.readFileSync(${JSON.stringify(join(root, 'node_modules/its-dependency/index.js'))}, 'utf8'),
        writeSrc: tryWrite(${JSON.stringify(join(root, 'src/mcp.ts'))}),
        writeModules: tryWrite(${JSON.stringify(join(root, 'node_modules/new.js'))}),
        writeTmp: tryWrite('/tmp/scratch'),
      }));`;
    const { out, exitCode, err } = await inSandbox(root, script);
    expect(err).toBe('');
    expect(exitCode).toBe(0);
    expect(JSON.parse(out)).toEqual({
      listed: ['node_modules', 'program.ts', 'src'], // of the run root: not fixtures/, not results.json, not cases/
      fixtures: false,
      packages: ['its-dependency', 'some-package'], // the ones it may load, not the SDK
      dependency: '// its-dependency\n',
      writeSrc: 'EROFS',
      writeModules: 'written', // in the sandbox's own empty folder, made to hold the packages shown: not the run root's
      writeTmp: 'written',
    });
    expect(readFileSync(join(root, 'src/mcp.ts'), 'utf8')).toBe('// solution\n');
    expect(existsSync(join(root, 'node_modules/new.js'))).toBe(false);
  });

  it("shows its own case's inputs, read-only, at the place every case has, and no other case's", async () => {
    const root = runRoot();
    writeFileSync(join(root, 'cases/b.json'), '"another case"\n');
    const script = `
      const fs = require('node:fs');
      const caseDir = process.argv[1];
      let writeCase;
      try { fs.writeFileSync(caseDir + '/input.json', 'x'); } catch (error) { writeCase = error.code; }
      // the mount's source: the 4th field of its line in the mount table
      const source = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\\n').find((line) => line.split(' ')[4]?.endsWith('/case'))?.split(' ')[3];
      console.log(JSON.stringify({ caseDir, inCase: fs.readdirSync(caseDir), input: fs.readFileSync(caseDir + '/input.json', 'utf8'), cases: fs.existsSync('cases'), writeCase, source }));`;
    const { out, err } = await inSandbox(root, script, true, 5000, 'cases/a');
    expect(err).toBe('');
    const seen = JSON.parse(out);
    expect(seen).toEqual({ caseDir: 'case', inCase: ['input.json'], input: '{}\n', cases: false, writeCase: 'EROFS', source: expect.any(String) });
    // shown from a copy whose name says nothing of the case (kept for its next program: case-copies.test.ts)
    expect(seen.source.startsWith(join(realpathSync(tmpdir()), 'theinference-case-'))).toBe(true);
  });

  it('writes nowhere but its /tmp: the root bwrap makes and /dev (its /dev/shm) are read-only, memory of no bounded size', async () => {
    const { out } = await inSandbox(
      runRoot(),
      `
      const fs = require('node:fs');
      const tried = {};
      for (const path of ['/made-here', '/dev/made-here', '/dev/shm/made-here', '/tmp/made-here']) {
        try {
          fs.writeFileSync(path, 'x');
          tried[path] = 'written';
        } catch (error) {
          tried[path] = error.code;
        }
      }
      console.log(JSON.stringify(tried));`,
    );
    expect(JSON.parse(out)).toEqual({ '/made-here': 'EROFS', '/dev/made-here': 'EROFS', '/dev/shm/made-here': 'EROFS', '/tmp/made-here': 'written' });
  });

  it("has a /proc of its own: only its processes, none of the grader's", async () => {
    const { out } = await inSandbox(
      runRoot(),
      `
      const fs = require('node:fs');
      const pids = fs.readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry));
      console.log(JSON.stringify({ pids: pids.length, parent: process.ppid, environOfGrader: fs.existsSync('/proc/${process.pid}') }));`,
    );
    const seen = JSON.parse(out);
    expect(seen.pids).toBeLessThanOrEqual(3); // its init, itself
    expect(seen.environOfGrader).toBe(false);
  });

  it("shows nothing of the host in /proc: not its init's command line (the sandbox's options, the host's paths), nor a host PATH or HOME", async () => {
    const root = runRoot();
    const { out } = await inSandbox(
      root,
      `
      const fs = require('node:fs');
      const read = (path) => fs.readFileSync(path, 'latin1').split('\\0').filter(Boolean);
      console.log(JSON.stringify({ init: read('/proc/1/cmdline'), initEnv: read('/proc/1/environ'), env: read('/proc/self/environ') }));`,
    );
    const seen = JSON.parse(out) as { init: string[]; initEnv: string[]; env: string[] };
    expect(seen.init.slice(0, 8)).toEqual(['bwrap', '--args', '9', '--remount-ro', '/dev', '--remount-ro', '/', '--']);
    expect(seen.init.join(' ')).not.toContain(root);
    expect(seen.init.join(' ')).not.toContain('--ro-bind');
    const nodePrefix = dirname(dirname(realpathSync(process.execPath)));
    for (const env of [seen.initEnv, seen.env]) {
      expect(env).toContain('HOME=/tmp');
      const path = env
        .find((entry) => entry.startsWith('PATH='))!
        .slice('PATH='.length)
        .split(':');
      for (const dir of path) expect(/^\/(usr|bin|sbin|lib)/.test(dir) || dir.startsWith(nodePrefix), dir).toBe(true);
    }
  });

  it('ends everything the program started when it ends, even a double-forked process in a session of its own', async () => {
    const root = runRoot();
    const marker = `sandbox-stray-${process.pid}`;
    const { exitCode } = await inSandbox(
      root,
      `
      require('node:child_process').spawn('sh', ['-c', 'env -i setsid sleep 60 ${marker} >/dev/null 2>&1 &'], { detached: true, stdio: 'ignore' }).unref();
      setTimeout(() => {}, 300);`,
    );
    expect(exitCode).toBe(0);
    const alive = readdirSync('/proc').filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes(marker) && !/\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  });

  // The grader reads a sandboxed program's pipes to their end (spawn.ts): a process it leaves holding them
  // must not keep the case open, nor add to what it printed.
  it('a process the program leaves holding its stdout ends with it: nothing it writes later is kept', async () => {
    const root = runRoot();
    const { exitCode, out } = await inSandbox(
      root,
      `
      require('node:child_process').spawn('sh', ['-c', 'sleep 1; echo late; sleep 60'], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }).unref();
      process.stdout.write('early\\n');`,
    );
    expect(exitCode).toBe(0);
    expect(out).toBe('early\n');
  });

  // The busy process is an orphan in a session of its own, adopted by the sandbox's init: found by
  // walking down from the leader, its CPU time counts, so the verdict is the CPU limit's, not the
  // wall backstop's that a waiting leader alone would earn.
  it('counts the CPU time of a double-forked process that computes while the program waits', async () => {
    const { timeLimit, cpuMs } = await inSandbox(
      runRoot(),
      `require('node:child_process').spawn('sh', ['-c', 'setsid ${process.execPath} -e "for (;;) {}" >/dev/null 2>&1 &'], { detached: true, stdio: 'ignore' }).unref();
      setInterval(() => {}, 1000);`,
      true,
      1500, // a process that computes is not stopped by the wall backstop, however busy the machine
    );
    expect(timeLimit).toBe('cpu');
    expect(cpuMs).toBeGreaterThan(1500);
  });

  it('without network: no interface but a loopback of its own', async () => {
    const script = `console.log(Object.keys(require('node:os').networkInterfaces()).join(','))`;
    const off = await inSandbox(runRoot(), script, false);
    expect(off.out.trim()).toBe('lo');
    // With network the program sees the machine's interfaces, when it has one besides loopback.
    if (!Object.keys(networkInterfaces()).some((name) => name !== 'lo')) return;
    const on = await inSandbox(runRoot(), script, true);
    expect(
      on.out
        .trim()
        .split(',')
        .filter((name) => name !== 'lo'),
    ).not.toEqual([]);
  });

  it("passes the grader's extra pipe (the cassette wire, fd 3) through", async () => {
    const root = runRoot();
    const jail = jailFor(root, { sandbox: true, network: true });
    const start = jail.wrap(process.execPath, ['-e', `require('node:fs').writeSync(3, 'over the wire\\n')`]);
    let received = '';
    await runCommand(start, [], {
      cwd: root,
      env: { PATH: process.env.PATH },
      limits: DEFAULT_LIMITS,
      contained: true,
      extraPipes: 1,
      onPipes: ([wire]) => wire!.on('data', (chunk: Buffer) => (received += chunk.toString())),
    });
    expect(received).toBe('over the wire\n');
  });
});

describe('time limits', () => {
  it('a loop is stopped for its CPU time; a program that only waits, by the wall-time backstop', async () => {
    const limits = { ...DEFAULT_LIMITS, timeoutMs: 300, wallMs: 3000 };
    const loop = await runProcess(process.execPath, ['-e', 'for (;;) {}'], { cwd: '/', env: {}, limits });
    expect(loop.timeLimit).toBe('cpu');
    expect(loop.cpuMs).toBeGreaterThan(300);

    // a CPU limit its boot cannot reach on a loaded machine (where node's start alone can take 0.2 s of CPU)
    const waits = await runProcess(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
      cwd: '/',
      env: {},
      limits: { ...limits, timeoutMs: 1000, wallMs: 1000 },
    });
    expect(waits.timeLimit).toBe('wall'); // not 'cpu': its CPU time stayed under the limit
  });

  it('a loop still computing at a wall backstop due before the sandbox was first looked into is left to its CPU limit', async () => {
    // The tree below bwrap is found every half second; a backstop due before that judged the loop by
    // bwrap's own CPU time alone (none) and gave a loop on a loaded machine the wall verdict.
    const root = runRoot();
    const start = jailFor(root, { sandbox: true, network: true }).wrap(process.execPath, ['-e', 'for (;;) {}']);
    const loop = await runCommand(start, [], {
      cwd: root,
      env: { PATH: process.env.PATH },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 350, wallMs: 300 },
      contained: true,
    });
    // Past its first backstop: to its CPU limit, or (on a machine too busy for even that) to a later
    // backstop. Its first 300 ms always compute (node's start alone takes far more than 5% of a core
    // of them), so it is looked at again at least once; a later look may find it starved, and stop it
    // there, short of the last deadline. (The bug stopped it at the first, 300 ms of the grader's progress.)
    if (loop.timeLimit === 'cpu') expect(loop.cpuMs).toBeGreaterThan(350);
    else expect(loop.durationMs).toBeGreaterThanOrEqual(2 * 300);
  });

  it('counts the CPU time of the processes a program starts, in the sandbox too', async () => {
    const root = runRoot();
    const jail = jailFor(root, { sandbox: true, network: true });
    const script = `for (let i = 0; i < 2; i++) require('node:child_process').spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }); setTimeout(() => {}, 60_000);`;
    const start = jail.wrap(process.execPath, ['-e', script]);
    const result = await runCommand(start, [], {
      cwd: root,
      env: { PATH: process.env.PATH },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 500, wallMs: 20_000 },
      contained: true,
    });
    expect(result.timeLimit).toBe('cpu');
  });
});

describe('where no sandbox can be made', () => {
  /** A PATH whose bwrap fails as it does where user namespaces are not allowed. */
  function withoutNamespaces(): NodeJS.ProcessEnv {
    const bin = folder({ bwrap: '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' });
    chmodSync(join(bin, 'bwrap'), 0o755);
    return { PATH: `${bin}:${process.env.PATH}` };
  }

  it('grading a submission refuses, exit 2, with one line saying how to enable it, which its report and summary say too', async () => {
    const summary = join(folder({}), 'summary.md');
    const run = await runCi([...QUICK, '--random', '0', '--submission', REPO, '--summary', summary], { env: withoutNamespaces() });
    expect(run.code).toBe(2);
    const reason =
      'no sandbox can be made here (bwrap cannot make namespaces here: bwrap: No permissions to create new namespace): install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap) and allow user namespaces (see docs/ci.md), or grade with --no-sandbox';
    expect(run.stderr).toBe(`theinference test: ${reason}\n`);
    expect(run.report).toMatchObject({ status: 'error', exitCode: 2, seed: 3, sandbox: 'none', problems: [reason] });
    expect(run.report!.stages.map((stage) => stage.status)).toEqual(['skipped']);
    expect(readFileSync(summary, 'utf8')).toContain(`not graded to the end:\n\n- \` ${reason} \`\n`);
  });

  it('--no-sandbox grades anyway, and the report says so', async () => {
    const run = await runCi([...QUICK, '--random', '0', '--submission', REPO, '--no-sandbox', '--shard', '1/3'], { env: withoutNamespaces() });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('no sandbox: --no-sandbox');
    expect(run.report).toMatchObject({ status: 'pass', sandbox: 'none' });
  });

  it("a student's run grades, with a note", async () => {
    const run = await runCli(['test', '--stage', 'config-and-framing', '--runs', '20'], { env: withoutNamespaces() });
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/^note: grading without a sandbox \(bwrap cannot make namespaces here/);
  });
});

describe("the bundler's sandbox", () => {
  it('shows the bundler src/ and its entries read-only, lets it write one folder, and shows nothing else of the run root or the machine', async () => {
    const root = runRoot();
    const output = folder({});
    const secretElsewhere = folder({ 'other-grading/src/mcp.ts': '// another student\n' });
    const jail = bundlerJail({ readOnly: [join(root, 'src'), join(root, 'program.ts')], output, chdir: root }, { sandbox: true });
    expect(jail.kind).toBe('bwrap');
    const script = `
      const fs = require('node:fs');
      const tryWrite = (path) => { try { fs.writeFileSync(path, 'x'); return 'written'; } catch (error) { return error.code; } };
      const seen = (path) => fs.existsSync(path);
      const net = require('node:net');
      const socket = net.connect(9, '1.1.1.1');
      socket.on('error', (error) => {
        console.log(JSON.stringify({
          listed: fs.readdirSync(${JSON.stringify(root)}).sort(),
          course: [${JSON.stringify(join(REPO, 'src/mcp.ts'))}, ${JSON.stringify(join(REPO, '.git/config'))}, ${JSON.stringify(join(REPO, 'fixtures'))}, ${JSON.stringify(join(REPO, 'node_modules/@modelcontextprotocol/sdk'))}].map(seen),
          elsewhere: seen(${JSON.stringify(secretElsewhere)}),
          self: fs.readlinkSync('/proc/self/exe'),
          processes: fs.readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).length,
          writeSrc: tryWrite(${JSON.stringify(join(root, 'src/mcp.ts'))}),
          writeOutput: tryWrite(${JSON.stringify(join(output, '0.mjs'))}),
          network: error.code,
        }));
      });`;
    const result = await runCommand(jail.wrap(process.execPath, ['-e', script]), [], {
      cwd: root,
      env: { PATH: process.env.PATH },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 5000 },
      contained: true,
    });
    expect(result.stderr.toString()).toBe('');
    expect(JSON.parse(result.stdout.toString())).toEqual({
      listed: ['program.ts', 'src'],
      course: [false, false, false, false],
      elsewhere: false,
      self: realpathSync(process.execPath),
      processes: 2, // bwrap's init and node: none of the grader's
      writeSrc: 'EROFS',
      writeOutput: 'written',
      network: 'ENETUNREACH',
    });
    expect(readFileSync(join(output, '0.mjs'), 'utf8')).toBe('x');
  });

  it("starts in its working folder where nothing it is shown lies under it (a src/ kept elsewhere, as the property tests' variants are)", async () => {
    const root = folder({});
    const source = folder({ 'src/mcp.ts': '// solution\n' });
    const jail = bundlerJail({ readOnly: [join(source, 'src')], output: folder({}), chdir: root }, { sandbox: true });
    const result = await runCommand(jail.wrap(process.execPath, ['-e', 'console.log(process.cwd())']), [], {
      cwd: root,
      env: { PATH: process.env.PATH },
      limits: { ...DEFAULT_LIMITS, timeoutMs: 5000 },
      contained: true,
    });
    expect(result.stderr.toString()).toBe('');
    expect(result.stdout.toString()).toBe(`${root}\n`);
  });
});
