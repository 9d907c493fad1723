// Watch mode, save to verdict: median over 20 saves of the time from writing src/mcp.ts to the
// line that says the grade is complete. Runs on a scratch copy so the repo is not touched.
// Run: node --import tsx bench/watch.ts [saves]
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repo = join(import.meta.dirname, '..');
const saves = Number(process.argv[2] ?? 20);
const course = mkdtempSync(join(tmpdir(), 'watch-bench-'));
for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'src', 'cases', 'fixtures']) {
  cpSync(join(repo, part), join(course, part), { recursive: true });
}
symlinkSync(join(repo, 'node_modules'), join(course, 'node_modules'), 'dir');

const child = spawn(process.execPath, [join(repo, 'bin/theinference.js'), 'test', '--stage', 'config-and-framing', '--watch', '--no-color'], { cwd: course });
let output = '';
let waiter: (() => void) | undefined;
child.stdout.on('data', (chunk: Buffer) => {
  output += chunk.toString();
  if (output.includes('[watch] waiting for changes')) {
    if (!output.includes('all graded stages pass')) throw new Error(`the reference did not pass under watch:\n${output}`);
    output = '';
    waiter?.();
  }
});
const verdict = () => new Promise<void>((resolve) => (waiter = resolve));

await verdict(); // the first grade, at start
const source = readFileSync(join(course, 'src/mcp.ts'), 'utf8');
const times: number[] = [];
for (let save = 0; save < saves; save += 1) {
  const started = performance.now();
  const graded = verdict();
  writeFileSync(join(course, 'src/mcp.ts'), `${source}// save ${save}\n`);
  await graded;
  times.push(performance.now() - started);
}
child.kill('SIGINT');
rmSync(course, { recursive: true, force: true });
times.sort((a, b) => a - b);
console.log(`watch, save to verdict over ${saves} saves: median ${times[Math.floor(saves / 2)]!.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms (target median <= 500 ms)`);
