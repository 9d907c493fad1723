// The grader's side of the property tests. fast-check generates, shrinks and decides in this
// process (check.ts); the student's module runs in an oracle process (oracle.ts, oracle-session.ts)
// that only answers calls, so nothing the student's code does there can forge a verdict. This
// file keeps an oracle going across the suite (a fresh one after one dies, while time remains)
// and turns each property's outcome, or what stopped it, into one Verdict. A property whose
// calls ended an oracle gets the crash or timeout verdict; the properties after it go on.
import { DEFAULT_RUNS, STARVED_WALL_FACTOR } from '../defaults.ts';
import type { Verdict } from '../run/verdict.ts';
import { BundleRefusal, BundlerFailure, type Bundled } from '../run/bundle.ts';
import type { Prestart } from '../run/prestart.ts';
import { progressNow } from '../run/progress.ts';
import type { Jail } from '../run/sandbox.ts';
import { DEFAULT_LIMITS, WALL_FACTOR, type RunResult } from '../run/spawn.ts';
import { Answers } from './answers.ts';
import { checkProperty, valuesTried, type Halt, type Oracle, type PropertyOutcome } from './check.ts';
import { OracleSession, prestartOracle, type Call, type TroubleAt } from './oracle-session.ts';
import { clip } from './show.ts';
import { describeThrown, type PropertyCheck, type PropertySuite } from './suite.ts';
import type { Batch, LastPropertyRuns } from './last-runs.ts';

export interface PropertyRunOptions {
  /** The suite course.yaml's `properties:` names (e.g. `framing`), as the stages' modules hold it. */
  suite: PropertySuite;
  /** The stage slug, for the replay command printed with a failure. */
  stage: string;
  /** Absolute path of the student's module (src/mcp.ts). */
  modulePath: string;
  /** The module as the launcher's bundler made it (in the run root, visible in the oracle's sandbox), or
   *  why there is none: refused (the submission's doing), or the bundler failed (the grader's). */
  bundled: Bundled | BundlerFailure;
  cwd: string;
  env: NodeJS.ProcessEnv;
  seed: number;
  runs: number;
  /** CPU time for the whole suite, however many oracle processes it takes (a busy machine slows the
   *  oracles, never makes them use more CPU); wall time is only a far backstop, as for a case. */
  timeoutMs: number;
  /** Aborting stops the oracle; the properties not yet decided come back as `infra`. */
  signal?: AbortSignal;
  /** The run root's sandbox: the oracle starts in it, seeing the run root's parts and its own files. */
  jail?: Jail;
  /** Its first oracle, started ahead (prestartProperties); cancelled when not used. */
  prestarted?: Prestart;
  /** How long asking ahead waits for an answer before it gives up (default PATIENCE_MS). */
  patienceMs?: number;
  /** Where the last runs are kept (watch mode's, across its gradings); none: nothing is kept. */
  lastRuns?: LastPropertyRuns;
}

/** The first oracle of a suite's next run, started ahead and waiting in `warmStart` (watch mode,
 *  between saves); the run releases it once the module is bundled again, at `bundledPath`. */
export function prestartProperties(
  options: Omit<PropertyRunOptions, 'stage' | 'seed' | 'runs' | 'signal' | 'prestarted' | 'bundled'>,
  warmStart: string,
  bundledPath: string,
): Prestart | undefined {
  const { suite } = options;
  return prestartOracle({ ...options, bundled: bundledPath, exports: suite.requiredExports }, warmStart);
}

/** Less time than this left is not worth starting an oracle for. */
const MIN_CHILD_MS = 1000;
/** Asking ahead gives up when no answer comes for this long: the real run then asks call by call,
 *  in fast-check's order, so that a call it never makes cannot hang or crash the property. */
const PATIENCE_MS = 2000;
/** The tail of stderr kept on a verdict. */
const STDERR_KEPT = 8 * 1024;

/** Why a property stopped, worded; `everyProperty`: the properties after it stop the same way. */
interface Stop extends Halt {
  status: Verdict['status'];
  message: string;
  details?: string;
  everyProperty: boolean;
  /** Why nothing was checked: the module was refused (Verdict's notRun). */
  notRun?: string;
  /** The oracles whose stderr goes with the verdict. */
  sessions: readonly OracleSession[];
}

