// The recorder: a transparent stdio proxy. A client spawns it in place of a server; it spawns the
// real server, forwards stdin and stdout unchanged, relays stderr line by line (redacted, control
// characters escaped), taps both directions into frames, and writes the cassette (redacted,
// normalised, atomically) when the session ends. A session that is not clean (the server died, cut
// a line, or left a request unanswered) leaves only `<out>.partial`; a server that cannot start or
// writes non-JSON leaves nothing.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import {
  CASSETTE_VERSION,
  DEFAULT_FREE,
  LineSplitter,
  Recording,
  Redactor,
  compactLine,
  expandEnv,
  isObject,
  kindOf,
  prepareSetup,
  secretsFromCommand,
  secretsFromEnv,
  type Frame,
  type Json,
  type JsonObject,
  type Provenance,
  type Setup,
} from '../../cassette/index.ts';
import { escapeControls } from '../../terminal-text.ts';

export interface RecordOptions {
  out: string;
  command: string[];
  force?: boolean;
  /** More environment variable names whose values must not reach the cassette. */
  redactEnv?: string[];
  /** Record non-JSON stdout lines as stdout frames instead of refusing the session. */
  allowNoise?: boolean;
  /** Do not mark UUIDs and timestamps free, nor carry the previous recording's values over. */
  keepNondeterministic?: boolean;
  /** Paths free in every client message (default: params.clientInfo). */
  free?: string[];
  /** How long the server may take to exit after its stdin closes before it gets SIGTERM. */
  exitGraceMs?: number;
  /** How long the server may take to exit after SIGTERM before it gets SIGKILL. */
  killGraceMs?: number;
  env?: NodeJS.ProcessEnv;
  /** A folder copied into the fresh folder `<setup>` stands for (setup.ts); kept in the provenance. */
  setup?: string;
  /** Variables to start the server with (`<setup>` may stand in them); kept in the provenance. */
  serverEnv?: Record<string, string>;
  cwd?: string;
  input?: Readable;
  output?: Writable;
  log?: (line: string) => void;
  /** Why the session was cut short outside the recorder (a scripted client that stopped), asked at
   *  its end: such a session is not clean (`.partial`, exit 1). */
  cutShort?: () => string | undefined;
}

/** The MCP stdio shutdown: close stdin, wait, SIGTERM, wait, SIGKILL. */
const EXIT_GRACE_MS = 2000;
/** Shorter than the 2 s an SDK client gives the recorder itself between its SIGTERM and its SIGKILL,
 *  so that the server is stopped and the cassette written before the recorder is killed. */
const KILL_GRACE_MS = 1000;
/** After the server process exits, how long its pipes may stay open (held by a process it left behind). */
const PIPE_GRACE_MS = 1000;

/**
 * Resolves to the exit code: 0 written; 1 not a clean session (`.partial` written); 2 bad input or a
 * noisy server (nothing written); 128 + the signal's number when a second SIGINT or SIGTERM cut the
 * recording short (`.partial` written).
 */
export function record(options: RecordOptions): Promise<number> {
  const recording = new Recording(options);
  const server = serverToStart(options, recording);
  if (server === undefined) return Promise.resolve(2);
  return new Promise((resolve) => {
    new StdioProxy(options, recording, server, resolve);
  });
}

/** How the server is started, and what is redacted of what it says. */
interface ServerStart {
  command: string[];
  env: NodeJS.ProcessEnv;
  redactor: Redactor;
  setup: Setup | undefined;
}

/** The server's command and variables, `<setup>` made: undefined (said) when the options cannot start one. */
function serverToStart(options: RecordOptions, recording: Recording): ServerStart | undefined {
  const { log, cwd } = recording;
  const env = options.env ?? process.env;
  if (options.command.length === 0) {
    log('no server command: theinference record --out <cassette> -- <server command...>');
    return undefined;
  }
  const refused = recording.refusal();
  if (refused !== undefined) {
    log(refused);
    return undefined;
  }
  let setup: Setup | undefined;
  try {
    setup = prepareSetup(options.setup, [...options.command, ...Object.values(options.serverEnv ?? {})], cwd);
  } catch (error) {
    log((error as Error).message);
    return undefined;
  }
  return {
    command: setup ? options.command.map(setup.expand) : options.command,
    env: { ...env, ...expandEnv(options.serverEnv, setup) },
    redactor: new Redactor([...secretsFromEnv(env, options.redactEnv ?? []), ...secretsFromCommand(options.command)], setup?.stands),
    setup,
  };
}

