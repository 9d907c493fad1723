// Drift check: plays a cassette's client side against the live server (a command it starts, over
// stdio; over Streamable HTTP, transports/http/verify-link.ts) and compares what the server says now
// with what it said when recorded. Responses are paired by id, notifications and server
// requests by method in order; free paths, `_meta`, UUIDs and timestamps are not compared. Secrets
// go as record left them: the server gets the real values where the cassette has placeholders, and
// what it says is redacted before it is compared or printed.
import { InputError } from '../../errors.ts';
import { spawn } from 'node:child_process';
import { IdleClock, treeUsage, type TreeUsage } from '../../processes.ts';
import { FreePaths, firstDifference, formatPath } from '../../exchange/json-path.ts';
import { LineSplitter } from '../../exchange/lines.ts';
import { describeMessage, idKey, inJsonText, isObject, kindOf, type Cassette, type Json, type JsonObject } from '../format/model.ts';
import { maskNondeterministic } from './normalise.ts';
import { placeholder, Redactor, type Secret } from './redact.ts';
import { expandEnv, prepareSetup, type Setup } from './setup.ts';
import { clip } from '../../terminal-text.ts';

export interface Drift {
  /** Index of the recorded frame concerned (-1: something the live server sent that was never recorded). */
  frame: number;
  line?: number;
  message: string;
  path?: string;
  expected?: Json;
  actual?: Json;
}

export interface VerifyOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** How long to wait for each response. */
  timeoutMs?: number;
  /** The secrets of this run (redact.ts), as record finds them. */
  secrets?: readonly Secret[];
}

/** The server command could not be started: bad input, one line. */
export class StartError extends InputError {}

/** `command` may hold `<setup>`: the cassette's setup is made afresh (setup.ts), and its env set. */
export async function verifyCassette(cassette: Cassette, command: string[], options: VerifyOptions = {}): Promise<Drift[]> {
  const { setup: seed, env: serverEnv } = cassette.provenance;
  const setup = prepareSetup(seed, [...command, ...Object.values(serverEnv ?? {})], options.cwd ?? process.cwd());
  try {
    return await verifyIn(setup, cassette, setup ? command.map(setup.expand) : command, {
      ...options,
      env: { ...(options.env ?? process.env), ...expandEnv(serverEnv, setup) },
    });
  } finally {
    setup?.remove();
  }
}

/** How the client side reaches the live server: one JSON-RPC message at a time each way. */
export interface Link {
  /** Sends the client's message (its secrets and setup already in). */
  send(text: string, message: JsonObject): void;
  /** Ends the session; resolves when the server side is done. */
  close(): Promise<void>;
  /** Resolves if the server goes away on its own. */
  readonly gone: Promise<void>;
  /** What the server's processes are doing, where they are ours to see (a command's, not a URL's). */
  usage?(): TreeUsage;
}

/** Each message the server sent (parsed), or the text of a line that was not JSON. */
export type Heard = (message: unknown, text: string) => void;

async function verifyIn(setup: Setup | undefined, cassette: Cassette, command: string[], options: VerifyOptions): Promise<Drift[]> {
  return playClientSide(cassette, options, setup, 'to stdout', (heard) => stdioLink(command, options, heard));
}