export async function runProperties(options: PropertyRunOptions): Promise<Verdict[]> {
  const { suite } = options;
  const answers = new Answers();
  const pool = new OraclePool(options, suite.requiredExports, answers);
  pool.warm(); // the oracle loads while the values are generated

  const runKey = JSON.stringify([suite.name, options.modulePath, options.seed, options.runs]);
  const last = options.lastRuns?.take(runKey);
  const decided: Array<{ verdict: Verdict; sessions: readonly OracleSession[] }> = [];
  const replayStarted = performance.now();
  pool.beginProperty();
  const answeredAsBefore = last !== undefined && (await pool.answersAsBefore(last.batches));
  if (answeredAsBefore) {
    const durationMs = performance.now() - replayStarted;
    for (const verdict of last.verdicts) decided.push({ verdict: { ...verdict, durationMs }, sessions: pool.served() });
  }
  for (const check of answeredAsBefore ? [] : suite.properties) {
    const started = performance.now();
    pool.beginProperty();
    const stopped = pool.moduleStop;
    if (stopped) {
      decided.push({ verdict: stopVerdict(check, stopped, options, 0), sessions: stopped.sessions });
      continue;
    }
    // properties on the same arbitrary share its values (valuesTried makes them once)
    const result = await checkProperty(check, valuesTried(check.arbitrary, options), answers, suite.requiredExports, pool, options);
    const durationMs = performance.now() - started;
    decided.push(
      'halt' in result
        ? { verdict: stopVerdict(check, result as Stop, options, durationMs), sessions: (result as Stop).sessions }
        : { verdict: outcomeVerdict(check, result, durationMs, options), sessions: pool.served() },
    );
  }

  // Kept only where the oracle's answers decided them: a module that did not bundle asked nothing,
  // and a replay that finds nothing to ask again would keep its verdicts past the save that fixes it.
  if (pool.clean && !pool.moduleStop && decided.every(({ verdict }) => verdict.status === 'pass' || verdict.status === 'fail')) {
    options.lastRuns?.keep(runKey, { batches: pool.batches, verdicts: decided.map(({ verdict }) => verdict) });
  } else if (last !== undefined && pool.moduleStop?.notRun !== undefined) {
    // nothing was asked (the module was refused): the run before is still the last, and the save that
    // fixes a compile error takes its verdicts again as any save does, once its answers are the same
    options.lastRuns?.keep(runKey, last);
  }
  // The student's stderr is known once each oracle has ended; it goes with every verdict but a pass.
  await pool.close();
  options.prestarted?.cancel(); // not used: no oracle was needed, or the module did not bundle
  return Promise.all(
    decided.map(async ({ verdict, sessions }) => {
      if (verdict.status === 'pass') return verdict;
      const printed = (await Promise.all(sessions.map((session) => session.ended))).map((result) => result.stderr.toString('utf8')).join('');
      const stderr = tail(await pool.positions(printed));
      return stderr === '' ? verdict : { ...verdict, stderr };
    }),
  );
}

/** The oracle for check.ts: one process at a time, a fresh one when the last died, while time remains. */
class OraclePool implements Oracle<Stop> {
  /** Set once a stop ends every property (the module cannot be used, the run was cancelled). */
  moduleStop: Stop | undefined;
  /** Every batch asked and answered in full, in order. */
  readonly batches: Batch[] = [];
  /** No batch met trouble (an oracle ended, stalled, was stopped): the batches are the whole run. */
  clean = true;
  private readonly sessions: OracleSession[] = [];
  private session: OracleSession | undefined;
  private starting: Promise<OracleSession | Stop> | undefined;
  private readonly deadlyCalls = new Map<string, Stop>();
  /** Calls an oracle was still answering when patience ran out: never asked ahead again. */
  private readonly slowCalls = new Set<string>();
  private servedNow = new Set<OracleSession>();
  private readonly started = performance.now();
  /** The suite's wall-time backstop: the oracles of a module that waits (without CPU) share it. */
  private readonly wallEnd: number;
  private readonly backstop: number;

  constructor(
    private readonly options: PropertyRunOptions,
    private readonly exports: readonly string[],
    private readonly answers: Answers,
  ) {
    // The grader's own work on the suite (checks, shrinking) stops where its oracle would at the
    // latest: an oracle still computing past its backstop (a starved loop) has until then to reach
    // its CPU limit, and so the loop's verdict, on a loaded machine.
    // Both in the grader's progress (progress.ts), as a case's backstop is: a starved grader is no loop.
    const from = progressNow();
    this.wallEnd = from + options.timeoutMs * WALL_FACTOR;
    this.backstop = from + options.timeoutMs * WALL_FACTOR * STARVED_WALL_FACTOR;
  }

  warm(): void {
    void this.live();
  }

  beginProperty(): void {
    this.servedNow = new Set();
  }

