// Watch mode, save to verdict: median over 20 saves of the time from writing src/mcp.ts to the
// first case's verdict line, and to the line that says the whole grade is complete. Runs on a
// scratch copy so the repo is not touched.
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
let firstVerdictAt: number | undefined;
child.stdout.on('data', (chunk: Buffer) => {
  output += chunk.toString();
  if (firstVerdictAt === undefined && /^ {2}[✓✗] /m.test(output)) firstVerdictAt = performance.now();
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
const firsts: number[] = [];
for (let save = 0; save < saves; save += 1) {
  const started = performance.now();
  firstVerdictAt = undefined;
  const graded = verdict();
  writeFileSync(join(course, 'src/mcp.ts'), `${source}// save ${save}\n`);
  await graded;
  times.push(performance.now() - started);
  firsts.push(firstVerdictAt! - started);
}
child.kill('SIGINT');
rmSync(course, { recursive: true, force: true });
const summary = (values: number[]) => {
  values.sort((a, b) => a - b);
  return `median ${values[Math.floor(values.length / 2)]!.toFixed(0)} ms, min ${values[0]!.toFixed(0)} ms, max ${values.at(-1)!.toFixed(0)} ms`;
};
console.log(`watch, ${saves} saves of src/mcp.ts, stage config-and-framing on the reference:`);
console.log(`  save to the first case's verdict: ${summary(firsts)}`);
console.log(`  save to the whole stage's verdict: ${summary(times)} (target median <= 500 ms)`);
