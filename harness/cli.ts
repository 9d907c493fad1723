// argv -> one command function. Exit codes: 0 all pass, 1 the solution failed, 2 usage or infrastructure.
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CassetteError } from './cassette/format.ts';
import { CourseError, findCourseRoot, loadCourse, type Course, type Stage } from './course.ts';
import { gradeStage, type StageResult } from './grade/stage.ts';
import { DEFAULT_RUNS } from './props/run.ts';
import { TerminalReporter } from './report/terminal.ts';
import { GENERATED_PER_COMMAND } from './ci/defaults.ts';
import { MergeError } from './report/merge.ts';
import { programEnv } from './run/env.ts';
import { launcher, PROGRAM } from './run/launcher.ts';
import { DEFAULT_MEMORY_BYTES } from './run/spawn.ts';
import { scratchCopy } from './run/submission.ts';

const USAGE = `usage: theinference <command> [options]

  test [--stage <slug>] [--watch]   grade src/mcp.ts: the stage and every stage before it
       [--seed <n>] [--runs <n>]     property tests: replay a seed, number of runs (default ${DEFAULT_RUNS})
       [--timeout <seconds>]         per case, instead of the stage table's
       [--submission <dir>]          grade <dir>/src/ in a scratch copy of this course
       [--memory <MiB>]              memory (RSS) limit per case (default ${DEFAULT_MEMORY_BYTES / 1024 / 1024})
       [--no-network]                start each case without network (Linux, unshare)
       [--verbose] [--no-color]      relay stderr of passing cases too; plain text
       [--no-bundle]                 start every case through your_program.sh (slower; same bytes)
     CI grading (any of these; see docs/ci.md):
       [--all]                       grade every stage, not stopping at the first that fails
       [--report <file>]             write results.json
       [--junit <file>]              write JUnit XML
       [--cases <dir>]               add hidden cases (cases/ and fixtures/ as in the course)
       [--shard <i>/<n>]             grade part i of n; merge the reports with merge-reports
       [--random <n>]                generated cases per command (default ${GENERATED_PER_COMMAND}; 0 for none)
  merge-reports --report <file> [--junit <file>] <shard.json...>   one report from the shards' reports
  list                              the stages, and which pass
  bless [--stage <slug>]            rewrite expected.json from the reference solution (course authors)
  record --out <cassette> -- <server command...>   record a real MCP server (stdio)
  replay <cassette>                 play a cassette as a stdio MCP server
  lint <cassette>                   check a cassette
  verify <cassette> -- <server command...>         replay a cassette's client side against a live server

exit codes: 0 pass, 1 the solution failed, 2 usage or infrastructure error`;

/** A mistake in how theinference was called or set up: one line, exit 2. */
class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  try {
    switch (command) {
      case 'test':
        return await test(args);
      case 'list':
        return await list(args);
      case 'merge-reports':
        return await mergeReportFiles(args);
      case 'bless': {
        const { bless } = await import('./bless.ts');
        return await bless(args);
      }
      case 'record':
      case 'replay':
      case 'lint':
      case 'verify': {
        const commands = await import('./cassette/commands.ts');
        return await commands[command](args);
      }
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof CourseError || error instanceof UsageError || error instanceof CassetteError || error instanceof MergeError) {
      console.error(`theinference: ${error.message}`);
      if (error instanceof UsageError) console.error(`run \`theinference help\` for the commands and options`);
      return 2;
    }
    throw error;
  }
}

const TEST_OPTIONS = {
  stage: { type: 'string' },
  watch: { type: 'boolean' },
  seed: { type: 'string' },
  runs: { type: 'string' },
  timeout: { type: 'string' },
  submission: { type: 'string' },
  verbose: { type: 'boolean' },
  'no-color': { type: 'boolean' },
  'no-bundle': { type: 'boolean' },
  memory: { type: 'string' },
  'no-network': { type: 'boolean' },
  all: { type: 'boolean' },
  report: { type: 'string' },
  junit: { type: 'string' },
  cases: { type: 'string' },
  shard: { type: 'string' },
  random: { type: 'string' },
} satisfies ParseArgsConfig['options'];

/** The options that make `test` a CI run: every stage's results kept, reports written. */
const CI_OPTIONS = ['all', 'report', 'junit', 'cases', 'shard', 'random'] as const;

