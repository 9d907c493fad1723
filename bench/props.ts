// The framing property suite (4 properties x 1,000 runs) on the reference solution, the old way
// against the new way in the same run, alternating:
// - old: one child process imports the student's module and runs fast-check itself, reporting
//   outcomes on fd 3 (the runner before the oracle; its child is kept below, verbatim but for
//   its imports, so that the comparison stays honest after it left the harness);
// - new: runProperties, where fast-check runs here and an oracle process only answers calls.
// Then both judge a broken solution (test/scenarios/pretty-printed) and must find the same
// counterexamples. Where bubblewrap works, the new way is also timed with its oracle in the
// sandbox, for reading. Run: node --import tsx bench/props.ts [rounds]
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DEFAULT_RUNS } from '../harness/defaults.ts';
import type { PropertyOutcome } from '../harness/props/check.ts';
import { runProperties } from '../harness/props/run.ts';
import { bundle } from '../harness/run/bundle.ts';
import { moduleBundlePath } from '../harness/run/launcher.ts';
import { jailFor, sandboxAvailability } from '../harness/run/sandbox.ts';
import { DEFAULT_LIMITS, runProcess } from '../harness/run/spawn.ts';
import { suiteNamed } from '../harness/stages/index.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 7);
const SEED = 7;
const FRAMING = suiteNamed('framing')!;
const TIMEOUT_MS = 60_000;

/** The old child.ts (git show a9cf637:harness/props/child.ts), imports pointed at the harness. */
const OLD_CHILD = `
import { fstatSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { show, clip } from '../harness/props/show.ts';
import { describeThrown } from '../harness/props/suite.ts';
import { suiteNamed } from '../harness/stages/index.ts';
const PROTOCOL_FD = 3;
const stringify = JSON.stringify;
const now = performance.now.bind(performance);
const exit = process.exit.bind(process);
const protocolFd = (() => { try { fstatSync(PROTOCOL_FD); return PROTOCOL_FD; } catch { return 1; } })();
function send(message) {
  const bytes = Buffer.from(stringify(message) + '\\n');
  let written = 0;
  while (written < bytes.length) {
    try { written += writeSync(protocolFd, bytes, written); }
    catch (error) { if (error.code !== 'EAGAIN') throw error; }
  }
}
function usage(problem) { process.stderr.write('child.ts: ' + problem + '\\n'); exit(2); }
function integerOption(value, name) {
  const number = Number(value);
  if (value === undefined || !Number.isSafeInteger(number)) usage('--' + name + ' must be an integer');
  return number;
}
const { values } = parseArgs({ options: { suite: { type: 'string' }, module: { type: 'string' }, seed: { type: 'string' }, runs: { type: 'string' }, properties: { type: 'string' } } });
const suite = suiteNamed(values.suite ?? '') ?? usage('unknown --suite ' + String(values.suite));
const modulePath = values.module ?? usage('--module is required');
const seed = integerOption(values.seed, 'seed');
const runs = integerOption(values.runs, 'runs');
const asked = values.properties?.split(',') ?? suite.properties.map((check) => check.id);
const checks = asked.map((id) => suite.properties.find((check) => check.id === id) ?? usage('unknown property ' + id));
send({ type: 'ready' });
let student;
try { student = await import(pathToFileURL(modulePath).href); }
catch (error) { send({ type: 'unusable', message: modulePath + ' could not be loaded: ' + clip(describeThrown(error), 400) }); exit(0); }
const missing = suite.requiredExports.filter((name) => typeof student[name] !== 'function');
if (missing.length > 0) { send({ type: 'unusable', message: modulePath + ' does not export ' + missing.join(' and ') + ' as a function' }); exit(0); }
for (const check of checks) { send({ type: 'start', property: check.id }); send(runCheck(check, student)); }
send({ type: 'done' });
exit(0);
function runCheck(check, student) {
  const started = now();
  const details = fc.check(fc.property(check.arbitrary, (value) => { check.check(student, value); }), { seed, numRuns: runs });
  const outcome = { type: 'outcome', property: check.id, passed: !details.failed && !details.interrupted, numRuns: details.numRuns, numShrinks: details.numShrinks, seed: details.seed, durationMs: now() - started, interrupted: details.interrupted || undefined };
  if (!details.failed || details.counterexample === null) return outcome;
  const [value] = details.counterexample;
  return { ...outcome, counterexample: show(value), problem: clip(describeFailure(details.errorInstance)), explanation: safely(() => check.explain?.(student, value) ?? []) };
}
function describeFailure(error) {
  if (error instanceof Error && error.name === 'Broken') return error.message;
  return 'the check itself failed: ' + describeThrown(error);
}
function safely(lines) {
  try { return lines(); } catch (error) { return ['(could not explain the counterexample: ' + describeThrown(error) + ')']; }
}
`;

/** What the old child said of a property: the judge's outcome, named. */
interface OldOutcome extends PropertyOutcome {
  property: string;
}

// The old child lives beside the launcher's bundle, where its imports resolve.
mkdirSync(join(root, '.theinference'), { recursive: true });
const oldChild = join(root, '.theinference', `bench-props-old-child-${process.pid}.ts`);
writeFileSync(oldChild, OLD_CHILD);
const scratch = mkdtempSync(join(tmpdir(), 'bench-props-'));
process.once('exit', () => {
  rmSync(oldChild, { force: true });
  rmSync(scratch, { recursive: true, force: true });
});

