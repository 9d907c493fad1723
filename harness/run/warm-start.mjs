// A program started ahead of time (watch mode, between saves: a case's program, or a stage's property
// oracle): node has booted, and waits here for the grader's go on the fd named by THEINFERENCE_GO_FD:
// a line `go <variables as JSON>` (those known only then, such as an HTTP player's URL). Then it runs
// its script as `node <script> <args...>` would, the script and what it loads as they are at that
// moment (bundled after the save). Plain JavaScript: it runs before anything could compile TypeScript.
// A go that says `go say-end <variables>` asks for the program's end on the same fd: as it exits,
// once its 'exit' listeners have run, `end <code>` is written there, and the process waits, never to
// run another line, for the grader to stop and kill it once the grading is over (spawn.ts): its
// teardown, half of what a case costs, is not on the clock. What is graded is what a real exit would
// leave: what it had written, and the code it was leaving with.
import { readSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
// Node's modules a course program imports, and fetch where it talks HTTP, are loaded now, not on the
// clock: loading child_process, crypto and net alone is about 3 ms of each case's 9 after the go.
import './preload.mjs';

const fd = Number(process.env.THEINFERENCE_GO_FD);
// So are the streams of stdout and stderr, made at their first use (about 1 ms more).
void process.stdout;
void process.stderr;
const byte = Buffer.alloc(1);
const line = [];
const nap = new Int32Array(new SharedArrayBuffer(4));
for (;;) {
  let read;
  try {
    read = readSync(fd, byte, 0, 1, null);
  } catch (error) {
    if (error.code !== 'EAGAIN') throw error;
    Atomics.wait(nap, 0, 0, 1);
    continue;
  }
  if (read === 0) process.exit(0); // the grader went away without a go: nothing to run
  if (byte[0] === 0x0a) break;
  line.push(byte[0]);
}
let go = Buffer.from(line).toString('utf8');
if (go.startsWith('go say-end ')) {
  go = `go ${go.slice('go say-end '.length)}`;
  const exit = process.reallyExit;
  process.reallyExit = (code) => {
    try {
      writeSync(fd, `end ${(Number(code) | 0) & 0xff}\n`); // the status C's exit() would leave
    } catch {
      exit.call(process, code); // no grader to tell: a real exit
    }
    Atomics.wait(nap, 0, 0);
  };
}
if (go.startsWith('go ')) Object.assign(process.env, JSON.parse(go.slice(3)));
const [script, ...args] = process.argv.slice(2);
process.argv = [process.argv[0], script, ...args];
await import(pathToFileURL(script).href);