export interface TestSettings {
  course: Course;
  /** Where the program runs: the course, or a scratch copy of a submission. */
  runRoot: string;
  /** The stages to grade, in the order to grade them; grading stops at the first that fails. */
  stages: Stage[];
  seed: number;
  runs: number;
  timeoutMs?: number;
  memoryBytes: number;
  network: boolean;
  color: boolean;
  verbose: boolean;
  bundle: boolean;
}

async function test(args: string[]): Promise<number> {
  const { values } = parse(args, TEST_OPTIONS);
  const courseRoot = findCourseRoot(process.cwd());
  // The stage table and the expected outputs always come from the course, never from a submission.
  const course = loadCourse(courseRoot);
  checkProgram(courseRoot);
  const common = {
    stages: stagesToGrade(course, values.stage),
    seed: values.seed === undefined ? randomSeed() : integer('--seed', values.seed),
    runs: values.runs === undefined ? DEFAULT_RUNS : integer('--runs', values.runs),
    timeoutMs: values.timeout === undefined ? undefined : positive('--timeout', values.timeout) * 1000,
    memoryBytes: values.memory === undefined ? DEFAULT_MEMORY_BYTES : positive('--memory', values.memory, 'MiB') * 1024 * 1024,
    network: !values['no-network'],
    color: useColor(values['no-color']),
    verbose: values.verbose ?? false,
    bundle: !values['no-bundle'],
  };
  if (CI_OPTIONS.some((option) => values[option] !== undefined)) {
    if (values.watch) throw new UsageError(`--watch grades as you save; it does not go with ${CI_OPTIONS.map((option) => `--${option}`).join(', ')}`);
    const { gradeSubmission } = await import('./ci/grade.ts');
    const { parseShard, WHOLE } = await import('./ci/shard.ts');
    const shard = values.shard === undefined ? WHOLE : parseShard(values.shard);
    if (shard === undefined) throw new UsageError(`--shard takes <i>/<n> with 1 <= i <= n, e.g. 2/4, not "${values.shard}"`);
    if (values.report !== undefined) checkWritable('--report', values.report);
    if (values.junit !== undefined) checkWritable('--junit', values.junit);
    return await gradeSubmission({
      ...common,
      courseRoot,
      course,
      submission: values.submission ?? courseRoot,
      all: values.all ?? false,
      hiddenDir: values.cases,
      generatedPerCommand: values.random === undefined ? GENERATED_PER_COMMAND : count('--random', values.random),
      shard,
      reportPath: values.report,
      junitPath: values.junit,
      write: (text) => process.stdout.write(text),
    });
  }
  const scratch = values.submission === undefined ? undefined : scratchCopy(courseRoot, values.submission);
  try {
    if (scratch && !scratch.facts.hasEntryPoint) console.log(`note: ${values.submission} has no src/mcp.ts: every check will fail\n`);
    const settings: TestSettings = { ...common, course, runRoot: scratch?.root ?? courseRoot };
    if (values.watch) {
      const { watch } = await import('./run/watch.ts');
      return await watch(settings);
    }
    return exitCode(await gradeStages(settings));
  } finally {
    scratch?.remove();
  }
}

/** Grades stages in order, printing as it goes, and stops at the first that fails. */
export async function gradeStages(settings: TestSettings, signal?: AbortSignal): Promise<StageResult[]> {
  const reporter = new TerminalReporter((text) => process.stdout.write(text), settings);
  const env = programEnv();
  const ownLauncher = await launcher(settings.runRoot, settings);
  const start = settings.network ? ownLauncher : (await import('./ci/network.ts')).withoutNetwork()(ownLauncher);
  const results: StageResult[] = [];
  for (const stage of settings.stages) {
    reporter.stageStart(stage);
    const result = await gradeStage(stage, {
      root: settings.runRoot,
      launcher: start,
      env,
      color: settings.color,
      seed: settings.seed,
      propertyRuns: settings.runs,
      timeoutMs: settings.timeoutMs,
      memoryBytes: settings.memoryBytes,
      signal,
      onVerdict: (verdict) => reporter.verdict(verdict),
    });
    if (signal?.aborted) return results;
    reporter.stageEnd(result);
    results.push(result);
    if (!result.passed) break;
  }
  reporter.summary(results, settings.seed);
  return results;
}

