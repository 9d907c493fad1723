// What a sandboxed program is shown of its run root is a copy of its own (root-copies.ts), tried from
// inside real sandboxes: other inodes than the run root's and another program's, brought up to date at
// a program's go (watch mode writes the bundle after its programs started), its own gate linked in and
// no other's, links copied as links, and nothing left once its program has ended.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { prestart } from '../../harness/run/prestart.ts';
import { memoryFolder } from '../../harness/scratch.ts';
import { socketsFolder } from '../../harness/transports/sockets.ts';
import { jailFor, sandboxAvailability } from '../../harness/run/sandbox.ts';
import { DEFAULT_LIMITS, runCommand } from '../../harness/run/spawn.ts';
import { cleanUp, folder } from '../ci/helpers.ts';
import { REPO } from '../helpers/cli.ts';

afterAll(cleanUp);

/** A run root as the launcher leaves one: the driver, the student's code, the grader's scripts in .theinference/. */
function runRoot(): string {
  const root = folder({ 'program.ts': '// driver\n', 'src/mcp.ts': '// solution\n', 'src/old.ts': '// removed before the go\n' });
  mkdirSync(join(root, '.theinference'));
  for (const script of ['warm-start.mjs', 'preload.mjs']) copyFileSync(join(REPO, 'harness/run', script), join(root, '.theinference', script));
  return root;
}

/** This process's copies not removed yet, and the folders of sockets made for its programs. */
function left(): string[] {
  return readdirSync(memoryFolder()).filter((name) => /^theinference-(root|socket)-/.test(name) && name.includes(`-${process.pid}-`));
}

const RUN = { env: { PATH: process.env.PATH }, limits: { ...DEFAULT_LIMITS, timeoutMs: 10_000 }, contained: true };

/** `script` (an ES module, written to .theinference/ only after it started) run by a program of `root`
 *  started ahead: started now, released by the call returned. */
function startedAhead(root: string, name: string) {
  const jail = jailFor(root, { sandbox: true });
  const warmStart = join(root, '.theinference', 'warm-start.mjs');
  const script = join(root, '.theinference', name);
  const started = prestart(jail.withRunRoot(jail.wrap(process.execPath, [warmStart])), [script], { ...RUN, cwd: root });
  onTestFinished(() => started.cancel());
  return async (body: string, own?: string[]) => {
    writeFileSync(script, body);
    const result = await started.release({}, undefined, own);
    expect(result.stderr.toString()).toBe('');
    return JSON.parse(result.stdout.toString());
  };
}