  served(): OracleSession[] {
    return [...this.servedNow];
  }

  due(): Stop | undefined {
    if (this.moduleStop) return this.moduleStop;
    if (this.options.signal?.aborted) return (this.moduleStop = this.cancelled([]));
    if (progressNow() > this.backstop) return this.outOfTime('wall');
    return undefined;
  }

  deadly(key: string): Stop | undefined {
    return this.deadlyCalls.get(key);
  }

  async prefetch(calls: Call[]): Promise<Stop | 'abandon' | undefined> {
    const ahead = calls.filter((call) => !this.slowCalls.has(call.key));
    if (ahead.length === 0) return 'abandon';
    const asked = await this.ask(ahead, this.options.patienceMs ?? PATIENCE_MS);
    // a call that ended the oracle is not yet a verdict: the real run may never make it
    if (asked === undefined || asked === 'abandon') return asked;
    return asked.attributed ? undefined : asked.stop;
  }

  async demand(call: Call): Promise<Stop | undefined> {
    const asked = await this.ask([call]);
    return asked === undefined || asked === 'abandon' ? undefined : asked.stop;
  }

  async close(): Promise<void> {
    await Promise.all(this.sessions.map((session) => session.close()));
  }

  /** Asks `batches` of a last run in order, as they were asked then (ahead, with patience, or on
   *  demand), while each is answered with the same bytes as then. */
  async answersAsBefore(batches: readonly Batch[]): Promise<boolean> {
    for (const before of batches) {
      const asked = this.batches.length;
      if ((await this.ask([...before.calls], before.patienceMs, before.lines)) !== undefined || this.batches.length !== asked + 1) return false;
      const now = this.batches[asked]!;
      if (now.calls.length !== before.calls.length || now.lines.some((line, index) => !line.equals(before.lines[index]!))) return false;
    }
    return true;
  }

  /** What the oracles printed, with the bundle's positions told in the student's files. */
  async positions(printed: string): Promise<string> {
    const { bundled } = this.options;
    return bundled instanceof BundleRefusal || bundled instanceof BundlerFailure ? printed : bundled.positions(printed);
  }

  private async ask(calls: Call[], patienceMs?: number, asBefore?: readonly Buffer[]): Promise<undefined | 'abandon' | { stop: Stop; attributed: boolean }> {
    const due = this.due();
    if (due) return { stop: due, attributed: false };
    const needed = calls.filter((call) => !this.answers.has(call.key));
    if (needed.length === 0) return undefined;
    const session = await this.live();
    if (!(session instanceof OracleSession)) return { stop: session, attributed: false };
    this.servedNow.add(session);
    const evictions = this.answers.evictions;
    const lines: Buffer[] = [];
    const trouble = await session.ask(
      needed,
      (call, answer, line) => {
        this.answers.add(call, answer, line.length);
        lines.push(line);
      },
      patienceMs,
      asBefore,
    );
    if (trouble === undefined) {
      this.batches.push({ calls: needed, lines, patienceMs });
      // answers that no longer fit are not worth asking ahead: the real run asks as it goes
      return patienceMs !== undefined && this.answers.evictions > evictions ? 'abandon' : undefined;
    }
    this.clean = false;
    if (this.session === session) this.session = undefined;
    if (trouble.trouble.kind === 'stalled') {
      if (trouble.call) this.slowCalls.add(trouble.call.key);
      return 'abandon';
    }
    const stop = this.stopFor(trouble, session);
    // an oracle that exited or was killed on a call will do so again on it: remember, ask no more
    const attributed = trouble.call !== undefined && trouble.trouble.kind === 'ended' && stop.status === 'crash';
    if (attributed) this.deadlyCalls.set(trouble.call!.key, stop);
    return { stop, attributed };
  }

  private live(): Promise<OracleSession | Stop> {
    if (this.session?.alive) return Promise.resolve(this.session);
    this.starting ??= this.start().finally(() => (this.starting = undefined));
    return this.starting;
  }

