// Looks for what of the run root it shares with the other programs of its grading: prints on stderr,
// one line, the device and inode of every file and folder of the run root it is shown (the bundle it
// runs, program.ts, src/, the grader's scripts beside the bundle), and whether a lock another case's
// program holds on the bundle is seen. The two case programs of a stage cut to one mcp-frame case and
// one mcp-config case meet through locks on two files of the system folders, which every sandbox
// shares: the mcp-frame one locks its bundle, then says so (a lock on the first); the mcp-config one
// waits for that, tries the bundle, says it has (a lock on the second), and waits for the other to let
// go. Each waits for the other's lock itself, never for a time. The property oracle only prints (its
// stderr goes with the properties that fail).
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, statSync } from 'node:fs';

/** A case's program runs its bundle; the property oracle, the module's bundle given it after --module. */
const BUNDLE = (process.argv[3] === 'case' ? process.argv[1] : process.argv[process.argv.indexOf('--module') + 1]) ?? '';
const SHOWN = [
  BUNDLE,
  'program.ts',
  'your_program.sh',
  'package.json',
  'src',
  'src/mcp.ts',
  'src/attack.ts',
  '.theinference',
  '.theinference/warm-start.mjs',
  '.theinference/preload.mjs',
  '.theinference/case-server',
  '.theinference/case-server/theinference-case-server',
];
/** What the holder has locked its bundle (held by it), and what the tester has tried it (held by it). */
const HELD = '/usr/bin/flock';
const TRIED = '/usr/bin/prlimit';

const inodes: Record<string, string> = {};
for (const path of SHOWN) {
  try {
    const stat = statSync(path);
    inodes[path === BUNDLE ? 'the bundle' : path] = `${stat.dev}:${stat.ino}`;
  } catch {
    // not shown to this program
  }
}

/** util-linux flock: its exit status (0: locked, 1: another holds it); `fd`: the lock is taken on that open file. */
const flock = (args: string[], fd?: number) =>
  spawnSync('/usr/bin/flock', args, { stdio: fd === undefined ? 'ignore' : ['ignore', 'ignore', 'ignore', fd] }).status;
const nap = new Int32Array(new SharedArrayBuffer(4));
/** Until `done`: a look at the locks every few milliseconds, which nothing else ends. */
const until = (done: () => boolean) => {
  while (!done()) Atomics.wait(nap, 0, 0, 5);
};
const lockedByAnother = (path: string) => flock(['--nonblock', '--exclusive', path, 'true']) !== 0;

const command = process.argv[2];
let lockSeen: boolean | undefined;
if (process.argv[3] === 'case' && command === 'mcp-frame') {
  const bundle = openSync(BUNDLE, 'r');
  if (flock(['--nonblock', '--exclusive', '3'], bundle) !== 0) throw new Error('the bundle was locked already');
  const held = openSync(HELD, 'r');
  flock(['--exclusive', '3'], held);
  until(() => lockedByAnother(TRIED));
  closeSync(bundle);
  closeSync(held);
} else if (process.argv[3] === 'case' && command === 'mcp-config') {
  until(() => lockedByAnother(HELD));
  lockSeen = lockedByAnother(BUNDLE);
  const tried = openSync(TRIED, 'r');
  flock(['--shared', '3'], tried);
  flock(['--shared', HELD, 'true']); // until the holder has let go of both
  closeSync(tried);
}
process.stderr.write(`shares: ${JSON.stringify({ command, inodes, lockSeen })}\n`);
