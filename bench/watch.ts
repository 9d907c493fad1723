// Watch mode, save to verdict: the median time from writing src/mcp.ts to the first case's verdict
// line, and to the line that says the whole grade is complete; with the next grading's programs
// started ahead (the default) and without (--no-prestart), in the same run, alternating. Between
// saves the student reads the verdict (READ_MS): that is when the programs are started ahead.
// A save that keeps what frame and parseFrame answer (any save of a passing solution) lets the
// property suite take its last verdicts once the oracle has answered the same; a third watcher
// saves the reference and the pretty-printed mistake in turn, so that every save is judged afresh.
// A fourth runs the grader as issue 10 found it (commit ISSUE_10_FOUND, its own course and
// reference, extracted with git archive): today's way, in the same run. A clone without that commit
// leaves it out and says so. A fifth runs it as issue 30 found it (ISSUE_30_FOUND: before the bundler was
// confined to src/ and each case got a network of its own), whose save to verdict today's keeps within 1.1x.
// A sixth and a seventh run it as issue 45 found it (ISSUE_45_FOUND: before the bundler ran in a sandbox of
// its own), with saves that keep the answers and saves that change them, which today's keeps within 1.1x.
// A student runs one watcher: before each save the bench waits, past the read, until no watcher is
// computing, so that a save is never timed against another watcher still starting its programs ahead.
// A grading of the reference that does not pass (four graders at once load the machine; the grader as
// issue 10 found it timed its properties out there) is counted, and its failing lines shown.
// Runs on scratch copies so the repo is not touched.
// Run: node --import tsx bench/watch.ts [saves]
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { treeUsage } from '../harness/processes.ts';

const repo = join(import.meta.dirname, '..');
const saves = Number(process.argv[2] ?? 20);
/** How long a student takes to read a verdict before the next save. */
const READ_MS = 2000;
/** Quiet: the watchers used less than QUIET_MS of CPU in LOOK_MS. */
const LOOK_MS = 250;
const QUIET_MS = 10;
/** The last commit before the work of issue 10 (instant feedback) began. */
const ISSUE_10_FOUND = 'ea3c845';
/** The last commit before the work of issue 30 (a submission is only its own source) began. */
const ISSUE_30_FOUND = '1ac9c8b';
/** The last commit before the work of issue 45 (the bundle is made inside the sandbox) began. */
const ISSUE_45_FOUND = 'e2c81a9';

interface Watcher {
  child: ChildProcess;
  course: string;
  /** Resolves at the next complete verdict with the time of its first case line. */
  next(): Promise<number | undefined>;
  /** Gradings of the reference that did not pass (four graders at once load the machine): the failing lines of each. */
  failed: string[];
}

/** A watcher on a scratch copy of the course; `grader` is the repo whose bin runs (this one, or an old tree). */
function startWatch(extra: string[], { mustPass = true, grader = repo } = {}): Watcher {
  const course = mkdtempSync(join(tmpdir(), 'watch-bench-'));
  for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'src', 'cases', 'fixtures']) {
    cpSync(join(grader, part), join(course, part), { recursive: true });
  }
  symlinkSync(join(repo, 'node_modules'), join(course, 'node_modules'), 'dir');
  const child = spawn(process.execPath, [join(grader, 'bin/theinference.js'), 'test', '--stage', 'config-and-framing', '--watch', '--no-color', ...extra], {
    cwd: course,
  });
  let output = '';
  let firstVerdictAt: number | undefined;
  let waiter: ((first: number | undefined) => void) | undefined;
  const failed: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (firstVerdictAt === undefined && /^ {2}[✓✗] /m.test(output)) firstVerdictAt = performance.now();
    if (output.includes('[watch] waiting for changes')) {
      if (mustPass && !output.includes('all graded stages pass'))
        failed.push(
          output
            .split('\n')
            .filter((line) => line.startsWith('  ✗'))
            .join('\n'),
        );
      output = '';
      const first = firstVerdictAt;
      firstVerdictAt = undefined;
      waiter?.(first);
    }
  });
  return { child, course, failed, next: () => new Promise((resolve) => (waiter = resolve)) };
}

