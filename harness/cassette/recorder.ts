// The recorder: a transparent stdio proxy. A client spawns it in place of a server; it spawns the
// real server, forwards bytes both ways unchanged, taps both directions into frames, and writes the
// cassette (redacted, normalised, atomically) when the session ends. A server that dies mid-session
// leaves only `<out>.partial`; a server that cannot start or writes non-JSON leaves nothing.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';
import { loadCassette, saveCassette } from './format.ts';
import { LineSplitter } from './lines.ts';
import { CASSETTE_VERSION, compactLine, isObject, kindOf, type Cassette, type Frame, type JsonObject, type Provenance } from './model.ts';
import { carryOver, markNondeterministic } from './normalise.ts';
import { Redactor, secretsFromEnv } from './redact.ts';

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
  /** How long the server may take to exit after its stdin closes before it is stopped. */
  exitGraceMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  input?: Readable;
  output?: Writable;
  log?: (line: string) => void;
}

const DEFAULT_FREE = ['params.clientInfo'];

/** Resolves to the exit code: 0 written, 1 the server died mid-session (.partial written), 2 bad input. */
export function record(options: RecordOptions): Promise<number> {
  const input = options.input ?? process.stdin;
  const output = options.output ?? process.stdout;
  const log = options.log ?? ((line: string) => process.stderr.write(`theinference record: ${line}\n`));
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const target = resolve(cwd, options.out);
  if (options.command.length === 0) {
    log('no server command: theinference record --out <cassette> -- <server command...>');
    return Promise.resolve(2);
  }
  if (existsSync(target) && !options.force) {
    log(`${options.out} exists; pass --force to replace it`);
    return Promise.resolve(2);
  }
  if (!existsSync(dirname(target))) {
    log(`${options.out}: the folder ${dirname(options.out)} does not exist`);
    return Promise.resolve(2);
  }

  return new Promise((resolvePromise) => {
    const frames: Frame[] = [];
    let problem: string | undefined;
    let sessionEnded = false;
    let finished = false;
    let stdoutLine = 0;
    const child = spawn(options.command[0]!, options.command.slice(1), { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });

    const clientLines = new LineSplitter();
    const serverLines = new LineSplitter();
    const stderrLines = new LineSplitter();
    const clientText = new StringDecoder('utf8');
    const serverText = new StringDecoder('utf8');
    const stderrText = new StringDecoder('utf8');

    const tapClient = (line: string) => {
      const text = line.trim();
      if (text === '') return;
      try {
        const message = JSON.parse(text) as unknown;
        if (isObject(message) && kindOf(message) !== undefined) frames.push({ from: 'client', message });
        else log(`the client sent something that is not a JSON-RPC message; not recorded: ${text.slice(0, 80)}`);
      } catch {
        log(`the client sent a line that is not JSON; not recorded: ${text.slice(0, 80)}`);
      }
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
        if (line !== compactLine(message)) frame.raw = line.endsWith('\n') ? line : line + '\n';
        frames.push(frame);
        return;
      }
      if (!options.allowNoise && line.trim() !== '' && problem === undefined) {
        problem = `the server wrote non-JSON to stdout (line ${stdoutLine} of its output): ${JSON.stringify(line.slice(0, 120))}; no cassette written (--allow-noise records such lines)`;
        log(problem);
      }
      frames.push({ from: 'stdout', text: line });
    };

    input.on('data', (chunk: Buffer) => {
      if (child.stdin.writable) child.stdin.write(chunk);
      for (const line of clientLines.push(clientText.write(chunk))) tapClient(line);
    });
    const endSession = () => {
      if (sessionEnded) return;
      sessionEnded = true;
      const rest = clientLines.push(clientText.end()).concat(clientLines.flush());
      for (const line of rest) tapClient(line);
      child.stdin.end();
      setTimeout(() => child.kill('SIGTERM'), options.exitGraceMs ?? 2000).unref();
    };
    input.on('end', endSession);
    input.on('close', endSession);
    const onSignal = () => endSession();
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    child.stdin.on('error', () => {}); // a server that exits without reading is reported by its exit
    output.on('error', () => {}); // a client that stopped reading still gets its session recorded

    child.stdout.on('data', (chunk: Buffer) => {
      output.write(chunk);
      for (const line of serverLines.push(serverText.write(chunk))) tapServer(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      process.stderr.write(chunk);
      for (const line of stderrLines.push(stderrText.write(chunk))) frames.push({ from: 'stderr', text: line.replace(/\r?\n$/, '') });
    });

    const done = (code: number) => {
      if (finished) return;
      finished = true;
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      input.pause();
      input.removeAllListeners('data');
      if (input === process.stdin) process.stdin.destroy(); // a client that never closed it must not keep us alive
      resolvePromise(code);
    };

    child.on('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? 'no such command' : error.code === 'EACCES' ? 'not executable' : error.message;
      log(`cannot start the server command ${JSON.stringify(options.command[0])}: ${why}; no cassette written`);
      done(2);
    });
    child.on('close', (code, signal) => {
      if (finished) return;
      for (const line of serverLines.push(serverText.end()).concat(serverLines.flush())) if (line !== '') tapServer(line);
      for (const line of stderrLines.push(stderrText.end()).concat(stderrLines.flush())) if (line !== '') frames.push({ from: 'stderr', text: line });
      if (!output.destroyed && output !== process.stdout) output.end();
      if (problem !== undefined) return done(2);
      const cassette = buildCassette(frames, options, env, cwd);
      if (!sessionEnded) {
        const partial = `${target}.partial`;
        saveCassette(cassette, partial, { overwrite: true });
        log(
          `the server exited mid-session (${signal ? `signal ${signal}` : `exit code ${code}`}); ${options.out} not written, what was recorded is in ${options.out}.partial`,
        );
        return done(1);
      }
      try {
        saveCassette(cassette, target, { overwrite: options.force === true });
      } catch (error) {
        log(`cannot write ${options.out}: ${(error as Error).message}`);
        return done(2);
      }
      log(`wrote ${options.out}: ${frames.filter((frame) => frame.from === 'client').length} client and ${frames.filter((frame) => frame.from === 'server').length} server messages`);
      done(0);
    });
  });
}