  private async start(): Promise<OracleSession | Stop> {
    const { bundled } = this.options;
    // It imports what it may not, or does not compile: no oracle is started for it, and no property is checked.
    if (bundled instanceof BundleRefusal) {
      // its first line, and under it a compile error's code frame
      const [why, ...frame] = bundled.message.split('\n') as [string, ...string[]];
      const stop = { halt: true, status: 'fail', message: `not checked: ${why}`, everyProperty: true, notRun: why, sessions: [] } as const;
      return (this.moduleStop ??= frame.length > 0 ? { ...stop, details: frame.join('\n') } : stop);
    }
    if (bundled instanceof BundlerFailure)
      return (this.moduleStop ??= { halt: true, status: 'infra', message: bundled.message, everyProperty: true, sessions: [] });
    // Every earlier oracle has ended or is being stopped: what they used is spent.
    const spent = (await Promise.all(this.sessions.map((session) => session.ended))).reduce((sum, result) => sum + result.cpuMs, 0);
    const timeoutMs = this.options.timeoutMs - spent;
    const wallMs = this.wallEnd - progressNow();
    if (timeoutMs < MIN_CHILD_MS) return this.outOfTime('cpu');
    if (wallMs < MIN_CHILD_MS) return this.outOfTime('wall');
    // The one started ahead has the whole suite's limits: only ever the first, and only if it loads
    // what this one would (the bundle).
    const prestarted = this.sessions.length === 0 ? this.options.prestarted : undefined;
    const session = new OracleSession({
      bundled: bundled.path,
      exports: this.exports,
      cwd: this.options.cwd,
      env: this.options.env,
      timeoutMs,
      wallMs,
      jail: this.options.jail,
      signal: this.options.signal,
      ...(prestarted && { prestarted }),
    });
    this.sessions.push(session);
    const trouble = await session.loaded;
    if (trouble) return this.stopFor(trouble, session);
    this.session = session;
    return session;
  }

  /** Time is up, the suite's CPU time or its wall backstop: before this property asked anything, it was
   *  never checked; after, it timed out while checked, in the words a single oracle's end would use. */
  private outOfTime(limit: 'cpu' | 'wall'): Stop {
    const { options } = this;
    if (this.servedNow.size === 0) {
      return { halt: true, status: 'timeout', message: 'the time limit ran out before this property was checked', everyProperty: false, sessions: [] };
    }
    return {
      halt: true,
      status: 'timeout',
      message: `${timeLimitWords(limit, options, performance.now() - this.started)} while checking this property`,
      details: [LOOP_HINT, ...replayLines(options)].join('\n'),
      everyProperty: false,
      sessions: this.served(),
    };
  }

  private cancelled(sessions: readonly OracleSession[]): Stop {
    return { halt: true, status: 'infra', message: 'cancelled', everyProperty: true, sessions };
  }

  /** What a session's trouble means for the property being judged (and, before the module loaded, for all). */
  private stopFor({ trouble, phase }: TroubleAt, session: OracleSession): Stop {
    const { options } = this;
    const sessions = [session];
    let stop: Stop;
    switch (trouble.kind) {
      case 'cancelled':
        stop = this.cancelled(sessions);
        break;
      case 'stalled': // only ever asked for while asking ahead, and handled there
        stop = { halt: true, status: 'infra', message: 'the property runner stopped answering', everyProperty: true, sessions };
        break;
      case 'unusable':
        stop = { halt: true, status: 'fail', message: this.unusable(trouble), everyProperty: true, sessions };
        break;
      case 'garbled': {
        const checking = phase === 'calls';
        stop = {
          halt: true,
          status: 'fail',
          message: `the grader's channel to your functions (fd 3) carried ${trouble.what} ${checking ? 'while checking this property' : `while loading ${options.modulePath}`}`,
          details: [GARBLED_HINT, ...(checking ? replayLines(options) : [])].join('\n'),
          everyProperty: !checking,
          sessions,
        };
        break;
      }
      case 'ended': {
        const end = howItEnded(trouble.result, options);
        if (end.status === 'infra') stop = { halt: true, status: 'infra', message: end.message, everyProperty: true, sessions };
        else if (phase === 'start') {
          const why = `the property runner did not start: ${end.message}${lastLine(trouble.result.stderr.toString('utf8'))}`;
          stop = { halt: true, status: 'infra', message: why, everyProperty: true, sessions };
        } else if (phase === 'load') {
          stop = { halt: true, status: end.status, message: `${end.message} while loading ${options.modulePath}`, everyProperty: true, sessions };
        } else {
          stop = {
            halt: true,
            status: end.status,
            message: `${end.message} while checking this property`,
            details: [end.hint, ...replayLines(options)].join('\n'),
            everyProperty: false,
            sessions,
          };
        }
        break;
      }
    }
    if (stop.everyProperty) this.moduleStop ??= stop;
    return stop;
  }