describe.skipIf(!sandboxAvailability().available)("a program's copy of its run root", () => {
  it("is its own: the same bytes at the same places, on other inodes than the run root's and than another program's of it", async () => {
    const root = runRoot();
    const paths = ['program.ts', 'src', 'src/mcp.ts', '.theinference', '.theinference/warm-start.mjs'];
    // both wait at once, each with its copy made: two copies there together
    const first = startedAhead(root, 'first.mjs');
    const second = startedAhead(root, 'second.mjs');
    const body = `import { readFileSync, statSync } from 'node:fs';
const paths = ${JSON.stringify(paths)};
console.log(JSON.stringify({ inodes: paths.map((path) => statSync(path).dev + ':' + statSync(path).ino), mcp: readFileSync('src/mcp.ts', 'utf8') }));`;
    const [one, other] = await Promise.all([first(body), second(body)]);
    const inRunRoot = paths.map((path) => `${statSync(join(root, path)).dev}:${statSync(join(root, path)).ino}`);
    expect(one.mcp).toBe('// solution\n');
    paths.forEach((path, index) => {
      expect(one.inodes[index], path).not.toBe(other.inodes[index]);
      expect(one.inodes[index], path).not.toBe(inRunRoot[index]);
      expect(other.inodes[index], path).not.toBe(inRunRoot[index]);
    });
    expect(left()).toEqual([]); // each removed as its program ended
  });

  it('is brought up to date at the go of a program started ahead: its bundle, written since, and src/ as saved', async () => {
    const root = runRoot();
    const go = startedAhead(root, 'program-1.mjs');
    writeFileSync(join(root, 'src/mcp.ts'), '// saved\n');
    rmSync(join(root, 'src/old.ts'));
    writeFileSync(join(root, 'src/new.ts'), '// added\n');
    const seen = await go(`import { readdirSync, readFileSync } from 'node:fs';
console.log(JSON.stringify({ src: readdirSync('src').sort(), mcp: readFileSync('src/mcp.ts', 'utf8') }));`);
    expect(seen).toEqual({ src: ['mcp.ts', 'new.ts'], mcp: '// saved\n' });
    expect(left()).toEqual([]);
  });

  it("shows a program the gate made for it after it started, and no other program's gate", async () => {
    const root = runRoot();
    const go = startedAhead(root, 'program-1.mjs');
    const gates: Server[] = [];
    onTestFinished(() => {
      for (const gate of gates) gate.close();
    });
    const open = (name: string) =>
      new Promise<string>((resolve) => {
        const path = join(socketsFolder(), name);
        const gate = createServer((client) => client.end(`this is ${name}\n`)).listen(path, () => resolve(path));
        gates.push(gate);
      });
    const own = await open('player-1.sock');
    await open('player-2.sock');
    const seen = await go(
      `import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
const sockets = readdirSync(${JSON.stringify(socketsFolder())});
let heard = '';
connect(${JSON.stringify(join(socketsFolder(), 'player-1.sock'))}).on('data', (chunk) => (heard += chunk)).on('close', () => console.log(JSON.stringify({ sockets, heard })));`,
      [own],
    );
    expect(seen).toEqual({ sockets: ['player-1.sock'], heard: 'this is player-1.sock\n' });
  });

  it("copies a link as a link, which the sandbox follows as it would the run root's (the grader never does), and leaves out a FIFO", async () => {
    const root = runRoot();
    const secret = join(folder({ 'secret.txt': 'the grader may read this; no program may\n' }), 'secret.txt');
    symlinkSync(secret, join(root, 'src', 'secret.ts'));
    symlinkSync('mcp.ts', join(root, 'src', 'again.ts'));
    expect(spawnSync('mkfifo', [join(root, 'src', 'pipe')]).status).toBe(0);
    const go = startedAhead(root, 'program-1.mjs');
    const seen = await go(`import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
const read = (path) => { try { return readFileSync(path, 'utf8'); } catch (error) { return error.code; } };
console.log(JSON.stringify({ src: readdirSync('src').sort(), link: readlinkSync('src/secret.ts'), secret: read('src/secret.ts'), again: read('src/again.ts') }));`);
    expect(seen).toEqual({ src: ['again.ts', 'mcp.ts', 'old.ts', 'secret.ts'], link: secret, secret: 'ENOENT', again: '// solution\n' });
  });

  it('takes at most 2,000 entries and 96 MiB of a part, in name order: a src/ of many or large files costs no more', async () => {
    const root = runRoot();
    for (let n = 0; n < 2100; n++) writeFileSync(join(root, 'src', `many-${String(n).padStart(4, '0')}.ts`), '');
    // larger than a part may take, on no disk: a sparse file
    expect(spawnSync('truncate', ['--size', '97M', join(root, 'src', 'big.bin')]).status).toBe(0);
    const go = startedAhead(root, 'program-1.mjs');
    const seen = await go(`import { readdirSync } from 'node:fs';
const src = readdirSync('src').sort();
console.log(JSON.stringify({ count: src.length, first: src[0], last: src.at(-1), bundle: readdirSync('.theinference').includes('program-1.mjs') }));`);
    // big.bin, first in name order, is counted and left out; then the first 1,999 of the rest (not mcp.ts)
    expect(seen).toEqual({ count: 1999, first: 'many-0000.ts', last: 'many-1998.ts', bundle: true });
  });

  it('is removed with its program, a program started ahead and never let go too', async () => {
    const root = runRoot();
    const jail = jailFor(root, { sandbox: true });
    const waiting = prestart(jail.withRunRoot(jail.wrap(process.execPath, [join(root, '.theinference', 'warm-start.mjs')])), ['-'], { ...RUN, cwd: root });
    expect(left()).toHaveLength(2); // its copy, and the folder of its sockets
    waiting.cancel();
    const ran = await runCommand(jail.withRunRoot(jail.wrap(process.execPath, ['-e', 'console.log(require("node:fs").readdirSync("."))'])), [], {
      ...RUN,
      cwd: root,
    });
    expect(ran.stdout.toString()).toContain('program.ts');
    await waiting.release({}, undefined); // its end, after the cancel
    expect(left()).toEqual([]);
  });
});
