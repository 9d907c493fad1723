// Runs the real `theinference` binary, as a student or CI would (or its main in this process, for the
// many gradings of the goldens), and normalises what varies from run to run (durations, scratch paths)
// so that its output can be compared with a golden file.
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { afterAll, expect } from 'vitest';
import { parse as parseYaml, parseDocument, type Scalar, type YAMLMap, type YAMLSeq } from 'yaml';
import { main } from '../../harness/cli.ts';
import { loadCourse, type Case, type Stage } from '../../harness/course.ts';

export const REPO = resolve(import.meta.dirname, '..', '..');
const BIN = join(REPO, 'bin', 'theinference.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliRun> {
  return new Promise((resolvePromise) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd ?? REPO, env: { ...process.env, NO_COLOR: '1', ...options.env }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, stdout, stderr });
      },
    );
  });
}

/**
 * `theinference test <args>` in this process, through the CLI's main with its output kept: what runCli
 * gives, without a process of its own. For the many gradings of the scenario goldens, each of which would
 * load the grader afresh; here each finds it loaded and warm, as a grading in watch mode does. Run in
 * the repository, as runCli by default, or in `cwd` (a course copy): this process's working folder is
 * that one until main returns (a worker runs one test at a time). The output is no terminal, so it has no colour.
 */
export async function runInProcess(args: ['test', ...string[]], options: { cwd?: string } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  // Loaded before the change of folder: esbuild, which the command loads when it first builds a script
  // of the harness (own-module.ts), keeps the folder it was loaded in as the working folder of every
  // process it starts later (in this worker, also once the copy is gone: a build then fails, ENOENT).
  await import('../../harness/commands/test.ts');
  createRequire(import.meta.url)('esbuild');
  const home = process.cwd();
  process.chdir(options.cwd ?? REPO);
  try {
    const code = await main([...args, '--no-color'], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
    return { code, stdout, stderr };
  } finally {
    process.chdir(home);
  }
}

/** Durations, scratch folders and the ports of HTTP players differ between runs; nothing else should. Positions in program.ts,
 *  the course's driver, are not the grader's doing: an edit to it must not change every trace. */
export function normalise(text: string): string {
  return text
    .replace(/\(program\.ts:\d+:\d+\)/g, '(program.ts:#:#)')
    .replace(/\d+\.\d+ s\b/g, '#.## s')
    .replace(/\d+ ms\b/g, '# ms')
    .replace(/\b127\.0\.0\.1:\d+/g, '127.0.0.1:<port>') // the port the grader's player took for the case
    .replaceAll(tmpdir(), '<tmp>')
    .replace(/<tmp>\/theinference-[A-Za-z0-9-]+/g, '<scratch>');
}

/**
 * The grader's whole output against its golden file (as expectGolden). A case the golden has no line
 * for, one added to the course after the golden was recorded, is left out of the comparison, and so
 * are the counts it changes: adding a case needs no edit to test/, and `UPDATE_GOLDEN=1` pins it.
 * Every case the golden has is compared in full. A new case that becomes the first to fail in its
 * stage changes what is shown of the others: then the golden has to be recorded again.
 */
export function expectGraderGolden(actual: string, goldenPath: string): void {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(goldenPath)) return expectGolden(actual, goldenPath);
  const [output, golden] = asGoldenSees(actual, readFileSync(goldenPath, 'utf8'));
  expect(output).toBe(golden);
}

/** The output and the golden as expectGraderGolden compares them: whole, or, when the output has checks
 *  the golden does not, both without those checks and with their counts masked. */
export function asGoldenSees(actual: string, golden: string): [string, string] {
  const known = caseKeys(golden);
  if ([...caseKeys(actual)].every((key) => known.has(key))) return [actual, golden];
  return [comparable(actual, known), comparable(golden, known)];
}

/** `  ✓ <name>  ...` or `  ✗ <name>  ...`: a check's line; its details follow, indented further. */
const CHECK_LINE = /^ {2}[✓✗] (.+?) {2}/;

/** Each check of the output, as `<stage heading> / <check name>`. */
function caseKeys(text: string): Set<string> {
  const keys = new Set<string>();
  let stage = '';
  for (const line of text.split('\n')) {
    if (line !== '' && !line.startsWith(' ')) stage = line;
    const name = CHECK_LINE.exec(line)?.[1];
    if (name !== undefined) keys.add(`${stage} / ${name}`);
  }
  return keys;
}

/** The output without the checks `known` does not have (with their details), counts masked. */
function comparable(text: string, known: Set<string>): string {
  const kept: string[] = [];
  let stage = '';
  let skipping = false;
  for (const line of text.split('\n')) {
    if (line !== '' && !line.startsWith(' ')) stage = line;
    const name = CHECK_LINE.exec(line)?.[1];
    if (name !== undefined) skipping = !known.has(`${stage} / ${name}`);
    else if (!line.startsWith('      ')) skipping = false;
    if (skipping) continue;
    kept.push(line.replace(/^ {2}\d+ passed, \d+ failed/, '  # passed, # failed').replace(/fails: \d+ of \d+ checks/, 'fails: # of # checks'));
  }
  return kept.join('\n');
}

/** Compares with the golden file, or writes it when UPDATE_GOLDEN=1 (then read the diff before committing). */
export function expectGolden(actual: string, goldenPath: string): void {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(goldenPath)) {
    writeFileSync(goldenPath, actual);
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`wrote the missing golden file ${goldenPath}: review it, then run again`);
    return;
  }
  expect(actual).toBe(readFileSync(goldenPath, 'utf8'));
}