export function exitCode(results: StageResult[]): number {
  if (results.some((result) => result.verdicts.some((verdict) => verdict.status === 'infra'))) return 2;
  return results.every((result) => result.passed) ? 0 : 1;
}

/** `--stage S`: S first, then the stages before it (a regression is a failure). No flag: all, in order. */
function stagesToGrade(course: Course, slug: string | undefined): Stage[] {
  if (slug === undefined) return course.stages;
  const index = course.stages.findIndex((stage) => stage.slug === slug);
  if (index < 0) throw new UsageError(`unknown stage "${slug}" (known: ${course.stages.map((stage) => stage.slug).join(', ')})`);
  return [course.stages[index]!, ...course.stages.slice(0, index).reverse()];
}

async function list(args: string[]): Promise<number> {
  parse(args, {});
  const course = loadCourse(findCourseRoot(process.cwd()));
  checkProgram(course.root);
  const env = programEnv();
  const color = useColor(false);
  const seed = randomSeed();
  const start = await launcher(course.root, { bundle: true });
  console.log('stages, in course order:');
  for (const [index, stage] of course.stages.entries()) {
    const result = await gradeStage(stage, { root: course.root, launcher: start, env, color, seed, propertyRuns: DEFAULT_RUNS });
    const passed = result.verdicts.filter((verdict) => verdict.status === 'pass').length;
    const mark = result.passed ? '✓' : '✗';
    console.log(`  ${index + 1}. ${mark} ${stage.slug.padEnd(22)} ${stage.title.padEnd(28)} ${passed}/${result.verdicts.length} checks pass`);
  }
  return 0;
}

export function checkProgram(root: string): void {
  const path = join(root, PROGRAM);
  try {
    accessSync(path, constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CourseError(
      code === 'ENOENT'
        ? `${PROGRAM} is missing in ${root} (the grader runs \`./${PROGRAM} <command> <case-dir>\`)`
        : `${PROGRAM} is not executable (run \`chmod +x ${PROGRAM}\`)`,
    );
  }
  readFileSync(path); // readable, too
}

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

export function useColor(disabled: boolean | undefined): boolean {
  return !disabled && process.stdout.isTTY === true && !('NO_COLOR' in process.env);
}

function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, not "${text}"`);
  return Number(text);
}

function positive(flag: string, text: string, unit = 'seconds'): number {
  const value = Number(text);
  if (!(value > 0)) throw new UsageError(`${flag} takes a positive number of ${unit}, not "${text}"`);
  return value;
}

function count(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number >= 0, not "${text}"`);
  return Number(text);
}

/** A report path is checked before grading: finding out after minutes of grading is too late. */
function checkWritable(flag: string, path: string): void {
  const folder = dirname(resolve(path));
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new CourseError(`${flag} ${path}: cannot write it, the folder ${folder} does not exist`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new CourseError(`${flag} ${path}: cannot write it, it is a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new CourseError(`${flag} ${path}: cannot write it, the folder ${folder} is not writable`);
  }
}

const MERGE_OPTIONS = { report: { type: 'string' }, junit: { type: 'string' } } satisfies ParseArgsConfig['options'];

/** merge-reports --report <file> [--junit <file>] <shard report...>: exit code as the merged run's. */
async function mergeReportFiles(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args, options: MERGE_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.report === undefined) throw new UsageError('merge-reports needs --report <file> for the merged results');
  if (positionals.length === 0) throw new UsageError('merge-reports needs the shards\' results.json files');
  checkWritable('--report', values.report);
  if (values.junit !== undefined) checkWritable('--junit', values.junit);
  const { mergeReports, readReport } = await import('./report/merge.ts');
  const { writeResults, writeAtomically } = await import('./report/json.ts');
  const { toJUnit } = await import('./report/junit.ts');
  const merged = mergeReports(positionals.map((path) => ({ path, report: readReport(path) })));
  writeResults(values.report, merged);
  if (values.junit !== undefined) writeAtomically(values.junit, toJUnit(merged));
  const shards = merged.mergedShards?.length ?? 1;
  console.log(`merged ${positionals.length} report${positionals.length === 1 ? '' : 's'} (${shards} shard${shards === 1 ? '' : 's'}): ${merged.status}, ${merged.counts.pass} of ${merged.counts.total} checks pass${merged.problems.length > 0 ? `; ${merged.problems.join('; ')}` : ''}`);
  return merged.exitCode;
}