/** One recorded session: the server started, the client's lines and the server's forwarded and tapped
 *  into frames, the server stopped as MCP's stdio shutdown says, and the cassette written at its end. */
class StdioProxy {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly log: (line: string) => void;
  private readonly redactor: Redactor;
  private readonly setup: Setup | undefined;
  private readonly exitGraceMs: number;
  private readonly killGraceMs: number;
  /** Why no cassette is written (a noisy server), once there is a reason. */
  private problem: string | undefined;
  private sessionEnded = false;
  private finished = false;
  private stdoutLine = 0;
  private firstSignal: NodeJS.Signals | undefined;
  private interruptedBy: NodeJS.Signals | undefined;
  private terminated = false;
  private killed = false;
  private readonly timers: NodeJS.Timeout[] = [];
  // Its own process group, so that a signal reaches whatever the command started (npx, a shell).
  private readonly group = process.platform !== 'win32';
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly clientLines = new LineSplitter();
  private readonly serverLines = new LineSplitter();
  private readonly stderrLines = new LineSplitter();
  private readonly clientText = new StringDecoder('utf8');
  private readonly serverText = new StringDecoder('utf8');
  private readonly stderrText = new StringDecoder('utf8');
  private readonly offSignals: () => void;

  constructor(
    private readonly options: RecordOptions,
    private readonly recording: Recording,
    server: ServerStart,
    private readonly resolve: (code: number) => void,
  ) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.log = recording.log;
    this.redactor = server.redactor;
    this.setup = server.setup;
    this.exitGraceMs = options.exitGraceMs ?? EXIT_GRACE_MS;
    this.killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;
    const [program, ...args] = server.command;
    this.child = spawn(program!, args, { cwd: recording.cwd, env: server.env, stdio: ['pipe', 'pipe', 'pipe'], detached: this.group });
    const { input, output, child } = this;

    input.on('data', (chunk: Buffer) => {
      if (!this.setup && child.stdin.writable) child.stdin.write(chunk);
      for (const line of this.clientLines.push(this.clientText.write(chunk))) this.fromClient(line);
    });
    input.on('end', () => this.endSession());
    input.on('close', () => this.endSession());
    this.offSignals = recording.onStop((signal) => this.onSignal(signal));
    child.stdin.on('error', () => {}); // a server that exits without reading is reported by its exit
    output.on('error', () => {}); // a client that stopped reading still gets its session recorded