/** A throwaway copy of this course to break or bless, with node_modules linked in. */
/** Course copies made when first asked for, one per key, each shaped by `shape`; removed after the file's tests. */
export function courseCopies(shape: (dir: string, key: string) => void): (key: string) => string {
  const copies = new Map<string, string>();
  afterAll(() => {
    for (const dir of copies.values()) rmSync(dir, { recursive: true, force: true });
  });
  return (key) => {
    let dir = copies.get(key);
    if (dir === undefined) {
      dir = courseCopy();
      shape(dir, key);
      copies.set(key, dir);
    }
    return dir;
  };
}

export function courseCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'course-copy-'));
  for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'src', 'cases', 'fixtures']) {
    cpSync(join(REPO, part), join(dir, part), { recursive: true });
  }
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** Writes the first server frame of the cassette at `file` twice, one after the other (a reply said
 *  twice): the lines the first and the second start on. */
export function answerTwice(file: string): { first: number; second: number } {
  const text = readFileSync(file, 'utf8');
  const from = text.indexOf('  - server:\n');
  const next = text.indexOf('\n  - ', from) + 1;
  const answer = text.slice(from, next);
  writeFileSync(file, text.slice(0, next) + answer + text.slice(next));
  const first = text.slice(0, from).split('\n').length;
  return { first, second: first + answer.split('\n').length - 1 };
}

/**
 * Keeps in the course copy `dir` only the first case of each command of each stage (those course.yaml
 * names to run `first`, where it names some), and those `also` names (`cases/<folder>/<case>` ends with
 * it): for a test of what a command does with stages, not of every case in them, which the scenario
 * and stage tests grade. Generated cases and properties stay. `stages`: only these are trimmed.
 */
export function trimCourse(dir: string, also: readonly string[] = [], stages?: readonly string[]): void {
  const table = parseYaml(readFileSync(join(dir, 'course.yaml'), 'utf8')) as { stages: { cases: { command: string; first?: string[] }[] }[] };
  const firsts = new Map(table.stages.flatMap((stage) => stage.cases.map((entry) => [entry.command, entry.first?.length ?? 0] as const)));
  const seen = new Map<string, number>();
  keepCases(dir, (stage, testCase) => {
    if (stages !== undefined && !stages.includes(stage.slug)) return true;
    const key = `${stage.slug} ${testCase.command}`;
    const rank = seen.get(key) ?? 0;
    seen.set(key, rank + 1);
    return rank < Math.max(1, firsts.get(testCase.command) ?? 0) || also.some((name) => testCase.casePath.endsWith(`/${name}`));
  });
}

/** Keeps of stage `stage` in the course copy `dir` only the cases of command `only`, or the case named `only`. */
export function keepOnly(dir: string, stage: string, only: string): void {
  keepCases(dir, (candidate, testCase) => candidate.slug !== stage || testCase.command === only || testCase.name === only);
}

/** Removes from the course copy `dir` every case `keep` turns down (asked in course order); its
 *  course.yaml loses the entries left without a case and the `first` names of cases gone. */
function keepCases(dir: string, keep: (stage: Stage, testCase: Case) => boolean): void {
  const commands = new Set<string>(); // `<stage> <command>` of a case kept
  const names = new Set<string>(); // `<stage> <case>` of a case kept
  for (const stage of loadCourse(dir).stages) {
    for (const testCase of stage.cases) {
      if (keep(stage, testCase)) {
        commands.add(`${stage.slug} ${testCase.command}`);
        names.add(`${stage.slug} ${testCase.name}`);
        continue;
      }
      rmSync(join(dir, testCase.casePath), { recursive: true });
      rmSync(testCase.fixtureDir, { recursive: true });
    }
  }
  const table = parseDocument(readFileSync(join(dir, 'course.yaml'), 'utf8'));
  let changed = false; // rewritten only then: the file stays byte for byte as it was otherwise
  for (const stage of (table.get('stages') as YAMLSeq<YAMLMap>).items) {
    const slug = String(stage.get('slug'));
    const entries = stage.get('cases') as YAMLSeq<YAMLMap>;
    const kept = entries.items.filter((entry) => commands.has(`${slug} ${String(entry.get('command'))}`));
    changed ||= kept.length < entries.items.length;
    entries.items = kept;
    for (const entry of entries.items) {
      const first = entry.get('first') as YAMLSeq<Scalar<string>> | undefined;
      if (first === undefined) continue;
      const named = first.items.filter((name) => names.has(`${slug} ${name.value}`));
      changed ||= named.length < first.items.length;
      first.items = named;
      if (named.length === 0) entry.delete('first');
    }
  }
  if (changed) writeFileSync(join(dir, 'course.yaml'), table.toString({ lineWidth: 0 }));
}

/** A broken solution: the reference with one mistake, test/scenarios/<name>/mistake.diff, applied
 *  in a throwaway folder. A diff that no longer applies fails the test that asked for it. */
export function scenarioSubmission(name: string): string {
  return patchedSubmission(join(REPO, 'test/scenarios', name, 'mistake.diff'));
}

/** Every submission folder made: some callers read one and leave it, none needs it once the worker ends. */
const submissions = new Set<string>();
process.once('exit', () => {
  for (const dir of submissions) rmSync(dir, { recursive: true, force: true });
});

/** A submission folder holding the reference src/mcp.ts with `diff` applied. */
export function patchedSubmission(diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), `submission-${basename(dirname(diff))}-`));
  submissions.add(dir);
  mkdirSync(join(dir, 'src'));
  cpSync(join(REPO, 'src/mcp.ts'), join(dir, 'src/mcp.ts'));
  try {
    execFileSync('git', ['apply', diff], { cwd: dir, stdio: 'pipe' });
  } catch (error) {
    throw new Error(`${diff} no longer applies to src/mcp.ts (re-make it with diff -u): ${String((error as { stderr?: Buffer }).stderr ?? error)}`);
  }
  return dir;
}