/** The repo as it was at `commit`, in a scratch folder sharing this repo's node_modules; none if this clone lacks it. */
function oldTree(commit: string): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'watch-bench-old-'));
  try {
    execFileSync('sh', ['-c', `git -C "$1" archive "$2" | tar -x -C "$3"`, 'sh', repo, commit, dir], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    console.log(`(this clone does not have commit ${commit}: the grader as it was then is left out)`);
    return undefined;
  }
  symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

const old = oldTree(ISSUE_10_FOUND);
const before30 = oldTree(ISSUE_30_FOUND);
const before45 = oldTree(ISSUE_45_FOUND);
const AS_45 = `as issue 45 found it (${ISSUE_45_FOUND})`;
const AS_45_CHANGED = `as issue 45 found it, answers changed`;
const ways: Record<string, Watcher> = {
  'started ahead': startWatch([]),
  'started on save (--no-prestart)': startWatch(['--no-prestart']),
  'started ahead, answers changed': startWatch([], { mustPass: false }),
  ...(old && { [`as issue 10 found it (${ISSUE_10_FOUND})`]: startWatch([], { grader: old }) }),
  ...(before30 && { [`as issue 30 found it (${ISSUE_30_FOUND})`]: startWatch([], { grader: before30 }) }),
  ...(before45 && { [AS_45]: startWatch([], { grader: before45 }), [AS_45_CHANGED]: startWatch([], { grader: before45, mustPass: false }) }),
};
const sources = new Map(Object.keys(ways).map((name) => [name, readFileSync(join(ways[name]!.course, 'src/mcp.ts'), 'utf8')]));
await Promise.all(Object.values(ways).map((way) => way.next())); // the first grade, at start
const broken = applied(join(repo, 'test/scenarios/pretty-printed/mistake.diff'));
const times: Record<string, { whole: number[]; first: number[] }> = {};
// Each save starts with the next way in turn: the way graded first meets the programs the last one is
// still starting ahead (a few CPU-seconds on two cores), and no way should always be that one.
const order = Object.entries(ways);
for (let save = 0; save < saves; save += 1) {
  for (const [name, way] of order.map((_, at) => order[(save + at) % order.length]!)) {
    await new Promise((resolve) => setTimeout(resolve, READ_MS));
    await quiet();
    const started = performance.now();
    const graded = way.next();
    const changed = (name === 'started ahead, answers changed' || name === AS_45_CHANGED) && save % 2 === 0;
    writeFileSync(join(way.course, 'src/mcp.ts'), `${changed ? broken : sources.get(name)}// save ${save}\n`);
    const first = await graded;
    (times[name] ??= { whole: [], first: [] }).whole.push(performance.now() - started);
    times[name].first.push(first! - started);
  }
}
for (const way of Object.values(ways)) {
  way.child.kill('SIGINT');
  await new Promise((resolve) => way.child.once('exit', resolve));
  rmSync(way.course, { recursive: true, force: true });
}
for (const tree of [old, before30, before45]) if (tree) rmSync(tree, { recursive: true, force: true });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
console.log(`watch, ${saves} saves of src/mcp.ts each way (a ${READ_MS / 1000} s read between), stage config-and-framing on the reference:`);
for (const [name, { whole, first }] of Object.entries(times)) {
  const failed = ways[name]!.failed;
  const failures = failed.length === 0 ? '' : `; the reference failed ${failed.length} of ${saves + 1} gradings:\n${failed[0]}`;
  console.log(`  ${name.padEnd(36)} first case ${median(first).toFixed(0).padStart(5)} ms, whole stage ${median(whole).toFixed(0).padStart(5)} ms${failures}`);
}
const whole = (name: string) => median(times[name]!.whole);
const ahead = whole('started ahead');
/** Resolves once the watchers' process trees, together, used under QUIET_MS of CPU over a look of LOOK_MS. */
async function quiet(): Promise<void> {
  const used = () => Object.values(ways).reduce((sum, way) => sum + treeUsage(way.child.pid!).cpuMs, 0);
  for (let before = used(); ; ) {
    await new Promise((resolve) => setTimeout(resolve, LOOK_MS));
    const now = used();
    if (now - before < QUIET_MS) return;
    before = now;
  }
}

/** src/mcp.ts with a scenario's mistake applied, in a scratch folder. */
function applied(diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'watch-bench-mistake-'));
  cpSync(join(repo, 'src'), join(dir, 'src'), { recursive: true });
  execFileSync('git', ['apply', diff], { cwd: dir });
  const text = readFileSync(join(dir, 'src/mcp.ts'), 'utf8');
  rmSync(dir, { recursive: true, force: true });
  return text;
}
console.log(`  started ahead / --no-prestart: ${(ahead / whole('started on save (--no-prestart)')).toFixed(2)}`);
if (old)
  console.log(
    `  started ahead / as issue 10 found it: ${(ahead / whole(`as issue 10 found it (${ISSUE_10_FOUND})`)).toFixed(2)} (target: whole stage <= 500 ms, <= 0.25x)`,
  );
if (before30)
  console.log(`  started ahead / as issue 30 found it: ${(ahead / whole(`as issue 30 found it (${ISSUE_30_FOUND})`)).toFixed(2)} (target: <= 1.1x)`);
if (before45) {
  console.log(`  started ahead / as issue 45 found it: ${(ahead / whole(AS_45)).toFixed(2)} (target: <= 1.1x)`);
  console.log(`  answers changed / as issue 45 found it: ${(whole('started ahead, answers changed') / whole(AS_45_CHANGED)).toFixed(2)} (target: <= 1.1x)`);
}