    child.stdout.on('data', (chunk: Buffer) => {
      output.write(chunk);
      for (const line of this.serverLines.push(this.serverText.write(chunk))) this.tapServer(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of this.stderrLines.push(this.stderrText.write(chunk))) this.tapStderr(line);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? 'no such command' : error.code === 'EACCES' ? 'not executable' : error.message;
      this.log(`cannot start the server command ${JSON.stringify(options.command[0])}: ${why}; no cassette written`);
      this.done(2);
    });
    child.on('exit', () => {
      this.later(PIPE_GRACE_MS, () => {
        child.stdout.destroy();
        child.stderr.destroy();
        this.finish(child.exitCode, child.signalCode);
      });
    });
    child.on('close', (code, signal) => this.finish(code, signal));
  }

  // unref: the server's pipes keep us alive while it runs, and nothing is left to stop once it has gone
  private later(ms: number, action: () => void): void {
    this.timers.push(setTimeout(action, ms).unref());
  }

  private running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  private signalServer(signal: NodeJS.Signals): void {
    try {
      if (this.group && this.child.pid !== undefined) process.kill(-this.child.pid, signal);
      else this.child.kill(signal);
    } catch {
      // already gone
    }
  }

  private preview(text: string, length: number): string {
    return this.redactor.text(text).slice(0, length);
  }

  /** A line of the client's: to the server, and into the frames. With a setup, the client's `<setup>`
   *  reaches the server as the folder's path, line by line (a line keeps its terminator); the cassette
   *  keeps `<setup>`, as the client wrote it. */
  private fromClient(line: string): void {
    if (this.setup && this.child.stdin.writable) this.child.stdin.write(this.setup.expandInJson(line));
    this.tapClient(line);
  }

  private tapClient(line: string): void {
    const text = line.trim();
    if (text === '') return;
    let message: unknown;
    try {
      message = JSON.parse(text) as unknown;
    } catch {
      return this.log(`the client sent a line that is not JSON; not recorded: ${this.preview(text, 80)}`);
    }
    if (!isObject(message) || kindOf(message) === undefined) {
      return this.log(`the client sent something that is not a JSON-RPC message; not recorded: ${this.preview(text, 80)}`);
    }
    this.recording.tapClient({ from: 'client', message });
  }

  private tapServer(line: string): void {
    this.stdoutLine++;
    let message: unknown;
    try {
      message = line.trim() === '' ? undefined : JSON.parse(line);
    } catch {
      message = undefined;
    }
    if (isObject(message) && kindOf(message) !== undefined) {
      const frame: Frame = { from: 'server', message: message as JsonObject };
      if (line !== compactLine(message)) frame.raw = line;
      this.recording.tapServer(frame);
      return;
    }
    if (!this.options.allowNoise && line.trim() !== '' && this.problem === undefined) {
      this.problem = `the server wrote non-JSON to stdout (line ${this.stdoutLine} of its output): ${JSON.stringify(this.preview(line, 120))}; no cassette written (--allow-noise records such lines)`;
      this.log(this.problem);
    }
    this.recording.frames.push({ from: 'stdout', text: line });
  }

  private tapStderr(line: string): void {
    const text = line.replace(/\r?\n$/, '');
    this.recording.frames.push({ from: 'stderr', text });
    process.stderr.write(escapeControls(this.redactor.text(text)) + '\n');
  }

  private terminate(): void {
    if (this.terminated || !this.running()) return;
    this.terminated = true;
    this.signalServer('SIGTERM');
    this.later(this.killGraceMs, () => {
      if (!this.running() || this.killed) return;
      this.log(`the server did not exit within ${this.killGraceMs / 1000} s of SIGTERM; stopped it with SIGKILL`);
      this.kill();
    });
  }

  private kill(): void {
    if (this.killed) return;
    this.killed = true;
    this.signalServer('SIGKILL');
  }

  /** The client is done: its last line goes to the server, whose stdin closes; then the shutdown. */
  private endSession(): void {
    if (this.sessionEnded || this.finished) return;
    this.sessionEnded = true;
    const rest = this.clientLines.push(this.clientText.end()).concat(this.clientLines.flush());
    for (const line of rest) this.fromClient(line);
    this.child.stdin.end();
    this.later(this.exitGraceMs, () => this.terminate());
  }

  /** The first SIGINT or SIGTERM ends the session now; a second stops everything at once. */
  private onSignal(signal: NodeJS.Signals): void {
    if (this.firstSignal === undefined) {
      this.firstSignal = signal;
      this.endSession();
      this.terminate();
      return;
    }
    this.interruptedBy = signal;
    this.kill();
  }

  private done(code: number): void {
    if (this.finished) return;
    this.finished = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.offSignals();
    this.input.pause();
    this.input.removeAllListeners('data');
    if (this.input === process.stdin) process.stdin.destroy(); // a client that never closed it must not keep us alive
    this.setup?.remove();
    this.resolve(code);
  }

  /** The server has gone: what it left in its pipes is tapped, and the cassette written. */
  private finish(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.finished) return;
    const cut = this.drainServer();
    if (!this.output.destroyed && this.output !== process.stdout) this.output.end();
    if (this.problem !== undefined) return this.done(2);
    this.done(this.write(this.flaws(code, signal, cut)));
  }

  /** The server's last lines, tapped; returns the line it cut short, if any. An unterminated JSON line
   *  is a message the server never finished; other bytes are noise. */
  private drainServer(): string {
    for (const line of this.serverLines.push(this.serverText.end())) this.tapServer(line);
    const fragment = this.serverLines.flush();
    const cut = fragment.trimStart().startsWith('{') ? fragment : '';
    if (fragment !== '' && cut === '') this.tapServer(fragment);
    for (const line of this.stderrLines.push(this.stderrText.end()).concat(this.stderrLines.flush())) if (line !== '') this.tapStderr(line);
    return cut;
  }

  /** What makes the session not clean, as said in the `.partial`'s reason. */
  private flaws(code: number | null, signal: NodeJS.Signals | null, cut: string): string[] {
    const { interruptedBy, sessionEnded } = this;
    const unanswered = this.recording.unanswered();
    const flaws: string[] = [];
    if (interruptedBy !== undefined) flaws.push(`interrupted by a second ${interruptedBy}: the server was stopped with SIGKILL`);
    else if (!sessionEnded || cut !== '' || unanswered.length > 0) {
      flaws.push(`the server exited${sessionEnded ? '' : ' mid-session'} (${signal ? `signal ${signal}` : `exit code ${code}`})`);
    }
    if (cut !== '') flaws.push(`in the middle of a line (${Buffer.byteLength(cut)} bytes after its last complete line)`);
    if (unanswered.length > 0) flaws[flaws.length - 1] += `, leaving ${unanswered.join(', ')} unanswered`;
    const cutShort = this.options.cutShort?.();
    if (cutShort !== undefined) flaws.push(cutShort);
    return flaws;
  }

  /** The cassette (or its `.partial`), redacted, with its provenance; returns the exit code. */
  private write(flaws: string[]): number {
    const { options, recording, redactor } = this;
    const provenance: Provenance = {
      ...recording.startedBy(options.command, redactor),
      recorded: new Date().toISOString().slice(0, 10),
      recorder: 'theinference record',
      ...(options.setup !== undefined && { setup: options.setup }),
      ...(options.serverEnv !== undefined && Object.keys(options.serverEnv).length > 0 && { env: options.serverEnv }),
    };
    const { written } = recording.write(
      recording.frames.map((frame) => redactFrame(frame, redactor)),
      (normalised) => ({ version: CASSETTE_VERSION, transport: 'stdio', provenance, free: options.free ?? DEFAULT_FREE, frames: normalised }),
      flaws.length > 0 ? flaws.join(' ') : undefined,
      { keepNondeterministic: options.keepNondeterministic },
    );
    if (written === 'nothing') return 2;
    if (written === 'partial') return this.interruptedBy === undefined ? 1 : 128 + constants.signals[this.interruptedBy];
    return 0;
  }
}

/** A frame as the cassette keeps it: the recorder's secrets gone from its message and lines. */
function redactFrame(frame: Frame, redactor: Redactor): Frame {
  if (frame.from === 'stderr' || frame.from === 'stdout') return { ...frame, text: redactor.text(frame.text) };
  if (frame.from === 'sse' || frame.from === 'auth') return frame; // a stdio recording has none
  const copy = { ...frame, message: redactor.json(frame.message) };
  if (copy.from === 'server' && copy.raw !== undefined) {
    const raw = redactor.text(copy.raw);
    // The bytes are kept only while they still say the same as the redacted message.
    if (raw !== compactLine(copy.message) && parsesTo(raw, copy.message)) copy.raw = raw;
    else delete copy.raw;
  }
  return copy;
}

function parsesTo(raw: string, message: Json): boolean {
  try {
    return JSON.stringify(JSON.parse(raw)) === JSON.stringify(message);
  } catch {
    return false;
  }
}