/** Plays the cassette's client side through `connect`'s link to the live server and says what drifted. */
export async function playClientSide(
  cassette: Cassette,
  options: VerifyOptions,
  setup: Setup | undefined,
  /** Where the server's non-JSON went, as a drift says it. */
  where: string,
  connect: (heard: Heard, drift: Drift[]) => Promise<Link>,
): Promise<Drift[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const drift: Drift[] = [];
  const live: JsonObject[] = [];
  const redactor = new Redactor(options.secrets ?? [], setup?.stands);
  let link: Link | undefined;
  const send = (message: JsonObject) => {
    const text = restoreSecrets(JSON.stringify(message), options.secrets ?? []);
    link!.send(setup ? setup.expandInJson(text) : text, message);
  };
  let waiting: { id: string; resolve: () => void } | undefined;
  // The client's recorded answers to server-initiated requests, sent as soon as the live server asks.
  const answers = recordedAnswers(cassette);
  const answered = new Set<number>();
  const heard: Heard = (parsed, text) => {
    if (parsed === undefined) {
      if (text.trim() !== '') drift.push({ frame: -1, message: `the server wrote non-JSON ${where}: ${JSON.stringify(redactor.text(text).slice(0, 80))}` });
      return;
    }
    if (!isObject(parsed)) return;
    const message = redactor.json(parsed);
    live.push(message);
    if (kindOf(message) === 'request') {
      // the next recorded answer to this method; past the last, that one again: a server may ask more
      // often than it did when recorded (the everything server asks for roots on a timer and again from
      // a tool when the first answer has not come yet), and the client answers alike
      const ofMethod = answers.filter(({ method }) => method === message.method);
      const answer = ofMethod.find(({ frame }) => !answered.has(frame)) ?? ofMethod.at(-1);
      if (answer) {
        answered.add(answer.frame);
        send({ ...answer.message, id: message.id ?? null });
      }
    }
    // an error with a null id answers the request being waited for (the one request in flight)
    if (waiting && kindOf(message) === 'response' && (idKey(message.id) === waiting.id || message.id === null)) waiting.resolve();
  };
  link = await connect(heard, drift);
  const exited = link.gone;

  for (const [index, frame] of cassette.frames.entries()) {
    if (frame.from !== 'client') continue;
    const message = frame.message;
    const kind = kindOf(message);
    if (kind === 'response') continue; // sent when the live server asks
    send(message);
    // refused below MCP as recorded (401 before authorization): no response is to come
    const reply = frame.http?.reply;
    if (kind !== 'request' || (reply && reply.status >= 400 && reply.body !== 'json' && reply.body !== 'sse')) continue;
    const id = idKey(message.id);
    if (live.some((seen) => kindOf(seen) === 'response' && idKey(seen.id) === id)) continue;
    const idle = idleFor(timeoutMs, link.usage);
    const responded = await Promise.race([
      new Promise<boolean>((resolve) => (waiting = { id, resolve: () => resolve(true) })),
      exited.then(() => false),
      idle.done.then(() => false),
    ]);
    idle.cancel();
    waiting = undefined;
    if (!responded) {
      const waited = link.usage ? ' (not counting the time it was computing)' : '';
      drift.push({ frame: index, line: frame.line, message: `the server did not answer ${describeMessage(message)} within ${timeoutMs} ms${waited}` });
      break;
    }
  }
  // notifications that trail the last response: a loaded machine delays them, so the wait is idle time too
  await idleFor(TRAILING_MS, link.usage).done;
  await link.close();
  return [...drift, ...compare(cassette, live)];
}

/** How long the server may stay quiet after the last response before the session is ended: what it sends
 *  after that is not waited for. */
const TRAILING_MS = 100;
/** How often a waited-for server is looked at. */
const LOOK_MS = 250;
/** A server that keeps computing and never answers is given up on after this much of its CPU time. */
const MAX_COMPUTING_MS = 60_000;

/** Resolves once the server has spent `ms` of wall time not computing, or MAX_COMPUTING_MS computing. A
 *  loaded machine slows a server that is starting (a real one takes a second or two of CPU): only the
 *  time it was waiting counts against it (IdleClock). Without `usage`, plain wall time. */
function idleFor(ms: number, usage: (() => TreeUsage) | undefined): { done: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  const done = new Promise<void>((resolve) => {
    if (!usage) {
      // not unref'd: over HTTP nothing else may keep the process up while it waits for an answer
      timer = setTimeout(resolve, ms);
      return;
    }
    const first = usage().cpuMs;
    const clock = new IdleClock(performance.now(), first);
    timer = setInterval(
      () => {
        const { cpuMs: cpu, busy } = usage();
        const idle = clock.look(performance.now(), cpu, () => busy).totalMs;
        if (idle < ms && cpu - first < MAX_COMPUTING_MS) return;
        clearInterval(timer);
        resolve();
      },
      Math.min(LOOK_MS, ms),
    ).unref(); // a short wait (the trailing notifications') is looked at within itself
  });
  return { done, cancel: () => clearTimeout(timer) };
}

/** The server command as a child: messages as lines on its stdin and stdout. */
async function stdioLink(command: string[], options: VerifyOptions, heard: Heard): Promise<Link> {
  const child = spawn(command[0]!, command.slice(1), { cwd: options.cwd, env: options.env, stdio: ['pipe', 'pipe', 'ignore'] });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new StartError(`cannot start the server command ${JSON.stringify(command[0])}: ${error.code === 'ENOENT' ? 'no such command' : error.message}`)),
    );
  });
  const splitter = new LineSplitter();
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    for (const line of splitter.push(chunk)) heard(parseOrUndefined(line), line);
  });
  child.stdin.on('error', () => {});
  const gone = new Promise<void>((resolve) => child.once('close', () => resolve()));
  return {
    send: (text) => child.stdin.write(`${text}\n`),
    gone,
    usage: () => (child.pid === undefined ? { cpuMs: 0, busy: false } : treeUsage(child.pid)),
    close: async () => {
      child.stdin.end();
      const killer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await gone;
      clearTimeout(killer);
    },
  };
}