function buildCassette(frames: Frame[], options: RecordOptions, env: NodeJS.ProcessEnv, cwd: string): Cassette {
  const redactor = new Redactor(secretsFromEnv(env, options.redactEnv ?? []));
  const redacted: Frame[] = frames.map((frame) => {
    if (frame.from === 'stderr' || frame.from === 'stdout') return { ...frame, text: redactor.text(frame.text) };
    const copy = { ...frame, message: redactor.json(frame.message) };
    if (copy.from === 'server' && copy.raw !== undefined) copy.raw = redactor.text(copy.raw);
    return copy;
  });
  if (!options.keepNondeterministic) {
    markNondeterministic(redacted);
    const previous = previousFrames(resolve(cwd, options.out));
    if (previous) carryOver(previous, redacted);
  }
  const provenance: Provenance = {
    command: portableCommand(options.command, cwd).map((part) => redactor.text(part)),
    ...findPackage(options.command, cwd),
    recorded: new Date().toISOString().slice(0, 10),
    recorder: 'theinference record',
  };
  return { version: CASSETTE_VERSION, transport: 'stdio', provenance, free: options.free ?? DEFAULT_FREE, frames: redacted };
}

/** The frames of the cassette a re-recording replaces, if there is a readable one. */
function previousFrames(target: string): Frame[] | undefined {
  if (!existsSync(target)) return undefined;
  try {
    return loadCassette(target).frames;
  } catch {
    return undefined;
  }
}

/** The command as it would be typed in the project folder: `node`, relative paths, no home folder. */
function portableCommand(command: string[], cwd: string): string[] {
  return command.map((part, i) => {
    if (i === 0 && (part === process.execPath || /(^|[/\\])node(\.exe)?$/.test(part))) return 'node';
    if (!isAbsolute(part)) return part;
    const fromCwd = relative(cwd, part);
    if (!fromCwd.startsWith('..') && !isAbsolute(fromCwd)) return fromCwd.split(sep).join('/');
    const home = process.env.HOME;
    if (home && part.startsWith(home + sep)) return `~/${relative(home, part).split(sep).join('/')}`;
    return part;
  });
}

/** The npm package a file argument belongs to (the nearest package.json with a name above it). */
function findPackage(command: string[], cwd: string): Pick<Provenance, 'package' | 'packageVersion'> {
  for (const part of command) {
    const path = resolve(cwd, part);
    if (!part.includes('/') || !existsSync(path)) continue;
    for (let dir = dirname(path); dir !== dirname(dir); dir = dirname(dir)) {
      const manifest = join(dir, 'package.json');
      if (!existsSync(manifest)) continue;
      try {
        const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
        if (typeof name === 'string') return { package: name, ...(typeof version === 'string' ? { packageVersion: version } : {}) };
      } catch {
        // not a readable manifest: keep looking further up
      }
    }
  }
  return {};
}
