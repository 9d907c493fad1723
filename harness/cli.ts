// argv -> one command function. Exit codes: 0 all pass, 1 the solution failed, 2 usage or infrastructure.
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CassetteError } from './cassette/format.ts';
import { CourseError, findCourseRoot, loadCourse, type Course, type Stage } from './course.ts';
import { gradeStage, type StageResult } from './grade/stage.ts';
import { DEFAULT_RUNS } from './props/run.ts';
import { TerminalReporter } from './report/terminal.ts';
import { programEnv } from './run/env.ts';
import { launcher, PROGRAM } from './run/launcher.ts';
import { scratchCopy } from './run/submission.ts';

const USAGE = `usage: theinference <command> [options]

  test [--stage <slug>] [--watch]   grade src/mcp.ts: the stage and every stage before it
       [--seed <n>] [--runs <n>]     property tests: replay a seed, number of runs (default ${DEFAULT_RUNS})
       [--timeout <seconds>]         per case, instead of the stage table's
       [--submission <dir>]          grade <dir>/src/ in a scratch copy of this course
       [--verbose] [--no-color]      relay stderr of passing cases too; plain text
       [--no-bundle]                 start every case through your_program.sh (slower; same bytes)
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
    if (error instanceof CourseError || error instanceof UsageError || error instanceof CassetteError) {
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
} satisfies ParseArgsConfig['options'];

export interface TestSettings {
  course: Course;
  /** The stages to grade, in the order to grade them; grading stops at the first that fails. */
  stages: Stage[];
  seed: number;
  runs: number;
  timeoutMs?: number;
  color: boolean;
  verbose: boolean;
  bundle: boolean;
}

async function test(args: string[]): Promise<number> {
  const { values } = parse(args, TEST_OPTIONS);
  const courseRoot = findCourseRoot(process.cwd());
  const scratch = values.submission === undefined ? undefined : scratchCopy(courseRoot, values.submission);
  try {
    const root = scratch?.root ?? courseRoot;
    const course = loadCourse(root);
    checkProgram(root);
    const settings: TestSettings = {
      course,
      stages: stagesToGrade(course, values.stage),
      seed: values.seed === undefined ? randomSeed() : integer('--seed', values.seed),
      runs: values.runs === undefined ? DEFAULT_RUNS : integer('--runs', values.runs),
      timeoutMs: values.timeout === undefined ? undefined : positive('--timeout', values.timeout) * 1000,
      color: useColor(values['no-color']),
      verbose: values.verbose ?? false,
      bundle: !values['no-bundle'],
    };
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
  const start = await launcher(settings.course.root, settings);
  const results: StageResult[] = [];
  for (const stage of settings.stages) {
    reporter.stageStart(stage);
    const result = await gradeStage(stage, {
      root: settings.course.root,
      launcher: start,
      env,
      color: settings.color,
      seed: settings.seed,
      propertyRuns: settings.runs,
      timeoutMs: settings.timeoutMs,
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

function positive(flag: string, text: string): number {
  const value = Number(text);
  if (!(value > 0)) throw new UsageError(`${flag} takes a positive number of seconds, not "${text}"`);
  return value;
}
