// Grading stage 1 on the reference, against the obvious hand-rolled loop over the same cases in
// the same run: `npx tsx program.ts <command> <case> | cmp - expected.json`, one case after another.
// Run: node --import tsx bench/grade.ts [rounds]
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { loadCourse } from '../harness/course.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 3);
const stage = loadCourse(root).stages.find((candidate) => candidate.slug === 'config-and-framing')!;

function handRolled(): number {
  const started = performance.now();
  for (const testCase of stage.cases) {
    const output = execFileSync('npx', ['tsx', 'program.ts', testCase.command, testCase.casePath], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    const cmp = spawnSync('cmp', ['-', testCase.expectedPath], { input: output });
    if (cmp.status !== 0) throw new Error(`the hand-rolled loop failed ${testCase.casePath}`);
  }
  return performance.now() - started;
}

function grader(extra: string[] = []): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['bin/theinference.js', 'test', '--stage', stage.slug, '--no-color', ...extra], { cwd: root });
  if (run.status !== 0) throw new Error(`the grader failed:\n${run.stdout}${run.stderr}`);
  return performance.now() - started;
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const loop: number[] = [];
const ours: number[] = [];
const unsandboxed: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  loop.push(handRolled());
  ours.push(grader());
  unsandboxed.push(grader(['--no-sandbox']));
}
console.log(
  `stage ${stage.slug}: ${stage.cases.length} cases${stage.properties ? ` + the ${stage.properties} property suite` : ''}, median of ${rounds} rounds`,
);
console.log(`  hand-rolled loop (npx tsx | cmp): ${(median(loop) / 1000).toFixed(2)} s`);
console.log(`  theinference test:                ${(median(ours) / 1000).toFixed(2)} s`);
console.log(`  theinference test --no-sandbox:   ${(median(unsandboxed) / 1000).toFixed(2)} s`);
console.log(`  ratio: ${(median(ours) / median(loop)).toFixed(3)} (target <= 0.3); the sandbox costs ${(median(ours) / median(unsandboxed)).toFixed(2)}x`);
