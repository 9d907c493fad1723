// The grader's side of the property tests: runs a suite against a student's module in a child
// process (child.ts) under a time limit, and turns what the child said, or how it ended, into
// one Verdict per property. A property that was running when the child hung or died gets the
// timeout or crash verdict; the properties after it get a fresh child while time remains.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Verdict } from '../grade/verdict.ts';
import { DEFAULT_LIMITS, runProcess, type RunResult } from '../run/spawn.ts';
import { parseChildMessages, type ChildMessage, type PropertyOutcome } from './protocol.ts';
import type { PropertyCheck, PropertySuite } from './suite.ts';
import { findSuite } from './suites.ts';

import { DEFAULT_RUNS } from '../defaults.ts';

export interface PropertyRunOptions {
  /** The suite, as course.yaml's `properties:` names it, e.g. `framing`. */
  suite: string;
  /** The stage slug, for the replay command printed with a failure. */
  stage: string;
  /** Absolute path of the student's module (src/mcp.ts). */
  modulePath: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  seed: number;
  runs: number;
  /** For the whole suite, however many child processes it takes. */
  timeoutMs: number;
  /** Aborting stops the child; the properties not yet checked come back as `infra`. */
  signal?: AbortSignal;
}

const CHILD_SCRIPT = fileURLToPath(new URL('./child.ts', import.meta.url));
/** Less time than this left is not worth starting a child for. */
const MIN_CHILD_MS = 1000;
/** How long fd 3 may stay open after the child is gone (its lines are already in the pipe). */
const PIPE_GRACE_MS = 500;
/** The tail of stderr kept on a verdict. */
const STDERR_KEPT = 8 * 1024;

/** tsx's ESM loader, found from this package so that it works from a course's node_modules. */
function tsxLoader(): string {
  try {
    return import.meta.resolve('tsx');
  } catch {
    // a host without import.meta.resolve (some test runners): the same entry through require
    return createRequire(import.meta.url).resolve('tsx');
  }
}

export async function runProperties(options: PropertyRunOptions): Promise<Verdict[]> {
  const suite = findSuite(options.suite);
  if (suite === undefined) {
    return [{ name: `property: ${options.suite}`, status: 'infra', message: `no property suite named "${options.suite}"`, durationMs: 0 }];
  }
  const deadline = performance.now() + options.timeoutMs;
  const verdicts = new Map<string, Verdict>();
  let pending = suite.properties;

  while (pending.length > 0) {
    const timeLeft = deadline - performance.now();
    if (timeLeft < MIN_CHILD_MS) {
      for (const check of pending) verdicts.set(check.id, notChecked(check, options, 'timeout', 'the time limit ran out before this property was checked'));
      break;
    }
    const session = await runChild(suite, pending, options, timeLeft);
    pending = settle(session, pending, options, verdicts);
  }
  return suite.properties.map((check) => verdicts.get(check.id) ?? notChecked(check, options, 'infra', 'the runner lost track of this property'));
}

interface Session {
  messages: ChildMessage[];
  result: RunResult;
  aborted: boolean;
}

async function runChild(suite: PropertySuite, checks: readonly PropertyCheck[], options: PropertyRunOptions, timeoutMs: number): Promise<Session> {
  const args = [
    '--import',
    tsxLoader(),
    CHILD_SCRIPT,
    ...['--suite', suite.name, '--module', options.modulePath],
    ...['--seed', String(options.seed), '--runs', String(options.runs)],
    ...['--properties', checks.map((check) => check.id).join(',')],
  ];
  const received: Buffer[] = [];
  let pipeClosed: Promise<void> = Promise.resolve();
  let protocolPipe: NodeJS.ReadWriteStream | undefined;
  const result = await runProcess(process.execPath, args, {
    cwd: options.cwd,
    env: options.env,
    limits: { ...DEFAULT_LIMITS, timeoutMs },
    stdin: '',
    // The student's own prints are no part of a property's verdict (that comes on fd 3).
    stdout: 'ignore',
    extraPipes: 1,
    signal: options.signal,
    onPipes: ([pipe]) => {
      if (pipe === undefined) return;
      protocolPipe = pipe;
      pipe.on('data', (chunk: Buffer) => received.push(chunk));
      pipe.on('error', () => {});
      pipeClosed = new Promise((resolve) => pipe.on('close', () => resolve()));
    },
  });
  await Promise.race([pipeClosed, new Promise((resolve) => setTimeout(resolve, PIPE_GRACE_MS).unref())]);
  (protocolPipe as { destroy?: () => void } | undefined)?.destroy?.();
  const messages = parseChildMessages(Buffer.concat(received).toString('utf8'));
  return { messages, result, aborted: options.signal?.aborted ?? false };
}

