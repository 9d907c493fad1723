// One oracle process (oracle.ts) seen from the grader: started under the run's limits, in the run
// root's sandbox when there is one, and asked batches of calls on fd 3. Every byte it sends is
// treated as hostile (the student's code shares its process): lines are bounded, every message
// is checked against what is due next, and anything else ends the session with a Trouble that
// says what came. Never throws, never waits past the process's own limits.
import type { Invocation, Jail } from '../run/sandbox.ts';
import { prestart, type Prestart } from '../run/prestart.ts';
import { DEFAULT_LIMITS, runCommand, type RunOptions, type RunResult } from '../run/spawn.ts';
import { MAX_LINE_BYTES } from './oracle-wire.ts';
import { decodeAnswer, decodeThrown, DecodeError, type Unexaminable } from './values.ts';
import { harnessScript } from '../own-module.ts';

export interface SessionOptions {
  /** The module bundled to plain JavaScript (the launcher's bundler): the oracle loads it under bare node. */
  bundled: string;
  /** The functions the module must export. */
  exports: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** CPU time; wall time (`wallMs`) is a backstop for a process that waits. */
  timeoutMs: number;
  wallMs?: number;
  jail?: Jail;
  signal?: AbortSignal;
  /** The same oracle started ahead with these options (prestartOracle), released here instead of a start. */
  prestarted?: Prestart;
}

/** One call of a student function; `key` is the same for the same function and encoded arguments. */
export interface Call {
  fn: string;
  /** values.ts's encoding of the argument array, as JSON. */
  args: string;
  key: string;
}

/** What a call came to: a value, a throw, or something too big to examine. */
export type Answer = { value: unknown } | { threw: unknown } | { unexaminable: Unexaminable; thrown?: boolean };

/** Why a session stopped answering. */
export type Trouble =
  /** The process ended: a crash, a limit, or a stop of ours. */
  | { kind: 'ended'; result: RunResult }
  /** It sent something that is not the protocol; `what` says what, for a student's eyes. */
  | { kind: 'garbled'; what: string }
  /** The module could not be loaded (`thrown`), or lacks functions (`missing`). */
  | { kind: 'unusable'; thrown?: unknown; missing?: string[]; unexaminable?: Unexaminable }
  /** Nothing came for longer than the patience asked for. */
  | { kind: 'stalled' }
  | { kind: 'cancelled' };

/** Where the session was when its trouble came: starting, loading the module, or answering calls. */
export type Phase = 'start' | 'load' | 'calls';

export interface TroubleAt {
  trouble: Trouble;
  phase: Phase;
  /** In the calls phase: the call the oracle was answering (the first one unanswered). */
  call?: Call;
}

/** How long fd 3 may stay open after the process is gone (its last lines are already in the pipe). */
const PIPE_GRACE_MS = 500;
/** How long a closed session may take to exit before it is stopped. */
const CLOSE_GRACE_MS = 1000;

type StartOptions = Omit<SessionOptions, 'signal' | 'prestarted'>;

/** The oracle's command and what it runs under; `warmStart`: started ahead, waiting in that script for a go. */
function oracleStart(options: StartOptions, warmStart?: string): Invocation & { run: Omit<RunOptions, 'signal' | 'onPipes'> } {
  const oracle = harnessScript(import.meta.url, './oracle');
  const waiting = warmStart === undefined ? [] : [warmStart];
  // no source maps: the grader maps the stack traces (source-positions.ts)
  const args = [...waiting, oracle.script, '--module', options.bundled, '--exports', options.exports.join(',')];
  // its own copy of the run root's parts, as each case's program has
  const start = options.jail ? options.jail.withRunRoot(options.jail.wrap(process.execPath, args, oracle.files)) : { command: process.execPath, args };
  return {
    ...start,
    run: {
      cwd: options.cwd,
      env: options.env,
      limits: { ...DEFAULT_LIMITS, timeoutMs: options.timeoutMs, ...(options.wallMs !== undefined && { wallMs: options.wallMs }) },
      stdin: '',
      // The student's own prints are no part of a verdict (answers come on fd 3), but they are read, as
      // a case's are, to stop a flood at the output cap and name it (oracle.ts makes the writes blocking).
      extraPipes: 1, // fd 3, PROTOCOL_FD
      // in a sandbox, its end is the end of everything in it
      contained: options.jail !== undefined && options.jail.kind !== 'none',
    },
  };
}

