// A class graded by `theinference classroom`, one student at a time (--jobs 1) and two at once (--jobs 2),
// in the same run: N local repositories (the reference, the starter and the stage-1 broken solutions
// of test/scenarios/, in turn), every stage, one seed. Reports the class's total wall time and the time
// per student each way. Run: node --import tsx bench/classroom.ts [students] [--stage <slug>]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repo = join(import.meta.dirname, '..');
const students = Number(process.argv[2] ?? 30);
const stageAt = process.argv.indexOf('--stage');
const stage = stageAt > 0 ? ['--stage', process.argv[stageAt + 1]!] : [];
const work = mkdtempSync(join(tmpdir(), 'classroom-bench-'));
process.once('exit', () => rmSync(work, { recursive: true, force: true }));

/** The solutions the class hands in: the reference, the starter, each stage-1 mistake. */
const solutions = [
  join(repo, 'src/mcp.ts'),
  join(repo, 'starter/src/mcp.ts'),
  ...['crlf', 'pretty-printed', 'config-no-defaults', 'keys-sorted', 'no-newline'].map((mistake) => {
    const dir = join(work, `mistake-${mistake}`);
    mkdirSync(join(dir, 'src'), { recursive: true });
    cpSync(join(repo, 'src/mcp.ts'), join(dir, 'src/mcp.ts'));
    execFileSync('git', ['apply', join(repo, 'test/scenarios', mistake, 'mistake.diff')], { cwd: dir });
    return join(dir, 'src/mcp.ts');
  }),
];

const rows = ['student,student_repository_url'];
for (let index = 0; index < students; index += 1) {
  const dir = join(work, `student-${index}`);
  mkdirSync(join(dir, 'src'), { recursive: true });
  cpSync(solutions[index % solutions.length]!, join(dir, 'src/mcp.ts'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=s@example.com', '-c', 'user.name=s', 'add', '-A');
  git('-c', 'user.email=s@example.com', '-c', 'user.name=s', 'commit', '-qm', 'work');
  rows.push(`student-${index},file://${dir}`);
}
writeFileSync(join(work, 'roster.csv'), `${rows.join('\n')}\n`);

function gradeClass(jobs: number): number {
  const out = join(work, `gradebook-${jobs}`);
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [join(repo, 'bin/theinference.js'), 'classroom', '--roster', join(work, 'roster.csv'), '--out', out, '--jobs', String(jobs), '--seed', '1', ...stage],
    { cwd: repo, encoding: 'utf8' },
  );
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`classroom --jobs ${jobs} exited ${run.status}: ${run.stderr}${run.stdout.slice(-2000)}`);
  if (readdirSync(join(out, 'students')).length !== students) throw new Error(`classroom --jobs ${jobs} graded fewer than ${students} students`);
  return ms;
}

const one = gradeClass(1);
const two = gradeClass(2);
console.log(`classroom, ${students} students (${solutions.length} solutions in turn), ${stage.length > 0 ? `up to ${stage[1]}` : 'every stage'}, seed 1:`);
for (const [jobs, ms] of [
  [1, one],
  [2, two],
] as const) {
  console.log(`  --jobs ${jobs}: the class ${(ms / 1000).toFixed(1)} s, ${(ms / students / 1000).toFixed(2)} s per student`);
}
console.log(`  --jobs 2 / --jobs 1: ${(two / one).toFixed(2)}`);
