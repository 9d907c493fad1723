// The student's side of the property tests: loads the student's module and answers the
// grader's calls of its exported functions on fd 3 (oracle-wire.ts). It decides nothing: fast-check
// and the checks run in the grader (check.ts), so nothing the student's code does here can
// forge a verdict; at worst it answers for its own functions.
//   node --import <tsx loader> oracle.ts --module /abs/src/mcp.ts --exports frame,parseFrame
// Once the module has loaded, this process is synchronous for good (blocking reads, synchronous
// writes): each answer is out before the student's code runs again, and nothing the module
// scheduled (timers, promise callbacks) ever runs, as when the checks ran in one synchronous loop.
import { readSync, writeSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { PROTOCOL_FD, type CallRequest } from './oracle-wire.ts';
import { decode, encode, encodeThrown } from './values.ts';

// Taken before the student's module loads, which might patch them.
const parse = JSON.parse;
const stringify = JSON.stringify;
const exit: (code: number) => never = process.exit.bind(process);
const nap = new Int32Array(new SharedArrayBuffer(4));

/** The fd was made non-blocking (not by us): wait a millisecond rather than spin. */
function pause(): void {
  Atomics.wait(nap, 0, 0, 1);
}

function send(line: string): void {
  const bytes = Buffer.from(`${line}\n`);
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(PROTOCOL_FD, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      pause();
    }
  }
}

/** The grader's requests, one per line, read with blocking reads; ends when the grader closes the wire. */
function* requests(): Generator<string> {
  const chunk = Buffer.allocUnsafe(64 * 1024);
  const decoder = new StringDecoder('utf8');
  let partial: string[] = [];
  for (;;) {
    let read: number;
    try {
      read = readSync(PROTOCOL_FD, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      pause();
      continue;
    }
    if (read === 0) return;
    const text = decoder.write(chunk.subarray(0, read));
    let start = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', start)) {
      partial.push(text.slice(start, newline));
      yield partial.join('');
      partial = [];
      start = newline + 1;
    }
    partial.push(text.slice(start));
  }
}

function answer(student: Readonly<Record<string, unknown>>, request: CallRequest): string {
  let value: unknown;
  try {
    const fn = student[request.fn] as (...args: unknown[]) => unknown;
    value = fn(...(decode(request.args) as unknown[]));
  } catch (error) {
    return `{"id":${request.id},"threw":${encodeThrown(error)}}`;
  }
  return `{"id":${request.id},"value":${encode(value)}}`;
}

/** A stdio stream on a pipe: its libuv handle can be made blocking (not in Node's typings). */
interface PipeStream {
  _handle?: { setBlocking?: (blocking: boolean) => number };
}

async function main(): Promise<never> {
  const { values } = parseArgs({ options: { module: { type: 'string' }, exports: { type: 'string' } } });
  if (values.module === undefined || values.exports === undefined) {
    process.stderr.write('oracle.ts: --module and --exports are required\n');
    return exit(2);
  }
  // The student's stdout and stderr are pipes the grader reads, to stop a flood at the output cap as in
  // a case. Node writes to a pipe asynchronously, and once this process answers calls it never returns
  // to its event loop: what did not fit in the pipe would wait in memory for good (a flood ended as a
  // loop or as a memory hog, long after). Blocking writes deliver every byte.
  for (const stream of [process.stdout, process.stderr]) (stream as unknown as PipeStream)._handle?.setBlocking?.(true);
  send(stringify({ type: 'ready' }));
  let student: Readonly<Record<string, unknown>>;
  try {
    student = (await import(pathToFileURL(values.module).href)) as Record<string, unknown>;
  } catch (error) {
    send(`{"type":"unusable","thrown":${encodeThrown(error)}}`);
    return exit(0);
  }
  const missing = values.exports.split(',').filter((name) => name !== '' && typeof student[name] !== 'function');
  if (missing.length > 0) {
    send(stringify({ type: 'unusable', missing }));
    return exit(0);
  }
  send(stringify({ type: 'loaded' }));
  for (const line of requests()) send(answer(student, parse(line) as CallRequest));
  return exit(0); // whatever timers or handles the student's module left open
}

void main();