  private unusable(trouble: Extract<TroubleAt['trouble'], { kind: 'unusable' }>): string {
    const path = this.options.modulePath;
    if (trouble.missing) return `${path} does not export ${trouble.missing.map((name) => `\`${name}\``).join(' and ')} as a function`;
    if (trouble.unexaminable) return `${path} could not be loaded: it threw a value too big to examine`;
    return `${path} could not be loaded: ${clip(describeThrown(trouble.thrown), 400)}`;
  }
}

const LOOP_HINT = 'your code never returned for some generated message: look for a loop that does not end';
const GARBLED_HINT =
  'the grader asks the process running your functions for their results on fd 3; something in your code wrote there: leave fd 3 alone (print with console.log or console.error)';

function howItEnded(result: RunResult, options: PropertyRunOptions): { status: Verdict['status']; message: string; hint: string } {
  if (options.signal?.aborted) return { status: 'infra', message: 'cancelled', hint: '' };
  if (result.startError) return { status: 'infra', message: `could not start node: ${result.startError.message}`, hint: '' };
  if (result.timeLimit) return { status: 'timeout', message: timeLimitWords(result.timeLimit, options, result.durationMs), hint: LOOP_HINT };
  if (result.outOfMemory) {
    return {
      status: 'crash',
      message: 'stopped for using more memory than a case may',
      hint: 'something grows without end: a buffer, a cache, a recursion that builds and keeps',
    };
  }
  if (result.flooded) {
    return {
      status: 'crash',
      message: `stopped for printing more than ${DEFAULT_LIMITS.outputCap / 1024 / 1024} MiB on ${result.flooded}`,
      hint:
        result.flooded === 'stdout'
          ? 'your code prints on stdout on every call, and the property calls it a thousand times or more: stdout is for the output only; debug with console.error'
          : 'your code prints on stderr on every call, and the property calls it a thousand times or more: print less, or only when something is wrong',
    };
  }
  const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${String(result.exitCode)}`;
  return {
    status: 'crash',
    message: `the process ${how}`,
    hint: 'your code ended the process (process.exit, an uncaught error, or a native crash): see its stderr',
  };
}

/** The suite's limits are its own, not a single oracle's: the CPU time of all its oracles together. */
function timeLimitWords(limit: 'cpu' | 'wall', options: PropertyRunOptions, wallMs: number): string {
  return limit === 'wall'
    ? `was still running after ${(wallMs / 1000).toFixed(1)} s of wall time`
    : `used more than ${(options.timeoutMs / 1000).toFixed(1)} s of CPU time`;
}

function outcomeVerdict(check: PropertyCheck, outcome: PropertyOutcome, durationMs: number, options: PropertyRunOptions): Verdict {
  const base = { name: verdictName(check), seed: options.seed, durationMs };
  if (outcome.passed && outcome.numRuns >= options.runs) {
    return { ...base, status: 'pass', message: `held for ${outcome.numRuns} runs` };
  }
  if (outcome.passed || outcome.interrupted || outcome.counterexample === undefined) {
    // never a pass on fewer runs than asked, whatever the reason
    return { ...base, status: 'infra', message: `only ${outcome.numRuns} of ${options.runs} runs were made`, details: replayLines(options).join('\n') };
  }
  return {
    ...base,
    status: 'fail',
    message: outcome.problem ?? 'a counterexample was found',
    details: [
      `counterexample (found after ${plural(outcome.numRuns, 'run')}, shrunk ${plural(outcome.numShrinks, 'time')}):`,
      `  ${outcome.counterexample}`,
      ...(outcome.explanation ?? []),
      ...replayLines(options),
    ].join('\n'),
  };
}

function stopVerdict(check: PropertyCheck, stop: Stop, options: PropertyRunOptions, durationMs: number): Verdict {
  const verdict: Verdict = {
    name: verdictName(check),
    status: stop.status,
    message: stop.message,
    seed: options.seed,
    durationMs,
    ...(stop.notRun !== undefined && { notRun: stop.notRun }),
  };
  return stop.details === undefined ? verdict : { ...verdict, details: stop.details };
}

function verdictName(check: PropertyCheck): string {
  return `property: ${check.description}`;
}

function replayLines(options: PropertyRunOptions): string[] {
  const runs = options.runs === DEFAULT_RUNS ? '' : ` --runs ${options.runs}`;
  return [`seed: ${options.seed}`, `replay: npx theinference test --stage ${options.stage} --seed ${options.seed}${runs}`];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

function tail(text: string): string {
  return text.length <= STDERR_KEPT ? text : `…${text.slice(-STDERR_KEPT)}`;
}

function lastLine(text: string): string {
  const line = text.trim().split('\n').at(-1);
  return line ? ` (${line})` : '';
}
