// `theinference classroom`: a whole class graded from the teacher's repository into a gradebook (the
// grade of record; a student's own workflow is feedback). See docs/ci.md, "Grading a class".
import { resolve } from 'node:path';
import { loadHiddenCases } from '../ci/hidden.ts';
import { parseShard, WHOLE } from '../ci/shard.ts';
import { HostError, UsageError } from '../errors.ts';
import { CORES } from '../run/pool.ts';
import { ENABLE_SANDBOX, sandboxAvailability } from '../run/sandbox.ts';
import { onInterrupt } from '../run/interrupt.ts';
import { count, seconds, seed } from './args.ts';
import { defineCommand, type Options, type Parsed } from './command.ts';
import { courseHere, stageIndex } from './course.ts';

/** CPU time a student's grading may take by default: a whole course's takes about a minute of it here. */
const DEFAULT_STUDENT_CPU_S = 600;

const OPTIONS = {
  roster: { type: 'string', value: '<csv>', help: "the students: a column naming each and one giving their repository (GitHub Classroom's export)" },
  out: {
    type: 'string',
    value: '<dir>',
    help: "the gradebook's folder: gradebook.csv, .html, .json, each student's reports and the teacher's;\nnew, empty, or an earlier run's of this class, whose students graded are kept",
  },
  regrade: {
    type: 'string',
    multiple: true,
    value: '<student>[,...]',
    help: 'grade these students again (as the roster names them) into the gradebook --out holds;\nevery other row and folder is kept as it is',
  },
  cases: { type: 'string', value: '<dir>', help: 'hidden cases, given to every student (cases/ and fixtures/ as in the course)' },
  deadline: { type: 'string', value: '<time>', help: 'grade the last commit made before it (ISO 8601), where the roster pins none' },
  jobs: { type: 'string', value: '<n>', help: `students graded at once (default 1, at most the cores: ${CORES})` },
  shard: { type: 'string', value: '<i>/<n>', help: 'grade part i of n of the roster; join the gradebooks with merge-reports --gradebook' },
  seed: {
    type: 'string',
    value: '<n>',
    help: "the generated cases and property tests of every student (default: the earlier run's, else\none made from the course and the roster, the same on every shard; printed)",
  },
  'student-cpu': {
    type: 'string',
    value: '<seconds>',
    help: `CPU time one student's grading may take, the grader's and its programs' (default ${DEFAULT_STUDENT_CPU_S});\npast it, the student's row is an error`,
  },
  stage: { type: 'string', value: '<slug|n>', help: 'grade that stage (its name or number) and the stages before it (default: every stage)' },
  runs: { type: 'string', value: '<n>', help: 'property tests: runs of each' },
  random: { type: 'string', value: '<n>', help: 'generated cases per command (0 for none)' },
  timeout: { type: 'string', value: '<seconds>', help: "CPU time per case, instead of the stage table's" },
  memory: { type: 'string', value: '<MiB>', help: 'memory limit per case: all it makes (docs/ci.md, Limits)' },
  'no-network': { type: 'boolean', help: 'no network even without a sandbox' },
  'no-sandbox': { type: 'boolean', help: 'grade without the sandbox (not for a grade of record: see docs/ci.md)' },
} as const satisfies Options;

/** The options handed on, as they are, to each student's `theinference test`. */
const HANDED_ON = ['stage', 'runs', 'random', 'timeout', 'memory', 'no-network', 'no-sandbox'] as const;

export const command = defineCommand({
  name: 'classroom',
  synopsis: '--roster <csv> --out <dir>',
  summary: "grade a class: each student's src/, fetched from their repository, into a gradebook",
  options: OPTIONS,
  run: ({ values }, output) => classroom(values, (text) => output.out(text)),
});

async function classroom(values: Parsed<typeof OPTIONS>['values'], write: (text: string) => void): Promise<number> {
  if (values.roster === undefined || values.out === undefined) throw new UsageError('classroom needs --roster <csv> and --out <dir>');
  const course = courseHere();
  const shard = values.shard === undefined ? WHOLE : parseShard(values.shard);
  if (shard === undefined) throw new UsageError(`--shard takes <i>/<n> with 1 <= i <= n, e.g. 2/4, not "${values.shard}"`);
  const deadline = values.deadline === undefined ? undefined : new Date(values.deadline);
  if (deadline !== undefined && Number.isNaN(deadline.getTime())) throw new UsageError(`--deadline takes a date and time (ISO 8601), not "${values.deadline}"`);
  const last = values.stage === undefined ? course.stages.length - 1 : stageIndex(course, values.stage);
  const jobs = values.jobs === undefined ? 1 : Math.min(count('--jobs', values.jobs, 1000), CORES);
  if (jobs < 1) throw new UsageError('--jobs takes 1 or more');
  // checked once here rather than failing every student alike
  if (values.cases !== undefined) loadHiddenCases(resolve(values.cases), course);
  if (!values['no-sandbox'] && !sandboxAvailability().available)
    throw new HostError(`no sandbox can be made here (${sandboxAvailability().reason}): ${ENABLE_SANDBOX}`);
  const testArgs = HANDED_ON.flatMap((name) => {
    const value = values[name];
    return value === undefined || value === false ? [] : value === true ? [`--${name}`] : [`--${name}`, value];
  });
  const { gradeClass } = await import('../classroom/grade.ts');
  const interruption = onInterrupt();
  try {
    const code = await gradeClass({
      course,
      stages: course.stages.slice(0, last + 1),
      roster: resolve(values.roster),
      out: resolve(values.out),
      ...(values.regrade !== undefined && { regrade: values.regrade }),
      ...(values.seed !== undefined && { seed: seed('--seed', values.seed) }),
      studentCpuMs: (values['student-cpu'] === undefined ? DEFAULT_STUDENT_CPU_S : seconds('--student-cpu', values['student-cpu'], 24 * 3600)) * 1000,
      shard,
      jobs,
      ...(deadline && { deadline }),
      ...(values.cases !== undefined && { hiddenDir: resolve(values.cases) }),
      testArgs,
      ...(process.env.CLASSROOM_TOKEN && { token: process.env.CLASSROOM_TOKEN }),
      write,
      signal: interruption.signal,
    });
    return interruption.exitCode ?? code;
  } finally {
    interruption.dispose();
  }
}