/** An oracle started ahead (watch mode, between saves), booted in `warmStart` (warm-start.mjs) until an
 *  OracleSession releases it; its limits start then. It loads `bundled`. */
export function prestartOracle(options: StartOptions, warmStart: string): Prestart {
  const start = oracleStart(options, warmStart);
  return prestart(start, [], start.run);
}

export class OracleSession {
  /** Resolves when the module has loaded (undefined) or with what stopped it first. */
  readonly loaded: Promise<TroubleAt | undefined>;
  /** The process's end, once its pipe has drained. */
  readonly ended: Promise<RunResult>;
  private phase: Phase = 'start';
  private troubleAt: TroubleAt | undefined;
  private readonly stopper = new AbortController();
  private wire: NodeJS.ReadWriteStream | undefined;
  private readonly lines = new LineReader(MAX_LINE_BYTES);
  private nextId = 1;
  private readonly due: Array<{ id: number; call: Call }> = [];
  private batch:
    | {
        onAnswer: (call: Call, answer: Answer | AnswerLater, line: Buffer) => void;
        done: (trouble?: TroubleAt) => void;
        patience?: number;
        /** The lines a last run's same batch was answered with (see ask). */
        asBefore?: readonly Buffer[];
        answered: number;
      }
    | undefined;
  private patienceTimer: NodeJS.Timeout | undefined;
  private settleLoaded!: (trouble?: TroubleAt) => void;
  private closing = false;
  private readonly exportNames: readonly string[];

  constructor(options: SessionOptions) {
    this.loaded = new Promise((resolve) => (this.settleLoaded = resolve));
    this.exportNames = options.exports;
    let pipeClosed: Promise<void> = Promise.resolve();
    const onPipes = ([pipe]: NodeJS.ReadWriteStream[]) => {
      if (pipe === undefined) return;
      this.wire = pipe;
      pipe.on('data', (chunk: Buffer) => this.receive(chunk));
      pipe.on('error', () => {});
      pipeClosed = new Promise((resolve) => pipe.on('close', () => resolve()));
    };
    let run: Promise<RunResult>;
    if (options.prestarted) run = options.prestarted.release({ onPipes }, this.stopper.signal);
    else {
      const start = oracleStart(options);
      run = runCommand(start, [], { ...start.run, signal: this.stopper.signal, onPipes });
    }
    // after runProcess listens to the stopper: an abort before it would never reach the process
    const userSignal = options.signal;
    const cancel = () => this.fail({ kind: 'cancelled' });
    userSignal?.addEventListener('abort', cancel, { once: true });
    if (userSignal?.aborted) cancel();
    this.ended = run.then(async (result) => {
      await Promise.race([pipeClosed, new Promise((resolve) => setTimeout(resolve, PIPE_GRACE_MS).unref())]);
      (this.wire as { destroy?: () => void } | undefined)?.destroy?.();
      userSignal?.removeEventListener('abort', cancel);
      this.fail({ kind: 'ended', result });
      return result;
    });
  }

  /** Asks for `calls` in one batch; `onAnswer` gets each answer as it comes, with the line that
   *  brought it. Resolves when all are answered (undefined) or with the trouble that stopped the
   *  session. `patienceMs`: give up (trouble `stalled`) when no answer comes for that long.
   *  `asBefore`: the lines the same batch got in a last run, in a session asked the same batches
   *  before it (so the ids are the same too). A line with the same bytes was read then and would be
   *  read the same now: it is handed on undecoded (an AnswerLater), which spares a watch-mode save
   *  that changed no answer the reading of thousands of them. */
  ask(
    calls: readonly Call[],
    onAnswer: (call: Call, answer: Answer | AnswerLater, line: Buffer) => void,
    patienceMs?: number,
    asBefore?: readonly Buffer[],
  ): Promise<TroubleAt | undefined> {
    if (this.troubleAt) return Promise.resolve(this.troubleAt);
    if (this.phase !== 'calls' || this.batch) throw new Error('OracleSession.ask: not loaded, or a batch is already out');
    if (calls.length === 0) return Promise.resolve(undefined);
    return new Promise((done) => {
      this.batch = { onAnswer, done, patience: patienceMs, asBefore, answered: 0 };
      const lines: string[] = [];
      for (const call of calls) {
        const id = this.nextId++;
        this.due.push({ id, call });
        lines.push(`{"id":${id},"fn":${JSON.stringify(call.fn)},"args":${call.args}}`);
      }
      this.wire?.write(`${lines.join('\n')}\n`);
      this.waitPatiently();
    });
  }

