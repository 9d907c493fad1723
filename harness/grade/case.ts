// One case: run `your_program.sh <command> <case-dir>` under the stage's limits and turn what
// happened into a verdict. Pure bookkeeping around runProcess and explainDifference.
import { readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { byRole, type PlayReport, type RoleSecret } from '../cassette/index.ts';
import { KINDS } from '../protocols/index.ts';
import type { Case } from '../course.ts';
import { MEMORY_COUNTED_AS } from '../run/cgroup.ts';
import { PROGRAM, type Launcher } from '../run/launcher.ts';
import type { Invocation } from '../run/network.ts';
import { BundlerFailure } from '../run/bundle.ts';
import { prestart, type Prestart, type Prestarts } from '../run/prestart.ts';
import { runCommand, STUCK_MS, WALL_FACTOR, type Limits, type RunOptions, type RunResult } from '../run/spawn.ts';
import type { EndpointPlayed, Wiring } from '../transports/transport.ts';
import type { CourseContent } from './course-content.ts';
import { explainDifference, type ExplainOptions } from './explain.ts';
import { protocolHints, refusedByTheServer } from './hints.ts';
import { EndpointProblem, playCase, playingOf, programNeeds, type PlayedCase, type Playing, type Protocols } from './played.ts';
import type { Advice, EndpointSession, Hint, Verdict } from '../run/verdict.ts';

/** What a case's program runs with. */
export interface RunContext {
  /** The folder holding your_program.sh (the course, or a scratch copy of a submission). */
  runRoot: string;
  launcher: Launcher;
  env: NodeJS.ProcessEnv;
  limits: Limits;
  signal?: AbortSignal;
  /** Programs started ahead for these cases (watch mode): each case takes its own, or starts one. */
  prestarted?: Prestarts;
  /** The protocols a case's endpoints may name (default: harness/protocols/index.ts's). */
  protocols?: Protocols;
}

/** What a case is graded with: how its program runs, and the stages' hint rules (harness/stages/,
 *  passed down by the command) to explain a wrong output. */
export interface CaseContext extends RunContext {
  content: CourseContent;
}

export async function gradeCase(testCase: Case, context: CaseContext): Promise<Verdict> {
  const name = caseName(testCase);
  // Its code imports what the grader may not read for it, or the bundler failed: nothing of it runs. Said
  // alike of every case, a hidden one too: the words are of the submission, nothing of the case is in them.
  if (context.launcher.refused) {
    // a compile error's first line, and under it where in the code (a code frame)
    const [why, ...frame] = context.launcher.refused.split('\n');
    return { name, status: 'fail', message: `not run: ${why}`, ...(frame.length > 0 && { details: frame.join('\n') }), notRun: why, durationMs: 0 };
  }
  if (context.launcher.module instanceof BundlerFailure)
    return { name, status: 'infra', message: `not run: ${context.launcher.module.message}`, durationMs: 0 };
  // Whole, a hidden case's too: what a student reads of it is sealed where it leaves grading (ci/grade.ts).
  return judgeCase(testCase, context);
}

async function judgeCase(testCase: Case, context: CaseContext): Promise<Verdict> {
  const name = caseName(testCase);
  let playing: Playing[];
  try {
    playing = playingOf(testCase, context.protocols);
  } catch (error) {
    if (!(error instanceof EndpointProblem)) throw error;
    return { name, status: 'infra', message: error.message, durationMs: 0 };
  }
  const played = await runWithEndpoints(testCase, context, playing);
  const reports = played.endpoints.map((endpoint) => endpoint.report);
  const result = withSecretsHidden(
    played.result,
    played.endpoints.flatMap((endpoint) => endpoint.secrets ?? []),
  );
  const expected = readFileSync(testCase.expectedPath);
  const judged = withTransportHints(judgeOutput(result, expected, context, { hintRules: context.content.hintRules(testCase.stage) }), playing, reports);
  const start = played.endpoints.find((endpoint) => endpoint.start !== undefined)?.start;
  const sessions = playing.map(({ endpoint }, at): EndpointSession => {
    const report = reports[at];
    return {
      endpoint: endpoint.name,
      cassette: fixtureName(testCase, endpoint.cassette),
      diagnoses: report?.diagnoses ?? [],
      more: report?.moreDiagnoses ?? 0,
      ...(report && { exchange: report.exchange }),
    };
  });
  const judgement = withProtocol(withSessionOver(withServerStart(judged, start), playing, reports), sessions, result.stuck === true);
  const failed = judgement.status !== 'pass' && judgement.status !== 'infra';
  const advice = adviceOf(reports);
  return {
    name,
    ...judgement,
    ...(advice.length > 0 && { advice }),
    ...(failed && { rerun: `./${PROGRAM} ${testCase.command} ${testCase.casePath}` }),
    ...(sessions.length > 0 && { sessions }),
    ...relayed(result, context),
    stdout: result.stdout,
    durationMs: result.durationMs,
  };
}

export function runProgram(testCase: Case, context: RunContext, { onWire, env, waitedOn, own }: Wiring = {}): Promise<RunResult> {
  const onPipes = onWire && (([wire]: NodeJS.ReadWriteStream[]) => onWire(wire as unknown as Duplex));
  const ready = context.prestarted?.take(testCase.casePath);
  // a program that talks to no player says its end: graded then, its teardown after the grading
  const alone = onPipes === undefined && env === undefined && waitedOn === undefined;
  if (ready) return ready.release({ onPipes, env, waitedOn, ...(alone && { sayEnd: true }) }, context.signal, own);
  const options = programOptions(testCase, context, onWire !== undefined);
  const fetching = programNeeds(testCase, context.protocols).fetching && context.launcher.fetching;
  const { start, caseArg } = showCase(fetching || context.launcher, testCase, context);
  if (own) {
    try {
      start.update?.(own);
    } catch (error) {
      start.cleanup?.();
      throw error;
    }
  }
  return runCommand(start, [testCase.command, caseArg], {
    ...options,
    env: { ...options.env, ...env },
    signal: context.signal,
    ...(onPipes && { onPipes }),
    ...(waitedOn && { waitedOn }),
  });
}

/** The case's program started ahead of time (watch mode), waiting to be released by runProgram. */
export function prestartProgram(testCase: Case, context: RunContext): Prestart | undefined {
  const warm = context.launcher.warm;
  // A case with a cassette gets its player when released (runWithPlayer): a wire it needs is made now;
  // what it learns only then (an HTTP player's URL) is given at the release.
  if (!warm) return undefined;
  const options = programOptions(testCase, context, programNeeds(testCase, context.protocols).wire);
  const { start, caseArg } = showCase(warm, testCase, context);
  return prestart(start, [testCase.command, caseArg], options);
}

/** The program's start with its case's inputs shown to it (in a sandbox, at a place that says nothing of the case). */
function showCase(start: Invocation, testCase: Case, context: RunContext): { start: Invocation; caseArg: string } {
  return context.launcher.jail.showCase(start, resolve(context.runRoot, testCase.casePath), testCase.casePath);
}

/** How a case's program runs, however it is started: its folder, environment (its transport's too),
 *  limits, and the cassette wire if it is given one. */
function programOptions(testCase: Case, context: RunContext, wire: boolean): RunOptions {
  const env = { ...context.env, ...programNeeds(testCase, context.protocols).env };
  return {
    cwd: context.runRoot,
    env,
    limits: context.limits,
    contained: context.launcher.jail.kind !== 'none',
    ...(wire && { extraPipes: 1 }),
  };
}

/** The program, with each endpoint of the case played to it from its recording. */
export function runWithEndpoints(testCase: Case, context: RunContext, playing: readonly Playing[]): Promise<PlayedCase> {
  return playCase(testCase, playing, { runRoot: context.runRoot, network: context.launcher.jail.network }, (wiring) => runProgram(testCase, context, wiring));
}

/** The run with every secret of the session it printed shown by its role: a token printed is an
 *  error of its own (the transport's), and the grader's output and report never carry it. */
function withSecretsHidden(result: RunResult, secrets: readonly RoleSecret[]): RunResult {
  if (secrets.length === 0) return result;
  const hide = (bytes: Buffer) => {
    const text = bytes.toString('utf8');
    const shown = byRole(text, secrets);
    return shown === text ? bytes : Buffer.from(shown, 'utf8');
  };
  return { ...result, stdout: hide(result.stdout), stderr: hide(result.stderr) };
}

/** A program stopped by a limit after every recorded session was played right: what is left to wait for
 *  is the end, and close() is where a client waits for it (the server's output ends only after its input
 *  has). */
function withSessionOver(judgement: Judgement, playing: readonly Playing[], reports: readonly (PlayReport | undefined)[]): Judgement {
  // stopped by a limit, or ended waiting with nothing left to wait on (exit 13): after a whole session, close() is what waited
  const waitedForNothing = judgement.hints?.some((hint) => hint.kind === 'waited-for-nothing') === true;
  if (judgement.status !== 'timeout' && !waitedForNothing) return judgement;
  const over = playing.length > 0 && playing.every(({ unfinished }, at) => reports[at]?.ok === true && !unfinished?.(reports[at]!));
  if (!over) return judgement;
  const first = 'every message of the session was exchanged right, and then your program kept waiting: is close() waiting for the server to close first?';
  // each endpoint's transport says how its server is closed (a constant sentence of the transport)
  const hint = { kind: 'session-over', lines: [first, ...new Set(playing.map(({ closing }) => closing))], general: [first] };
  return { ...judgement, hints: [...(judgement.hints ?? []).filter((other) => other.kind !== 'waited-for-nothing'), hint] };
}

/** A failing case's transports' own hints first (what the case's streams are like, what the client did
 *  not do on them), without the output's hints they make moot. */
function withTransportHints(judgement: Judgement, playing: readonly Playing[], reports: readonly (PlayReport | undefined)[]): Judgement {
  if (judgement.status === 'pass') return judgement;
  const said = playing.flatMap(({ failing }, at) => (failing ? [failing(reports[at])] : []));
  const hints = said.flatMap((one) => one.hints);
  if (hints.length === 0) return judgement;
  const moot = said.flatMap((one) => one.moot);
  return { ...judgement, hints: [...hints, ...(judgement.hints ?? []).filter((other) => !moot.includes(other.kind))] };
}

const START_HINT: Hint = {
  kind: 'server-start',
  lines: ["spawnWire starts the entry's command with the entry's args, in its parent's environment (whose PATH finds the command) with the entry's env on top"],
};

/** A server started other than its entry says fails the case, whatever the output; a program that
 *  failed anyway keeps its own verdict, with the hint. When the server never reached the grader, the
 *  output's own hints are left out: they would blame what the client made of a server it never had. */
function withServerStart(judgement: Judgement, start: EndpointPlayed['start']): Judgement {
  const problem = start?.problem;
  // A function not written yet (the starter's throw) ended the case before any server could start.
  if (!problem || judgement.message.includes('not implemented yet')) return judgement;
  const hints = [...(start.reached ? (judgement.hints ?? []) : []), START_HINT];
  if (judgement.status === 'pass') return { status: 'fail', message: problem, hints };
  return { ...judgement, details: [judgement.details, problem].filter(Boolean).join('\n'), hints };
}

/** How a student finds a fixture file of the case: fixtures/ mirrors cases/. */
function fixtureName(testCase: Case, file: string): string {
  return join('fixtures', relative('cases', testCase.casePath), file);
}

/** The players' verdict beside the output's: a right output from a client that broke the protocol of an
 *  endpoint is an error; so is one stopped as stuck after a deviation a player saw (the session could not
 *  go on past it: the deviation is the verdict, the wait only what followed). */
function withProtocol(judgement: Judgement, sessions: readonly EndpointSession[], stuck: boolean): Judgement {
  const diagnoses = sessions.flatMap((session) => session.diagnoses);
  if (diagnoses.length === 0) return judgement;
  // A request the server refused at the HTTP level never reached it, and one whose session was lost
  // was refused too: what the output lacks follows from that, and the protocol's hint is the one to
  // read (the output's would blame the wrong thing).
  const outputHints = judgement.status === 'pass' || refusedByTheServer(diagnoses) ? [] : (judgement.hints ?? []);
  const hints = [...outputHints, ...protocolHints(diagnoses)];
  const hinted = hints.length > 0 ? { hints } : {};
  if (judgement.status === 'pass') return { status: 'error', message: diagnoses[0]!.message, ...hinted };
  const deviation = stuck ? diagnoses.find((diagnosis) => diagnosis.kind !== 'unused') : undefined;
  if (deviation) {
    const details = `then your client did nothing for ${STUCK_MS / 1000} s while the server waited for its next message, and was stopped: the session could not go on`;
    return { status: 'error', message: deviation.message, details, ...hinted };
  }
  return { ...judgement, ...hinted };
}

/** The players' advice, each with the spec's words behind it. */
function adviceOf(reports: readonly (PlayReport | undefined)[]): Advice[] {
  return reports.flatMap((report) =>
    (report?.advice ?? []).map(({ kind, message }) => ({ kind, message, source: KINDS[kind].source, words: KINDS[kind].words })),
  );
}

/** How a student names the case: its folder under cases/<stage>/ (the stage is in the heading). */
export function caseName(testCase: Case): string {
  const underCases = relative('cases', testCase.casePath);
  return underCases.startsWith(`${testCase.stage}/`) ? underCases.slice(testCase.stage.length + 1) : underCases;
}

type Judgement = Pick<Verdict, 'status' | 'message' | 'details' | 'difference' | 'hints'>;

function judgeOutput(result: RunResult, expected: Buffer, context: CaseContext, explain: ExplainOptions): Judgement {
  const difference = () => explainDifference(expected, result.stdout, explain);
  if (result.startError) {
    return { status: 'infra', message: `could not start ${PROGRAM}: ${result.startError.code ?? result.startError.message}` };
  }
  if (result.stuck) {
    return {
      status: 'timeout',
      message: `did nothing for ${STUCK_MS / 1000} s while the server waited for its next message, and was stopped: the session could not go on`,
      ...(result.stdout.length > 0
        ? { details: `before it was stopped it printed ${result.stdout.length} bytes on stdout:`, ...difference() }
        : { details: 'it printed nothing on stdout: your client waited for the server, and the server for your client' }),
    };
  }
  if (result.timeLimit) {
    return {
      status: 'timeout',
      message: timeoutMessage(result, context.limits),
      ...(result.stdout.length > 0
        ? { details: `before it was stopped it printed ${result.stdout.length} bytes on stdout:`, ...difference() }
        : { details: 'it printed nothing on stdout: is something waiting for input that never comes, or looping forever?' }),
    };
  }
  if (result.outOfMemory) {
    const mib = (context.limits.memoryBytes ?? 0) / 1024 / 1024;
    return { status: 'crash', message: `used more than ${mib} MiB of memory (${MEMORY_COUNTED_AS[result.outOfMemory]}) and was stopped` };
  }
  if (result.flooded) {
    const cap = `${context.limits.outputCap / 1024 / 1024} MiB`;
    return {
      status: 'fail',
      message: `printed more than ${cap} on ${result.flooded} and was stopped (output truncated at ${cap})`,
      ...(result.flooded === 'stdout' && difference()),
    };
  }
  if (result.signal) {
    return { status: 'crash', message: `was killed by ${result.signal}` };
  }
  if (result.exitCode === UNSETTLED_AWAIT) {
    return {
      status: 'crash',
      message: `exited with code ${UNSETTLED_AWAIT}: it ended still waiting for something that never came (a top-level await that never settled)`,
      hints: [
        {
          kind: 'waited-for-nothing',
          lines: [
            'your client waited for an answer while nothing was left to bring it: no read in progress, no timer',
            'a reply that arrived was never read or handed on, or a message that two reads split was lost: keep what a read ends with until the rest comes',
          ],
        },
      ],
    };
  }
  if (result.exitCode !== 0) {
    const error = firstErrorLine(result.stderr.toString('utf8'));
    return { status: 'crash', message: `exited with code ${result.exitCode}${error ? `: ${error}` : ''}` };
  }
  if (result.stdout.equals(expected)) return { status: 'pass', message: 'passed' };
  return { status: 'fail', message: 'output differs from expected.json', ...difference() };
}

/** Node's exit code when the event loop empties while a top-level await still waits. */
const UNSETTLED_AWAIT = 13;

/** Which limit stopped it: CPU time (a loop), or the far wall-time backstop (waiting for what never comes). */
export function timeoutMessage(result: RunResult, limits: Limits): string {
  const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;
  if (result.timeLimit === 'wall') {
    return `was still running after ${seconds(limits.wallMs ?? limits.timeoutMs * WALL_FACTOR)} of wall time, having used ${(result.cpuMs / 1000).toFixed(2)} s of CPU, and was stopped`;
  }
  return `used more than ${seconds(limits.timeoutMs)} of CPU time and was stopped`;
}

/** The line of a Node stack trace that says what went wrong, e.g. `Error: not implemented yet: ...`. */
export function firstErrorLine(stderr: string): string | undefined {
  return stderr
    .split('\n')
    .find((line) => /^\s*([A-Za-z]*Error|Uncaught)\b.*:/.test(line))
    ?.trim();
}

/** Stderr as the student should read it: positions in their own files (not the bundle's), paths
 *  relative to the course (a scratch copy's name is noise). */
function relayed(result: RunResult, { runRoot: root, launcher }: CaseContext): Pick<Verdict, 'stderr'> {
  if (result.stderr.length === 0) return {};
  let stderr = result.stderr.toString('utf8');
  // The verdict says it in words; Node's own note points into the driver's bundle, and comes or not with the exit's timing.
  if (result.exitCode === UNSETTLED_AWAIT) stderr = stderr.replace(UNSETTLED_AWAIT_NOTE, '');
  if (stderr.trim() === '') return {};
  const text = (launcher.positions?.(stderr) ?? stderr).replaceAll(`file://${root}/`, '').replaceAll(`${root}/`, '');
  return { stderr: result.flooded === 'stderr' ? `${text}\n[stderr truncated]` : text };
}

/** Node's warning at exit 13: the line, the source line of the await, its caret, a blank line. */
const UNSETTLED_AWAIT_NOTE = /^Warning: Detected unsettled top-level await at .*\n(?:.*\n){0,2}\n*/m;
