// Time that load cannot fake: grades stage 1 with its 1,000-run properties on the reference, N
// times on a quiet machine, N times with every core held by a busy loop, and N times with six busy
// loops per core (a load of about 13 on 2 cores), in the same run.
// Every graded run must pass (a correct solution never fails because the machine is busy); the
// figures compare wall time and the CPU time the cases were charged, busy against quiet.
// `all` grades every stage instead (issue 30: five rounds of every stage beside busy loops, all pass).
// Run: node --import tsx bench/load.ts [rounds] [all]   (default 10 rounds of stage 1)
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 10);
const cores = availableParallelism();
const everyStage = process.argv[3] === 'all';
const what = everyStage ? 'every stage' : 'stage config-and-framing';

function grade(): { ms: number; passed: boolean; output: string } {
  const started = performance.now();
  const stage = everyStage ? [] : ['--stage', 'config-and-framing'];
  const run = spawnSync(process.execPath, ['bin/theinference.js', 'test', ...stage, '--no-color'], { cwd: root, encoding: 'utf8' });
  return { ms: performance.now() - started, passed: run.status === 0, output: run.stdout + run.stderr };
}

function series(label: string): number[] {
  const times: number[] = [];
  let passed = 0;
  for (let round = 0; round < rounds; round += 1) {
    const run = grade();
    times.push(run.ms);
    if (run.passed) passed += 1;
    else
      console.log(
        `  ${label} round ${round + 1} did not pass:\n${run.output
          .split('\n')
          .filter((line) => /✗|!/.test(line))
          .join('\n')}`,
      );
  }
  console.log(`  ${label}: ${passed}/${rounds} passed, median ${(median(times) / 1000).toFixed(2)} s, slowest ${(Math.max(...times) / 1000).toFixed(2)} s`);
  return times;
}

/** Busy loops, `perCore` on every core, at the same priority as the grader. */
function holdCores(perCore: number): ChildProcess[] {
  return Array.from({ length: cores * perCore }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
}

function underLoad(perCore: number): number[] {
  const loops = holdCores(perCore);
  try {
    return series(`${perCore} busy loop${perCore === 1 ? '' : 's'} on every core (${loops.length} loops)`);
  } finally {
    for (const loop of loops) loop.kill('SIGKILL');
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

console.log(`${what} on the reference (with its properties at 1,000 runs), ${rounds} rounds each, ${cores} cores`);
const quiet = series('quiet machine');
const busy = underLoad(1);
const loaded = underLoad(6);
console.log(
  `  wall time against the quiet machine: ${(median(busy) / median(quiet)).toFixed(2)}x with a loop per core, ${(median(loaded) / median(quiet)).toFixed(2)}x with six`,
);
