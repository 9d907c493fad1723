// What a program's own copy of the run root costs (root-copies.ts): stage 1 graded on the reference
// with each program shown a copy of its own (today's sandbox) against the same sandbox showing every
// program the run root's own files (as before: one set of inodes for the whole grading), alternating in
// the same run. Three ways a program starts: bundled (the course's own your_program.sh), bundled and
// started ahead (watch mode: the copy made as it starts, brought up to date at its go), and through tsx
// (a course whose your_program.sh is its own: the copy holds tsx and esbuild, 12 MB, too; a third of
// the cases, it is slow). CPU time (user + system), median of the rounds after a first that warms the
// caches: of the grader, which makes the copies, and of all, the grader and every process it started,
// counted in a cgroup of the bench's own where one can be made (as root; a sandbox's CPU does not reach
// its parent's count of its children: bwrap does not pass it on). The cost per program is the
// difference over the programs started (the cases and the property oracle).
// Run: node --import tsx bench/root-copies.ts [rounds]
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCourse, type Stage } from '../harness/course.ts';
import { gradeStage, prestartStages } from '../harness/grade/stage.ts';
import { caseCopy } from '../harness/run/case-copies.ts';
import { programEnv } from '../harness/run/env.ts';
import { launcher, type Launcher } from '../harness/run/launcher.ts';
import { packageFolders } from '../harness/run/packages.ts';
import { CASE_IN_SANDBOX, VISIBLE_PARTS, type Invocation, type Jail } from '../harness/run/sandbox.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

const repo = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 7);
const root = mkdtempSync(join(tmpdir(), 'root-copies-bench-'));
process.once('exit', () => rmSync(root, { recursive: true, force: true }));
for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'tsconfig.json', 'src', 'cases', 'fixtures']) {
  cpSync(join(repo, part), join(root, part), { recursive: true });
}
symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
const whole = loadCourse(root).stages.find((candidate) => candidate.slug === 'config-and-framing')!;
const third: Stage = { ...whole, cases: whole.cases.filter((_, index) => index % 3 === 0), properties: undefined };

/** The same sandbox, showing every program the run root's own files (the jail before root-copies.ts). */
function shared(jail: Jail, packages: readonly string[]): Jail {
  const binds = [...VISIBLE_PARTS.map((part) => join(root, part)), ...packageFolders(join(root, 'node_modules'), packages)]
    .filter((path) => existsSync(path))
    .flatMap((path) => ['--ro-bind', realpathSync(path), path]);
  const withRunRoot = (start: Invocation): Invocation => ({ ...start, argsFd: `${start.argsFd}${binds.join('\0')}\0` });
  return {
    ...jail,
    withRunRoot,
    showCase: (start, caseDir) => {
      const copy = caseCopy(caseDir);
      const own = withRunRoot(start);
      return {
        start: { ...own, argsFd: `${own.argsFd}${['--ro-bind', copy.path, join(root, CASE_IN_SANDBOX)].join('\0')}\0`, cleanup: copy.release },
        caseArg: CASE_IN_SANDBOX,
      };
    },
  };
}

/** The CPU time, in ms, of this process and every process it starts from now on: a cgroup (v2) of its
 *  own, where one can be made (removed once the processes in it have gone); none elsewhere. */
function allCpu(): { read(): number; close(): Promise<void> } | undefined {
  const current = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
  if (current === undefined) return undefined;
  for (const hierarchy of ['/sys/fs/cgroup/unified', '/sys/fs/cgroup']) {
    const own = join(hierarchy, current, `root-copies-bench-${process.pid}`);
    try {
      mkdirSync(own);
    } catch {
      continue;
    }
    try {
      writeFileSync(join(own, 'cgroup.procs'), String(process.pid));
    } catch {
      rmdirSync(own);
      continue;
    }
    // this process and those it still runs (esbuild's service), back where they were
    const back = () => {
      for (const pid of readFileSync(join(own, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          writeFileSync(join(hierarchy, current, 'cgroup.procs'), pid);
        } catch {
          // gone meanwhile
        }
      }
    };
    const onExit = () => {
      try {
        back();
        rmdirSync(own);
      } catch {
        // the bench failed with processes still in it: the kernel keeps it until they have gone
      }
    };
    process.once('exit', onExit);
    return {
      read: () => Number(/^usage_usec (\d+)$/m.exec(readFileSync(join(own, 'cpu.stat'), 'utf8'))![1]) / 1000,
      async close() {
        // the last programs killed are gone once the kernel has run their ends
        for (back(); readFileSync(join(own, 'cgroup.procs'), 'utf8').trim() !== ''; back()) await new Promise((resolve) => setTimeout(resolve, 50));
        rmdirSync(own);
        process.off('exit', onExit);
      },
    };
  }
  return undefined;
}
const all = allCpu();
const graderCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const env = programEnv();
type Way = { name: string; stage: Stage; copies: Launcher; shared: Launcher; ahead: boolean; programs: number };
const ways: Way[] = [];
for (const [name, bundle, ahead, stage] of [
  ['bundled', true, false, whole],
  ['bundled, started ahead', true, true, whole],
  ['through tsx', false, false, third],
] as const) {
  const copies = await launcher(root, { bundle });
  if (copies.jail.kind !== 'bwrap') throw new Error('needs bubblewrap');
  const packages = copies.command === process.execPath ? [] : ['tsx'];
  ways.push({
    name,
    stage,
    copies,
    shared: { ...copies, jail: shared(copies.jail, packages) },
    ahead,
    programs: stage.cases.length + (stage.properties ? 1 : 0),
  });
}

/** A grading's CPU time: the grader's, and all of it (where it can be counted). */
async function graded(way: Way, start: Launcher): Promise<{ grader: number; all?: number }> {
  const options = { runRoot: root, content: COURSE_CONTENT, launcher: start, env, seed: 1, propertyRuns: 20 };
  const before = { grader: graderCpu(), all: all?.read() };
  // started ahead, as watch mode starts them: their copies made as they start, brought up to date at their go
  const prestarted = way.ahead ? prestartStages([way.stage], options) : undefined;
  const result = await gradeStage(way.stage, { ...options, prestarted });
  prestarted?.cancelAll();
  if (!result.passed) throw new Error(`the reference failed ${way.stage.slug} (${way.name})`);
  return { grader: graderCpu() - before.grader, ...(all && { all: all.read() - before.all! }) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
console.log(`stage 1 on the reference, CPU time, median of ${rounds} alternating rounds:`);
if (!all) console.log("  (no cgroup of its own could be made here: the grader's CPU alone)");
for (const way of ways) {
  await graded(way, way.copies); // warm: the bundle, the caches
  await graded(way, way.shared);
  const times = { copies: [] as { grader: number; all?: number }[], shared: [] as { grader: number; all?: number }[] };
  for (let round = 0; round < rounds; round += 1) {
    times.copies.push(await graded(way, way.copies));
    times.shared.push(await graded(way, way.shared));
  }
  const line = (what: string, of: (time: { grader: number; all?: number }) => number) => {
    const [copies, common] = [median(times.copies.map(of)), median(times.shared.map(of))];
    return `${what} ${copies.toFixed(0)} ms with own copies, ${common.toFixed(0)} ms with shared files: ${(copies / common).toFixed(3)}x, ${((copies - common) / way.programs).toFixed(1)} ms a program`;
  };
  console.log(`  ${way.name} (${way.programs} programs):`);
  console.log(`    ${line('the grader:', (time) => time.grader)}`);
  if (all) console.log(`    ${line('all:       ', (time) => time.all!)}`);
}
await all?.close();
