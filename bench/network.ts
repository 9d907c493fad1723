// Grading stage 4 (streamable-http) on the reference in a network namespace of each program's own (the
// default: each case reaches its player through its gate, player-gate.ts) against the machine's shared
// loopback (`--network`), alternating in the same run. Target: the default within 1.15x of shared.
// Run: node --import tsx bench/network.ts [rounds]
import { join } from 'node:path';
import { loadCourse } from '../harness/course.ts';
import { gradeStage } from '../harness/grade/stage.ts';
import { programEnv } from '../harness/run/env.ts';
import { launcher } from '../harness/run/launcher.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 7);
const stage = loadCourse(root).stages.find((candidate) => candidate.slug === 'streamable-http')!;
const env = programEnv();
const own = await launcher(root, { bundle: true });
const shared = await launcher(root, { bundle: true, network: true });
if (own.jail.network || !shared.jail.network || own.jail.kind !== 'bwrap')
  throw new Error('needs bubblewrap: one launcher with a network of its own, one shared');

async function graded(start: typeof own): Promise<{ wallMs: number; cpuMs: number }> {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const result = await gradeStage(stage, { runRoot: root, content: COURSE_CONTENT, launcher: start, env, seed: 1, propertyRuns: 1 });
  if (!result.passed) throw new Error('the reference failed streamable-http');
  const used = process.cpuUsage(cpu);
  return { wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
await graded(own); // warm: the bundle, the cassettes parsed once
const times = { own: [] as number[], shared: [] as number[], ownCpu: [] as number[], sharedCpu: [] as number[] };
for (let round = 0; round < rounds; round += 1) {
  const a = await graded(own);
  const b = await graded(shared);
  times.own.push(a.wallMs);
  times.ownCpu.push(a.cpuMs);
  times.shared.push(b.wallMs);
  times.sharedCpu.push(b.cpuMs);
}
console.log(`streamable-http, ${stage.cases.length} cases, median of ${rounds} alternating rounds:`);
console.log(`  own network + gate: ${median(times.own).toFixed(0)} ms wall, grader ${median(times.ownCpu).toFixed(0)} ms CPU`);
console.log(`  shared loopback:    ${median(times.shared).toFixed(0)} ms wall, grader ${median(times.sharedCpu).toFixed(0)} ms CPU`);
console.log(`  ratio (wall): ${(median(times.own) / median(times.shared)).toFixed(3)}x (target <= 1.15x)`);