  /** Ends the session: the oracle reads the end of its input and exits (or is stopped soon after). */
  async close(): Promise<RunResult> {
    if (!this.closing) {
      this.closing = true;
      this.wire?.end();
      const timer = setTimeout(() => this.stopper.abort(), CLOSE_GRACE_MS);
      timer.unref();
      void this.ended.then(() => clearTimeout(timer));
    }
    return this.ended;
  }

  /** Whether it can still answer. */
  get alive(): boolean {
    return this.troubleAt === undefined && !this.closing;
  }

  private waitPatiently(): void {
    clearTimeout(this.patienceTimer);
    const patience = this.batch?.patience;
    if (patience === undefined) return;
    this.patienceTimer = setTimeout(() => this.fail({ kind: 'stalled' }), patience);
    this.patienceTimer.unref();
  }

  private receive(chunk: Buffer): void {
    if (this.troubleAt) return;
    const { lines, overlong } = this.lines.push(chunk);
    for (const line of lines) {
      try {
        this.message(line);
      } catch (error) {
        // decoding refuses with DecodeError; anything else thrown here is still the line's doing, never the grader's end
        const why = error instanceof DecodeError ? error.message : `it broke the reader: ${error instanceof Error ? error.message : String(error)}`;
        this.fail({ kind: 'garbled', what: `a message that cannot be read (${why}): ${excerpt(line.toString('utf8'))}` });
      }
      if (this.troubleAt) return;
    }
    if (overlong) this.fail({ kind: 'garbled', what: `a line of more than ${MAX_LINE_BYTES / 1024 / 1024} MiB` });
  }