/** Records the verdicts a child's session decided; returns the properties still to check. */
function settle(session: Session, pending: readonly PropertyCheck[], options: PropertyRunOptions, verdicts: Map<string, Verdict>): PropertyCheck[] {
  const { messages, result } = session;
  const stderr = tail(result.stderr.toString('utf8'));
  const byId = new Map(pending.map((check) => [check.id, check]));
  const decide = (check: PropertyCheck, verdict: Verdict) => {
    verdicts.set(check.id, verdict.status === 'pass' || stderr === '' ? verdict : { ...verdict, stderr });
  };

  let started: PropertyCheck | undefined;
  let ready = false;
  for (const message of messages) {
    if (message.type === 'ready') ready = true;
    if (message.type === 'start') started = byId.get(message.property);
    if (message.type === 'outcome') {
      const check = byId.get(message.property);
      if (check !== undefined) decide(check, outcomeVerdict(check, message, options));
      started = undefined;
    }
    if (message.type === 'unusable') {
      for (const check of pending) decide(check, notChecked(check, options, 'fail', message.message));
      return [];
    }
  }
  const left = pending.filter((check) => !verdicts.has(check.id));
  if (left.length === 0) return [];

  const end = howItEnded(session, options);
  if (end.status === 'infra' || !ready || messages.some((message) => message.type === 'done')) {
    const why = ready ? end.message : `the property runner did not start: ${end.message}${lastLine(stderr)}`;
    for (const check of left) decide(check, notChecked(check, options, 'infra', why));
    return [];
  }
  if (started === undefined) {
    // it ended after the runner was ready and before any property: the module's loading did it
    for (const check of left) decide(check, notChecked(check, options, end.status, `${end.message} while loading ${options.modulePath}`));
    return [];
  }
  decide(started, {
    ...notChecked(started, options, end.status, `${end.message} while checking this property`),
    details: [end.hint, ...replayLines(options)].join('\n'),
    durationMs: result.durationMs,
  });
  return left.filter((check) => check !== started);
}

function howItEnded(session: Session, options: PropertyRunOptions): { status: Verdict['status']; message: string; hint: string } {
  const { result } = session;
  if (session.aborted) return { status: 'infra', message: 'cancelled', hint: '' };
  if (result.startError) return { status: 'infra', message: `could not start node: ${result.startError.message}`, hint: '' };
  if (result.timedOut) {
    return {
      status: 'timeout',
      message: `timed out after ${(options.timeoutMs / 1000).toFixed(1)} s`,
      hint: 'your code never returned for some generated message: look for a loop that does not end',
    };
  }
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
      message: `stopped for printing more than ${DEFAULT_LIMITS.outputCap} bytes on ${result.flooded}`,
      hint: 'your code prints on every call; the property calls it a thousand times or more',
    };
  }
  const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${String(result.exitCode)}`;
  return {
    status: 'crash',
    message: `the process ${how}`,
    hint: 'your code ended the process (process.exit, an uncaught error, or a native crash): see its stderr',
  };
}

function outcomeVerdict(check: PropertyCheck, outcome: PropertyOutcome, options: PropertyRunOptions): Verdict {
  const base = { name: verdictName(check), seed: options.seed, durationMs: outcome.durationMs };
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

function notChecked(check: PropertyCheck, options: PropertyRunOptions, status: Verdict['status'], message: string): Verdict {
  return { name: verdictName(check), status, message, seed: options.seed, durationMs: 0 };
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
