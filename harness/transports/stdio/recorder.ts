// The recorder: a transparent stdio proxy. A client spawns it in place of a server; it spawns the
// real server, forwards stdin and stdout unchanged, relays stderr line by line (redacted, control
// characters escaped), taps both directions into frames, and writes the cassette (redacted,
// normalised, atomically) when the session ends. A session that is not clean (the server died, cut
// a line, or left a request unanswered) leaves only `<out>.partial`; a server that cannot start or
// writes non-JSON leaves nothing.
import { spawn } from 'node:child_process';
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
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const recording = new Recording(options);
  const { log, cwd } = recording;
  const env = options.env ?? process.env;
  if (options.command.length === 0) {
    log('no server command: theinference record --out <cassette> -- <server command...>');
    return Promise.resolve(2);
  }
  const refused = recording.refusal();
  if (refused !== undefined) {
    log(refused);
    return Promise.resolve(2);
  }
  let setup: Setup | undefined;
  try {
    setup = prepareSetup(options.setup, [...options.command, ...Object.values(options.serverEnv ?? {})], cwd);
  } catch (error) {
    log((error as Error).message);
    return Promise.resolve(2);
  }
  const command = setup ? options.command.map(setup.expand) : options.command;
  const serverEnv = { ...env, ...expandEnv(options.serverEnv, setup) };
  const redactor = new Redactor([...secretsFromEnv(env, options.redactEnv ?? []), ...secretsFromCommand(options.command)], setup?.stands);
  const exitGraceMs = options.exitGraceMs ?? EXIT_GRACE_MS;
  const killGraceMs = options.killGraceMs ?? KILL_GRACE_MS;

  return new Promise((resolvePromise) => {
    const { frames } = recording;
    let problem: string | undefined;
    let sessionEnded = false;
    let finished = false;
    let stdoutLine = 0;
    let firstSignal: NodeJS.Signals | undefined;
    let interruptedBy: NodeJS.Signals | undefined;
    let terminated = false;
    let killed = false;
    const timers: NodeJS.Timeout[] = [];
    // unref: the server's pipes keep us alive while it runs, and nothing is left to stop once it has gone
    const later = (ms: number, action: () => void) => timers.push(setTimeout(action, ms).unref());
    // Its own process group, so that a signal reaches whatever the command started (npx, a shell).
    const group = process.platform !== 'win32';
    const child = spawn(command[0]!, command.slice(1), { cwd, env: serverEnv, stdio: ['pipe', 'pipe', 'pipe'], detached: group });
    const running = () => child.exitCode === null && child.signalCode === null;
    const signalServer = (signal: NodeJS.Signals) => {
      try {
        if (group && child.pid !== undefined) process.kill(-child.pid, signal);
        else child.kill(signal);
      } catch {
        // already gone
      }
    };

    const clientLines = new LineSplitter();
    const serverLines = new LineSplitter();
    const stderrLines = new LineSplitter();
    const clientText = new StringDecoder('utf8');
    const serverText = new StringDecoder('utf8');
    const stderrText = new StringDecoder('utf8');
    const preview = (text: string, length: number) => redactor.text(text).slice(0, length);

    const tapClient = (line: string) => {
      const text = line.trim();
      if (text === '') return;
      let message: unknown;
      try {
        message = JSON.parse(text) as unknown;
      } catch {
        return log(`the client sent a line that is not JSON; not recorded: ${preview(text, 80)}`);
      }
      if (!isObject(message) || kindOf(message) === undefined) {
        return log(`the client sent something that is not a JSON-RPC message; not recorded: ${preview(text, 80)}`);
      }
      recording.tapClient({ from: 'client', message });
    };
    const tapServer = (line: string) => {
      stdoutLine++;
      let message: unknown;
      try {
        message = line.trim() === '' ? undefined : JSON.parse(line);
      } catch {
        message = undefined;
      }
      if (isObject(message) && kindOf(message) !== undefined) {
        const frame: Frame = { from: 'server', message: message as JsonObject };
        if (line !== compactLine(message)) frame.raw = line;
        recording.tapServer(frame);
        return;
      }
      if (!options.allowNoise && line.trim() !== '' && problem === undefined) {
        problem = `the server wrote non-JSON to stdout (line ${stdoutLine} of its output): ${JSON.stringify(preview(line, 120))}; no cassette written (--allow-noise records such lines)`;
        log(problem);
      }
      frames.push({ from: 'stdout', text: line });
    };
    const tapStderr = (line: string) => {
      const text = line.replace(/\r?\n$/, '');
      frames.push({ from: 'stderr', text });
      process.stderr.write(escapeControls(redactor.text(text)) + '\n');
    };

    // With a setup, the client's `<setup>` reaches the server as the folder's path, line by line (a
    // line keeps its terminator); the cassette keeps `<setup>`, as the client wrote it.
    const forward = (line: string) => setup && child.stdin.writable && child.stdin.write(setup.expandInJson(line));
    input.on('data', (chunk: Buffer) => {
      if (!setup && child.stdin.writable) child.stdin.write(chunk);
      for (const line of clientLines.push(clientText.write(chunk))) {
        forward(line);
        tapClient(line);
      }
    });
    const terminate = () => {
      if (terminated || !running()) return;
      terminated = true;
      signalServer('SIGTERM');
      later(killGraceMs, () => {
        if (!running() || killed) return;
        log(`the server did not exit within ${killGraceMs / 1000} s of SIGTERM; stopped it with SIGKILL`);
        kill();
      });
    };
    const kill = () => {
      if (killed) return;
      killed = true;
      signalServer('SIGKILL');
    };
    const endSession = () => {
      if (sessionEnded || finished) return;
      sessionEnded = true;
      const rest = clientLines.push(clientText.end()).concat(clientLines.flush());
      for (const line of rest) {
        forward(line);
        tapClient(line);
      }
      child.stdin.end();
      later(exitGraceMs, terminate);
    };
    input.on('end', endSession);
    input.on('close', endSession);
    // The first SIGINT or SIGTERM ends the session now; a second stops everything at once.
    const onSignal = (signal: NodeJS.Signals) => {
      if (firstSignal === undefined) {
        firstSignal = signal;
        endSession();
        terminate();
        return;
      }
      interruptedBy = signal;
      kill();
    };
    const offSignals = recording.onStop(onSignal);
    child.stdin.on('error', () => {}); // a server that exits without reading is reported by its exit
    output.on('error', () => {}); // a client that stopped reading still gets its session recorded

    child.stdout.on('data', (chunk: Buffer) => {
      output.write(chunk);
      for (const line of serverLines.push(serverText.write(chunk))) tapServer(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of stderrLines.push(stderrText.write(chunk))) tapStderr(line);
    });

    const done = (code: number) => {
      if (finished) return;
      finished = true;
      for (const timer of timers) clearTimeout(timer);
      offSignals();
      input.pause();
      input.removeAllListeners('data');
      if (input === process.stdin) process.stdin.destroy(); // a client that never closed it must not keep us alive
      setup?.remove();
      resolvePromise(code);
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? 'no such command' : error.code === 'EACCES' ? 'not executable' : error.message;
      log(`cannot start the server command ${JSON.stringify(options.command[0])}: ${why}; no cassette written`);
      done(2);
    });
    child.on('exit', () => {
      later(PIPE_GRACE_MS, () => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(child.exitCode, child.signalCode);
      });
    });
    child.on('close', (code, signal) => finish(code, signal));

    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      for (const line of serverLines.push(serverText.end())) tapServer(line);
      // An unterminated JSON line is a message the server never finished; other bytes are noise.
      const fragment = serverLines.flush();
      const cut = fragment.trimStart().startsWith('{') ? fragment : '';
      if (fragment !== '' && cut === '') tapServer(fragment);
      for (const line of stderrLines.push(stderrText.end()).concat(stderrLines.flush())) if (line !== '') tapStderr(line);
      if (!output.destroyed && output !== process.stdout) output.end();
      if (problem !== undefined) return done(2);

      const unanswered = recording.unanswered();
      const flaws: string[] = [];
      if (interruptedBy !== undefined) flaws.push(`interrupted by a second ${interruptedBy}: the server was stopped with SIGKILL`);
      else if (!sessionEnded || cut !== '' || unanswered.length > 0) {
        flaws.push(`the server exited${sessionEnded ? '' : ' mid-session'} (${signal ? `signal ${signal}` : `exit code ${code}`})`);
      }
      if (cut !== '') flaws.push(`in the middle of a line (${Buffer.byteLength(cut)} bytes after its last complete line)`);
      if (unanswered.length > 0) flaws[flaws.length - 1] += `, leaving ${unanswered.join(', ')} unanswered`;
      const cutShort = options.cutShort?.();
      if (cutShort !== undefined) flaws.push(cutShort);

      const provenance: Provenance = {
        ...recording.startedBy(options.command, redactor),
        recorded: new Date().toISOString().slice(0, 10),
        recorder: 'theinference record',
        ...(options.setup !== undefined && { setup: options.setup }),
        ...(options.serverEnv !== undefined && Object.keys(options.serverEnv).length > 0 && { env: options.serverEnv }),
      };
      const { written } = recording.write(
        frames.map((frame) => redactFrame(frame, redactor)),
        (normalised) => ({ version: CASSETTE_VERSION, transport: 'stdio', provenance, free: options.free ?? DEFAULT_FREE, frames: normalised }),
        flaws.length > 0 ? flaws.join(' ') : undefined,
        { keepNondeterministic: options.keepNondeterministic },
      );
      if (written === 'nothing') return done(2);
      if (written === 'partial') return done(interruptedBy === undefined ? 1 : 128 + constants.signals[interruptedBy]);
      done(0);
    };
  });
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