  private message(line: Buffer): void {
    const due = this.due[0];
    const before = this.batch?.asBefore?.[this.batch.answered];
    if (due && before?.equals(line) && startsWithId(line, due.id)) return this.answered(due, new AnswerLater(line), line);
    const text = line.toString('utf8');
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return this.fail({ kind: 'garbled', what: `a line that is not JSON: ${excerpt(text)}` });
    }
    const record = isRecord(message) ? message : undefined;
    const unexpected = () => this.fail({ kind: 'garbled', what: `a message it did not expect: ${excerpt(text)}` });
    if (this.phase === 'start') {
      if (record?.type !== 'ready' || Object.keys(record).length !== 1) return unexpected();
      this.phase = 'load';
      return;
    }
    if (this.phase === 'load') {
      if (record?.type === 'loaded' && Object.keys(record).length === 1) {
        this.phase = 'calls';
        this.settleLoaded(undefined);
        return;
      }
      if (record?.type === 'unusable') return this.unusable(record, text);
      return unexpected();
    }
    if (record === undefined || typeof record.id !== 'number' || Object.keys(record).length !== 2) return unexpected();
    const head = this.due[0];
    if (head === undefined || record.id !== head.id) {
      const id = Number.isSafeInteger(record.id) ? String(record.id) : excerpt(String(record.id));
      const asked = Number.isSafeInteger(record.id) && record.id >= 1 && record.id < this.nextId;
      return this.fail({
        kind: 'garbled',
        what:
          head === undefined || !asked
            ? `an answer to call ${id}, which was never asked or is answered already`
            : `an answer to call ${id} while call ${head.id} was due`,
      });
    }
    if (!Object.hasOwn(record, 'value') && !Object.hasOwn(record, 'threw')) return unexpected();
    let answer: Answer;
    try {
      answer = answerOf(record);
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      return this.fail({ kind: 'garbled', what: `an answer that cannot be read (${error.message}): ${excerpt(text)}` });
    }
    this.answered(head, answer, line);
  }

  private answered(head: { call: Call }, answer: Answer | AnswerLater, line: Buffer): void {
    this.due.shift();
    if (this.batch) this.batch.answered += 1;
    this.batch?.onAnswer(head.call, answer, line);
    if (this.due.length > 0) return this.waitPatiently();
    clearTimeout(this.patienceTimer);
    const batch = this.batch;
    this.batch = undefined;
    batch?.done(undefined);
  }

  /** An unusable module, as the oracle words it: the error it threw loading, or the functions it lacks. */
  private unusable(record: Record<string, unknown>, text: string): void {
    const keys = Object.keys(record).sort().join(',');
    if (keys === 'missing,type') {
      const missing = record.missing;
      const known = Array.isArray(missing) && missing.length > 0 && missing.every((name) => typeof name === 'string' && this.exportNames.includes(name));
      if (!known) return this.fail({ kind: 'garbled', what: `a message it did not expect: ${excerpt(text)}` });
      return this.fail({ kind: 'unusable', missing: missing as string[] });
    }
    if (keys !== 'thrown,type') return this.fail({ kind: 'garbled', what: `a message it did not expect: ${excerpt(text)}` });
    const thrown = decodeThrown(record.thrown);
    return this.fail({ kind: 'unusable', ...('thrown' in thrown ? { thrown: thrown.thrown } : { unexaminable: thrown.unexaminable }) });
  }

  /** The first trouble wins; it stops the process and answers whoever waits. */
  private fail(trouble: Trouble): void {
    if (this.troubleAt) return;
    const call = this.phase === 'calls' ? this.due[0]?.call : undefined;
    this.troubleAt = { trouble, phase: this.phase, ...(call && { call }) };
    clearTimeout(this.patienceTimer);
    if (trouble.kind !== 'ended') this.stopper.abort();
    this.settleLoaded(this.troubleAt);
    const batch = this.batch;
    this.batch = undefined;
    batch?.done(this.troubleAt);
  }
}

/** An answer the session read with the same bytes in a last run, to be read when it is needed. */
export class AnswerLater {
  constructor(private readonly line: Buffer) {}

  read(): Answer {
    return answerOf(JSON.parse(this.line.toString('utf8')) as Record<string, unknown>);
  }
}

/** The line begins `{"id":<id>,`: the same bytes as a line read before for the same id. */
function startsWithId(line: Buffer, id: number): boolean {
  const prefix = `{"id":${id},`;
  return line.length > prefix.length && line.toString('latin1', 0, prefix.length) === prefix;
}

/** A call's answer from its message (`{id, value}` or `{id, threw}`); throws DecodeError. */
function answerOf(record: Record<string, unknown>): Answer {
  if (Object.hasOwn(record, 'value')) return decodeAnswer(record.value);
  const thrown = decodeThrown(record.threw);
  return 'thrown' in thrown ? { threw: thrown.thrown } : { ...thrown, thrown: true };
}

/** Splits a byte stream into lines, keeping at most `max` bytes of an unfinished one. */
export class LineReader {
  private partial: Buffer[] = [];
  private partialBytes = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): { lines: Buffer[]; overlong: boolean } {
    const lines: Buffer[] = [];
    let start = 0;
    for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
      if (this.partialBytes + newline - start > this.max) return { lines, overlong: true };
      lines.push(this.partial.length === 0 ? chunk.subarray(start, newline) : Buffer.concat([...this.partial, chunk.subarray(start, newline)]));
      this.partial = [];
      this.partialBytes = 0;
      start = newline + 1;
    }
    const rest = chunk.subarray(start);
    this.partialBytes += rest.length;
    if (this.partialBytes > this.max) return { lines, overlong: true };
    if (rest.length > 0) this.partial.push(rest);
    return { lines, overlong: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The start of a line, quoted, for a message. */
function excerpt(text: string): string {
  const cut = text.length > 60 ? `${text.slice(0, 60)}…` : text;
  return JSON.stringify(cut);
}