/** The old runner's parent side, as run.ts did it: one child for the suite, outcomes off fd 3. */
async function oldWay(modulePath: string): Promise<OldOutcome[]> {
  const received: Buffer[] = [];
  let closed: Promise<void> = Promise.resolve();
  const args = [
    '--import',
    import.meta.resolve('tsx'),
    oldChild,
    '--suite',
    'framing',
    '--module',
    modulePath,
    '--seed',
    String(SEED),
    '--runs',
    String(DEFAULT_RUNS),
  ];
  const result = await runProcess(process.execPath, args, {
    cwd: root,
    env: process.env,
    limits: { ...DEFAULT_LIMITS, timeoutMs: TIMEOUT_MS },
    stdin: '',
    extraPipes: 1,
    onPipes: ([pipe]) => {
      pipe?.on('data', (chunk: Buffer) => received.push(chunk));
      closed = new Promise((resolve) => pipe?.on('close', () => resolve()));
    },
  });
  await closed;
  const outcomes = Buffer.concat(received)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"type":"outcome"'))
    .map((line) => JSON.parse(line) as OldOutcome);
  if (outcomes.length !== 4) throw new Error(`the old runner gave ${outcomes.length} outcomes (exit ${result.exitCode}): ${result.stderr.toString('utf8')}`);
  return outcomes;
}

const sandboxed = sandboxAvailability().available;
const jail = jailFor(root, { sandbox: true, network: false });

/** The new way, the module bundled as the launcher bundles it (in the bundler's sandbox when the oracle has one). */
async function newWay(modulePath: string, inSandbox = false) {
  const options = { runRoot: root, folder: dirname(modulePath), packages: [], sandbox: inSandbox };
  const [bundled] = await bundle([{ entry: modulePath, outfile: moduleBundlePath(root) }], options);
  return runProperties({
    suite: FRAMING,
    stage: 'config-and-framing',
    modulePath,
    bundled: bundled!,
    cwd: root,
    env: process.env,
    seed: SEED,
    runs: DEFAULT_RUNS,
    timeoutMs: TIMEOUT_MS,
    ...(inSandbox && { jail }),
  });
}

async function timed<T>(run: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const result = await run();
  return [performance.now() - started, result];
}

const reference = join(root, 'src', 'mcp.ts');
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const old: number[] = [];
const now: number[] = [];
const jailed: number[] = [];
await oldWay(reference); // warm the file system and tsx's cache for both
for (let round = 0; round < rounds; round += 1) {
  const [oldMs, outcomes] = await timed(() => oldWay(reference));
  const [newMs, verdicts] = await timed(() => newWay(reference));
  if (!outcomes.every((outcome) => outcome.passed) || !verdicts.every((verdict) => verdict.status === 'pass')) {
    throw new Error(`the reference did not pass: ${JSON.stringify({ outcomes, verdicts })}`);
  }
  old.push(oldMs);
  now.push(newMs);
  if (sandboxed) {
    const [jailedMs, inJail] = await timed(() => newWay(reference, true));
    if (!inJail.every((verdict) => verdict.status === 'pass')) throw new Error(`the reference did not pass in the sandbox: ${JSON.stringify(inJail)}`);
    jailed.push(jailedMs);
  }
}
console.log(`property suite framing: 4 properties x ${DEFAULT_RUNS} runs on src/mcp.ts, median of ${rounds} rounds`);
console.log(`  old (fast-check in the student's process): ${(median(old) / 1000).toFixed(3)} s`);
console.log(`  new (fast-check here, oracle answers):     ${(median(now) / 1000).toFixed(3)} s`);
console.log(`  ratio: ${(median(now) / median(old)).toFixed(3)} (target <= 1.5)`);
if (sandboxed) console.log(`  new, oracle in the sandbox (bwrap):        ${(median(jailed) / 1000).toFixed(3)} s (for reading; the old way had none)`);

// The same counterexamples, shrunk as far, on a broken solution.
const broken = join(scratch, 'src', 'mcp.ts');
mkdirSync(join(scratch, 'src'));
cpSync(reference, broken);
execFileSync('git', ['apply', join(root, 'test/scenarios/pretty-printed/mistake.diff')], { cwd: scratch, stdio: 'pipe' });
const [oldOutcomes, newVerdicts] = [await oldWay(broken), await newWay(broken)];
let same = true;
for (const [index, outcome] of oldOutcomes.entries()) {
  const verdict = newVerdicts[index]!;
  const oldText = outcome.passed
    ? 'pass'
    : [
        `${outcome.problem}`,
        `counterexample (found after ${outcome.numRuns}, shrunk ${outcome.numShrinks}): ${outcome.counterexample}`,
        ...(outcome.explanation ?? []),
      ].join('\n');
  const lines = verdict.details?.split('\n') ?? [];
  const found = /found after (\d+) runs?, shrunk (\d+) times?/.exec(lines[0] ?? '');
  const newText =
    verdict.status === 'pass'
      ? 'pass'
      : [verdict.message, `counterexample (found after ${found?.[1]}, shrunk ${found?.[2]}): ${lines[1]?.trim()}`, ...lines.slice(2, -2)].join('\n');
  if (oldText !== newText) {
    same = false;
    console.log(`  ${outcome.property} differs:\n    old: ${oldText}\n    new: ${newText}`);
  }
}
console.log(`  pretty-printed frame, seed ${SEED}: ${same ? 'the same verdicts and counterexamples both ways' : 'DIFFERENT verdicts (above)'}`);
if (!same) process.exitCode = 1;