/** A line the server sent, parsed; undefined when it is not JSON. */
export function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A client message's placeholders back to the values they stand for, written as JSON text writes them
 *  (the first value of a name: a URL password found twice stands for the first). */
function restoreSecrets(json: string, secrets: readonly Secret[]): string {
  let result = json;
  for (const { name, value } of secrets) {
    const stand = placeholder(name);
    if (result.includes(stand)) result = result.split(stand).join(inJsonText(value));
  }
  return result;
}

function recordedAnswers(cassette: Cassette): { method: string; frame: number; message: JsonObject }[] {
  const methodOf = new Map<string, string>();
  const result: { method: string; frame: number; message: JsonObject }[] = [];
  for (const [index, frame] of cassette.frames.entries()) {
    if (frame.from === 'server' && kindOf(frame.message) === 'request') methodOf.set(idKey(frame.message.id), frame.message.method as string);
    if (frame.from === 'client' && kindOf(frame.message) === 'response') {
      const method = methodOf.get(idKey(frame.message.id));
      if (method) result.push({ method, frame: index, message: frame.message });
    }
  }
  return result;
}

function compare(cassette: Cassette, live: JsonObject[]): Drift[] {
  const drift: Drift[] = [];
  const used = new Set<number>();
  const globalFree = cassette.free ?? [];
  for (const [index, frame] of cassette.frames.entries()) {
    if (frame.from !== 'server') continue;
    const recorded = frame.message;
    const kind = kindOf(recorded);
    const match = live.findIndex(
      (message, i) =>
        !used.has(i) && kindOf(message) === kind && (kind === 'response' ? idKey(message.id) === idKey(recorded.id) : message.method === recorded.method),
    );
    if (match === -1) {
      // a request or notification of its own sent fewer times than recorded: a matter of timing, not drift
      if (kind !== 'response' && live.some((message) => kindOf(message) === kind && message.method === recorded.method)) continue;
      drift.push({ frame: index, line: frame.line, message: `the server no longer sends ${describeMessage(recorded)}` });
      continue;
    }
    used.add(match);
    const actual = live[match]!;
    const free = new FreePaths([...globalFree, ...(frame.free ?? [])]);
    const body = (message: JsonObject) =>
      maskNondeterministic({ result: message.result ?? null, error: message.error ?? null, params: message.params ?? null });
    const difference = firstDifference(body(recorded), body(actual), free);
    if (difference) {
      drift.push({
        frame: index,
        line: frame.line,
        message: `${describeMessage(recorded)} changed at ${formatPath(difference.path)}: ${sideBySide(difference.expected, difference.actual)}`,
        path: formatPath(difference.path),
        expected: difference.expected ?? null,
        actual: difference.actual ?? null,
      });
    }
  }
  const recordedMethods = new Set(
    cassette.frames.flatMap((frame) =>
      frame.from === 'server' && kindOf(frame.message) !== 'response' ? [`${kindOf(frame.message)} ${frame.message.method}`] : [],
    ),
  );
  for (const [i, message] of live.entries()) {
    if (used.has(i)) continue;
    // one more of a request or notification the recording has: timing again (a timer, a cache not yet filled)
    if (kindOf(message) !== 'response' && recordedMethods.has(`${kindOf(message)} ${message.method}`)) continue;
    drift.push({ frame: -1, message: `the server now also sends ${describeMessage(message)}` });
  }
  return drift;
}

/** Characters shown of a long value: before the first difference, and in all. */
const BEFORE_DIFFERENCE = 30;
const SHOWN = 80;

/** `recorded …, now …`: two strings cut around where they first differ (a long text that changed in
 *  its middle would look the same in both, cut at its start); other values from their start. */
export function sideBySide(expected: Json | undefined, actual: Json | undefined): string {
  if (typeof expected === 'string' && typeof actual === 'string') {
    let at = 0;
    while (at < expected.length && expected[at] === actual[at]) at++;
    const from = Math.max(0, at - BEFORE_DIFFERENCE);
    const cut = (text: string) => `${from > 0 ? '…' : ''}${clip(text.slice(from), SHOWN)}`;
    return `recorded ${JSON.stringify(cut(expected))}, now ${JSON.stringify(cut(actual))}${from > 0 ? ` (they differ from character ${at} on)` : ''}`;
  }
  return `recorded ${short(expected)}, now ${short(actual)}`;
}

function short(value: Json | undefined): string {
  return value === undefined ? 'nothing' : clip(JSON.stringify(value), SHOWN);
}
