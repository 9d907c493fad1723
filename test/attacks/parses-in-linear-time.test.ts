// Every parser of program text in the grader is linear (issue 62, route 2): what a program chose (its
// stdout and stderr, what its client sends the player, what its oracle answers, the end it says, the
// source it submits) is read, scanned, matched, diffed and quoted on the grader's own thread, where
// one quadratic step fed a megabyte stops a whole class's grading for minutes. Each row of the table
// is one parser, reached as the grader reaches it, with a generator of its worst input. The input
// grows (16 KiB, 64 KiB, 256 KiB, 1 MiB: the output cap of a stream) and the parser's CPU time is
// measured at each size, on this thread; the first size over its share of BUDGET_MS fails the row,
// so that a quadratic parser fails in a second rather than running for minutes. CPU time, not wall
// time: the machine is loaded 5-30x. A parser whose input is larger than the output cap (a source
// file, a body) grows to its own cap, with the budget in proportion.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import type { SourceMapPayload } from 'node:module';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Message } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { parseCassette } from '../../harness/cassette/format/format.ts';
import type { Cassette } from '../../harness/cassette/format/model.ts';
import { Player } from '../../harness/cassette/player/player.ts';
import { loadSchemas } from '../../harness/cassette/player/schema.ts';
import { firstErrorLine } from '../../harness/grade/case.ts';
import { visible } from '../../harness/grade/escape.ts';
import { explainDifference } from '../../harness/grade/explain.ts';
import { Answers, callOf } from '../../harness/props/answers.ts';
import { LineReader } from '../../harness/props/oracle-session.ts';
import { clip as clipShown, show } from '../../harness/props/show.ts';
import { decodeAnswer, encode } from '../../harness/props/values.ts';
import { toHtml } from '../../harness/report/html.ts';
import { toJUnit } from '../../harness/report/junit.ts';
import { toSummary } from '../../harness/report/summary.ts';
import { TerminalReporter } from '../../harness/report/terminal.ts';
import { OutcomeLine } from '../../harness/run/bundle.ts';
import { mapOutside, MAX_BUNDLE_INPUT_BYTES, refusalOf } from '../../harness/run/confine.ts';
import { sourcePositions } from '../../harness/run/source-positions.ts';
import { EndLine } from '../../harness/run/spawn.ts';
import { hintRulesUpTo } from '../../harness/stages/index.ts';
import { escapeControls, escapeGraderText, headLines, oneLine } from '../../harness/terminal-text.ts';
import { readStartReport } from '../../harness/transports/stdio/case-server.ts';
import { SseParser } from '../../harness/transports/http/sse.ts';
import { serveCassette, type HttpPlayerSession } from '../../harness/transports/http/serve.ts';
import { checkOf, reportOf } from '../helpers/reports.ts';

const KiB = 1024;
const MiB = 1024 * KiB;
/** The output cap of a program's stream: the size of every parser's largest input but those with a cap of their own. */
const OUTPUT_CAP = MiB;
/** CPU time a parser may take on 1 MiB of its worst input: the slowest here takes 0.25 s (a quadratic
 *  one, minutes). */
const BUDGET_MS = 2000;
/** Below this a size's share is not cut further: the first calls of a parser (its code compiled, its
 *  regular expressions too) cost a few milliseconds whatever the size. */
const FLOOR_MS = 200;
const ROOT = resolve(import.meta.dirname, '../..');

interface Parser<T> {
  /** The parser, as the grader reaches it. */
  parser: string;
  /** Its worst input, in words. */
  worst: string;
  /** That input, of about `bytes` bytes (made before the clock starts). */
  input(bytes: number): T | Promise<T>;
  /** The grader's work on it, timed. */
  parse(input: T): unknown;
  /** Done with it, after the clock stops. */
  after?(input: T): unknown;
  /** Its largest input, where that is not a stream's output cap. */
  max?: number;
}

/** A row of the table, its input's type left to it. */
const row = <T>(parser: Parser<T>) => parser as Parser<unknown>;

/** `text` repeated to `bytes` bytes (a little more or less: it is the shape that matters). */
const fill = (text: string, bytes: number) => text.repeat(Math.max(1, Math.round(bytes / text.length)));

// ----------------------------------------------------------------------------- the program's stderr

const BUNDLE = '/course/.theinference/program-1.mjs';

/** A mapper of BUNDLE's positions, whose one source is `source`: every position maps to its first line. */
function mapperOf(source: string) {
  const payload: SourceMapPayload = {
    file: 'program-1.mjs',
    version: 3,
    sources: ['../src/mcp.ts'],
    sourcesContent: [source],
    names: [],
    mappings: 'AAAA',
    sourceRoot: '',
  };
  return sourcePositions(BUNDLE, payload);
}

const STDERR: Parser<unknown>[] = [
  row({
    parser: 'run/source-positions.ts, stack frames told in the sources',
    worst: "newlines, then the bundle's path (a frame's `\\s+` under the m flag)",
    input: (bytes) => ({ map: mapperOf('export {};\n'), text: `${'\n'.repeat(bytes)}${BUNDLE}:1:1\n` }),
    parse: ({ map, text }) => map(text),
  }),
  row({
    parser: 'run/source-positions.ts, stack frames told in the sources',
    worst: 'frames into a source as large as the output (its lines, split for each frame)',
    input: (bytes) => ({ map: mapperOf(fill('const a = 1;\n', bytes)), text: fill(`    at f (${BUNDLE}:1:1)\n`, bytes) }),
    parse: ({ map, text }) => map(text),
  }),
  row({
    parser: 'run/source-positions.ts, stack frames told in the sources',
    worst: "one line of frames' openings, `at f (` without a position",
    input: (bytes) => ({ map: mapperOf('export {};\n'), text: `    at ${fill('f (', bytes)}${BUNDLE}:1\n${BUNDLE}:1\n` }),
    parse: ({ map, text }) => map(text),
  }),
  row({
    parser: 'run/source-positions.ts, stack frames told in the sources',
    worst: 'headers of an uncaught error (the path, a line, spaces and carets) that never end',
    input: (bytes) => ({ map: mapperOf('export {};\n'), text: fill(`${BUNDLE}:1\nx\n${' '.repeat(64)}${'^'.repeat(64)}x\n`, bytes) }),
    parse: ({ map, text }) => map(text),
  }),
  row({
    parser: "grade/case.ts, a crash's error line",
    worst: 'one line of words ending in Error, without a colon',
    input: (bytes) => `  ${fill('Error', bytes / 2)} ${fill('x', bytes / 2)}`,
    parse: (stderr) => firstErrorLine(stderr),
  }),
  row({
    parser: 'report/terminal.ts, verdicts with what the program printed',
    worst: 'Node frames, controls, figures and long lines, in its stderr, message and details; twice',
    input: (bytes) => {
      const text = fill(`    at x (node:internal/a:1:1)\n\x1b[2J\r\u202e\t1.2.3.4 ${'y'.repeat(3000)}\n`, bytes / 3);
      return { name: 'case', status: 'crash' as const, message: text, details: text, stderr: text, durationMs: 1 };
    },
    parse: (verdict) => {
      // the second is the same mistake as the first: told as one, by the kind of its message
      const reporter = new TerminalReporter(() => {}, { color: true, verbose: false });
      reporter.verdict(verdict);
      reporter.verdict({ ...verdict, name: 'again' });
    },
  }),
];

// ----------------------------------------------------------------------------- the program's stdout

/** What the comparison of an output with expected.json reads it with: every stage's hint rules. */
const explain = (expected: string, actual: Buffer) => explainDifference(Buffer.from(expected), actual, { hintRules: hintRulesUpTo() });
const FRAMES_EXPECTED = `${JSON.stringify({ frames: ['{"jsonrpc":"2.0","id":1,"method":"ping"}\n'], parsed: [{ jsonrpc: '2.0', id: 1, method: 'ping' }] }, null, 2)}\n`;
const OBJECT_EXPECTED = '{\n  "a": 1,\n  "b": 2\n}\n';

const STDOUT: Parser<unknown>[] = [
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: 'newlines, a letter, newlines (the final newline rule)',
    input: (bytes) => Buffer.from(`${'\n'.repeat(bytes / 2)}x${'\n'.repeat(bytes / 2)}`),
    parse: (actual) => explain(OBJECT_EXPECTED, actual),
  }),
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: "a frame of newlines, a letter, newlines (the frames rule's line end)",
    input: (bytes) => Buffer.from(`${JSON.stringify({ frames: [`${'\n'.repeat(bytes / 4)}x${'\n'.repeat(bytes / 4)}`], parsed: [null] }, null, 2)}\n`),
    parse: (actual) => explain(FRAMES_EXPECTED, actual),
  }),
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: "a frame of spaced JSON with \\/ and \\u escapes (the frames rule's rewrites)",
    input: (bytes) => Buffer.from(`${JSON.stringify({ frames: [`{ "a" : "${fill('\\/\\u00e9 \\\\', bytes / 2)}" }\n`], parsed: [null] }, null, 2)}\n`),
    parse: (actual) => explain(FRAMES_EXPECTED, actual),
  }),
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: 'log lines around the JSON, blank lines among them',
    input: (bytes) => Buffer.from(`${fill('log\n\n', bytes / 2)}${OBJECT_EXPECTED}${fill('log\n', bytes / 2)}`),
    parse: (actual) => explain(OBJECT_EXPECTED, actual),
  }),
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: 'the keys in another order, and a great many more keys',
    input: (bytes) => {
      const value: Record<string, number> = { b: 2, a: 1 };
      for (let key = 0; key < bytes / 12; key++) value[`k${key}`] = key;
      return Buffer.from(`${JSON.stringify(value)}\n`);
    },
    parse: (actual) => explain(OBJECT_EXPECTED, actual),
  }),
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: 'arrays nested as deep as the output is long',
    input: (bytes) => Buffer.from(`${'['.repeat(bytes / 2)}${']'.repeat(bytes / 2)}\n`),
    parse: (actual) => explain(OBJECT_EXPECTED, actual),
  }),
  row({
    parser: 'grade/explain.ts, an output against expected.json, with every hint rule',
    worst: 'one line of spaces, control bytes and invalid UTF-8, then a brace',
    input: (bytes) => Buffer.concat([Buffer.from(fill(' \t\r\x1b', bytes / 2)), Buffer.alloc(bytes / 2, 0xff), Buffer.from('{\n')]),
    parse: (actual) => explain(OBJECT_EXPECTED, actual),
  }),
  ...(
    [
      ["terminal-text.ts escapeControls, a program's words", escapeControls],
      ['terminal-text.ts oneLine, a message quoting a program', oneLine],
      ['terminal-text.ts escapeGraderText, words of the grader quoting a program', (text: string) => escapeGraderText(text, true)],
      ["terminal-text.ts headLines, the first lines of a program's text", (text: string) => headLines(text, 20)],
      ['grade/escape.ts visible, prose quoting the output', visible],
    ] as const
  ).map(([parser, parse]) =>
    row({
      parser,
      worst: 'unended escape sequences, controls, bidi marks and newlines',
      input: (bytes) => fill('\x1b[1;2;3\x1b[31m\r\n\u202e\u00a0\t\x00', bytes),
      parse,
    }),
  ),
  row({
    parser: 'report/html.ts, summary.ts, junit.ts: a report of checks quoting a program',
    worst: 'markup, backticks, pipes, controls and newlines in every text a check keeps',
    input: (bytes) => {
      // the texts a check keeps together as large as the output
      const text = fill('<a href="x">&amp;</a> ``` | \x1b[2J\r\n]]> ', bytes / 8);
      const kept = { text, size: text.length, truncated: false };
      const check = checkOf({
        id: 'c',
        name: text,
        status: 'fail',
        message: text,
        details: kept,
        stderr: kept,
        output: kept,
        hints: [{ kind: 'k', lines: [text, text] }],
      });
      return reportOf({
        status: 'fail',
        stages: [{ slug: 's', title: text, status: 'fail', checks: [check], durationMs: 1, advisories: 0, planned: 1, points: { earned: 0, possible: 1 } }],
      });
    },
    parse: (report) => [toHtml(report), toSummary(report), toJUnit(report)],
  }),
];

// ----------------------------------------------------------------------------- what a client sends the player

const HANDSHAKE = join(ROOT, 'fixtures', 'handshake', 'memory-server', 'cassette.yaml');
const cassetteAt = (path: string): Cassette => parseCassette(readFileSync(path, 'utf8'), path);

/** The player of a recorded handshake, started, its schemas loaded: every check it makes runs on the clock. */
async function playerWith<T>(wire: T): Promise<{ player: Player; wire: T }> {
  await loadSchemas();
  const player = new Player(cassetteAt(HANDSHAKE), { write: () => {} });
  player.start();
  return { player, wire };
}

const PLAYER: Parser<unknown>[] = [
  row({
    parser: 'cassette/player, a client message held to the recording',
    worst: 'an initialize whose params differ in a great many keys',
    input: (bytes) => {
      const params: Record<string, unknown> = { protocolVersion: '2025-11-25', capabilities: {} };
      for (let key = 0; key < bytes / 12; key++) params[`k${key}`] = key;
      return playerWith(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params })}\n`);
    },
    parse: ({ player, wire }) => player.receiveChunk(wire),
  }),
  row({
    parser: 'cassette/player, a client message held to the recording',
    worst: 'an initialize whose params are nested as deep as it is long (not read past 500 levels)',
    input: (bytes) =>
      playerWith(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":${'['.repeat(bytes / 2)}${']'.repeat(bytes / 2)}}}\n`),
    parse: ({ player, wire }) => player.receiveChunk(wire),
  }),
  row({
    parser: 'cassette/player, a client message held to the recording',
    worst: 'messages of a few bytes, each unexpected (the diagnoses full, the rest counted)',
    input: (bytes) => playerWith(fill('{"jsonrpc":"2.0","id":7,"method":"x/y"}\n', bytes)),
    parse: ({ player, wire }) => player.receiveChunk(wire),
  }),
  row({
    parser: 'cassette/player, a client message held to the recording',
    worst: 'a long string id and method, sent again and again',
    input: (bytes) => playerWith(fill(`{"jsonrpc":"2.0","id":"${'i'.repeat(4000)}","method":"${'m'.repeat(4000)}"}\n`, bytes)),
    parse: ({ player, wire }) => player.receiveChunk(wire),
  }),
  row({
    parser: 'exchange/lines.ts, the wire cut into lines',
    worst: 'one line, a character at a time',
    input: (bytes) => playerWith([...`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"${'x'.repeat(bytes)}"}}\n`]),
    parse: ({ player, wire }) => {
      for (const chunk of wire) player.receiveChunk(chunk);
    },
  }),
  row({
    parser: 'cassette/player, a client message held to the recording',
    worst: 'lines that are not JSON',
    input: (bytes) => playerWith(fill('not json {[\n', bytes)),
    parse: ({ player, wire }) => player.receiveChunk(wire),
  }),
];

/** A POST of `body` to the player's URL (the path the recording has, or `path`); resolves once answered. */
function post(player: HttpPlayerSession, body: string, headers: Record<string, string>, path?: string): Promise<number> {
  const url = new URL(path ?? player.url, player.url);
  return new Promise((done, failed) => {
    const sent = request(url, { method: 'POST', headers: { 'content-length': Buffer.byteLength(body), ...headers } }, (response) => {
      response.resume();
      response.on('end', () => done(response.statusCode ?? 0));
    });
    sent.on('error', failed);
    sent.end(body);
  });
}

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const HTTP_TOOLS = join(ROOT, 'cassettes', 'everything-http-tools.yaml');
const AUTHORIZED = join(ROOT, 'fixtures', 'authorization', 'refresh', 'cassette.yaml');

const HTTP: Parser<unknown>[] = [
  row({
    parser: 'transports/http, a POSTed message (its body read, parsed, played)',
    worst: 'an initialize of a great many keys',
    input: async (bytes) => {
      const params: Record<string, unknown> = { protocolVersion: '2025-11-25', capabilities: {} };
      for (let key = 0; key < bytes / 12; key++) params[`k${key}`] = key;
      return { player: await serveCassette(cassetteAt(HTTP_TOOLS)), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params }) };
    },
    parse: ({ player, body }) => post(player, body, MCP_HEADERS),
    after: ({ player }) => player.close(),
  }),
  row({
    parser: 'transports/http, a POSTed message (its body read, parsed, played)',
    worst: 'a body that is not JSON',
    input: async (bytes) => ({ player: await serveCassette(cassetteAt(HTTP_TOOLS)), body: fill('{"a":[ \n', bytes) }),
    parse: ({ player, body }) => post(player, body, MCP_HEADERS),
    after: ({ player }) => player.close(),
  }),
  row({
    parser: 'authorization/server.ts, a request to the authorization server',
    worst: 'a registration of a great many redirect URIs',
    input: async (bytes) => ({
      player: await serveCassette(cassetteAt(AUTHORIZED)),
      body: JSON.stringify({ client_name: 'x', redirect_uris: Array.from({ length: bytes / 24 }, (_, at) => `http://127.0.0.1/cb${at}`) }),
    }),
    parse: ({ player, body }) => post(player, body, { 'content-type': 'application/json' }, '/authorization-server/reg'),
    after: ({ player }) => player.close(),
  }),
  row({
    parser: 'authorization/server.ts, a request to the authorization server',
    worst: 'a token request whose form is one long value after another',
    input: async (bytes) => ({
      player: await serveCassette(cassetteAt(AUTHORIZED)),
      body: `grant_type=authorization_code&code_verifier=${'v'.repeat(bytes / 2)}&${fill('scope=a%20b&', bytes / 2)}`,
    }),
    parse: ({ player, body }) => post(player, body, { 'content-type': 'application/x-www-form-urlencoded' }, '/authorization-server/token'),
    after: ({ player }) => player.close(),
  }),
  row({
    parser: 'transports/http/sse.ts, an event stream read',
    worst: 'one line a character at a time, then lines ended by CR alone',
    input: (bytes) => [...`data: ${'d'.repeat(bytes / 2)}`, fill('data: x\r\r', bytes / 2)],
    parse: (chunks) => {
      const parser = new SseParser();
      for (const chunk of chunks) parser.push(chunk);
      return parser.end();
    },
  }),
  row({
    parser: "transports/stdio/case-server.ts, the report a case's server sends first",
    worst: 'a report of a great many args, a chunk at a time',
    max: 256 * KiB,
    input: (bytes) => {
      const line = `${JSON.stringify({ caseServer: { args: Array.from({ length: bytes / 8 }, () => 'arg'), env: {} } })}\n`;
      return Array.from({ length: Math.ceil(line.length / 512) }, (_, at) => Buffer.from(line.slice(at * 512, at * 512 + 512)));
    },
    parse: (chunks) =>
      new Promise((done) => {
        const wire = new PassThrough();
        readStartReport(wire, done);
        for (const chunk of chunks) wire.write(chunk);
        wire.end();
      }),
  }),
];

// ----------------------------------------------------------------------------- the property oracle

const deepValue = (bytes: number) => {
  let value: unknown = 'x'.repeat(bytes / 2);
  for (let depth = 0; depth < 400; depth++) value = [value];
  return value;
};

const ORACLE: Parser<unknown>[] = [
  row({
    parser: "props/oracle-session.ts, the oracle's wire cut into lines",
    worst: 'one answer line in chunks of a few bytes, then lines of one byte',
    input: (bytes) => [...Array.from({ length: bytes / 32 }, () => Buffer.from('a'.repeat(16))), Buffer.from(fill('\n', bytes / 2))],
    parse: (chunks) => {
      const reader = new LineReader(8 * MiB);
      for (const chunk of chunks) reader.push(chunk);
    },
  }),
  row({
    parser: "props/values.ts, an answer's value decoded",
    worst: 'a value nested as deep as it may be, and wide',
    input: (bytes) => encode({ deep: deepValue(bytes / 2), wide: Array.from({ length: bytes / 16 }, (_, at) => ({ [`k${at}`]: at })) }),
    parse: (line) => decodeAnswer(JSON.parse(line)),
  }),
  row({
    parser: 'props/answers.ts, a call answered from what the oracle said',
    worst: 'an argument as large as an answer, asked again and again',
    input: (bytes) => ({ answers: new Answers(), argument: { text: 'x'.repeat(bytes), list: Array.from({ length: bytes / 16 }, (_, at) => at) } }),
    parse: ({ answers, argument }) => {
      for (let at = 0; at < 8; at++) {
        const call = callOf('frame', [argument]);
        answers.add(call, { value: at }, 8);
        (answers.student(['frame']).frame as (value: unknown) => unknown)(argument);
      }
    },
  }),
  row({
    parser: "props/show.ts, a student's value shown",
    worst: 'invisible characters and newlines, nested deep and wide',
    input: (bytes) => ({
      text: fill('\u2028\u00a0\r\n', bytes / 2),
      deep: deepValue(bytes / 4),
      wide: Array.from({ length: bytes / 32 }, (_, at) => ({ at })),
    }),
    parse: (value) => [show(value), clipShown(show(value.text))],
  }),
];

// ----------------------------------------------------------------------------- the end said, the bundler's words

const RUN: Parser<unknown>[] = [
  row({
    parser: 'run/spawn.ts, the end a program started ahead says',
    worst: 'an end, then more, a few bytes at a time',
    input: (bytes) => [Buffer.from('end 0\n'), ...Array.from({ length: bytes / 64 }, () => Buffer.alloc(64, 'x'))],
    parse: (chunks) => {
      const end = new EndLine();
      for (const chunk of chunks) end.hear(chunk);
    },
  }),
  row({
    parser: "run/bundle.ts, the bundler's outcome line",
    worst: 'a refusal as long as the line may be, a few bytes at a time',
    input: (bytes) => Array.from({ length: bytes / 8 }, () => Buffer.alloc(8, 'x')),
    parse: (chunks) => {
      const outcome = new OutcomeLine();
      const pipe = new PassThrough();
      outcome.hear(pipe);
      for (const chunk of chunks) pipe.write(chunk);
      pipe.end('\n');
      return outcome.said;
    },
  }),
  row({
    parser: "run/confine.ts, a submitted file's source map links",
    worst: 'a sourceMappingURL comment after another',
    max: MAX_BUNDLE_INPUT_BYTES,
    input: (bytes) => Buffer.from(Array.from({ length: bytes / 32 }, (_, at) => `//# sourceMappingURL=${at}.map\n`).join('')),
    parse: (source) => mapOutside(source, join(ROOT, 'src'), join(ROOT, 'src')),
  }),
  row({
    parser: "run/confine.ts, the bundler's errors told in one line",
    worst: 'a computed import of stars, cut by a newline; a compile error on a line as long as a file',
    max: MAX_BUNDLE_INPUT_BYTES,
    input: (bytes): Message[] => {
      const lineText = 'x'.repeat(bytes / 2);
      const location = { file: 'src/mcp.ts', namespace: 'file', line: 1, column: bytes / 4, length: bytes / 4, lineText, suggestion: '' };
      const message = (text: string) => ({ id: '', pluginName: '', text, location, notes: [], detail: undefined });
      return [message(`Could not resolve import("./${'*'.repeat(bytes / 2)}\n")`), message('Expected ";" but found "x"')];
    },
    parse: (errors) => [refusalOf(errors), refusalOf(errors.slice(1))],
  }),
];

// ----------------------------------------------------------------------------- the table, timed

/** The sizes a parser is fed, up to its largest input: each four times the one before. */
function sizes(max: number): number[] {
  const all: number[] = [];
  for (let bytes = 16 * KiB; bytes <= max; bytes *= 4) all.push(bytes);
  return all;
}

/** What a parser may take on `bytes` of input: BUDGET_MS a MiB, never less than FLOOR_MS. */
function share(bytes: number): number {
  return Math.max(FLOOR_MS, (BUDGET_MS * bytes) / OUTPUT_CAP);
}

interface Figure {
  bytes: number;
  ms: number;
}

/** The parser's CPU time at each size, up to its largest input or the first size over its share. */
async function timed(parser: Parser<unknown>): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const bytes of sizes(parser.max ?? OUTPUT_CAP)) {
    const input = await parser.input(bytes);
    const before = process.cpuUsage();
    try {
      await parser.parse(input);
    } finally {
      const used = process.cpuUsage(before);
      figures.push({ bytes, ms: (used.user + used.system) / 1000 });
      await parser.after?.(input);
    }
    if (figures.at(-1)!.ms > share(bytes)) break;
  }
  return figures;
}

const said = (figures: Figure[]) => figures.map(({ bytes, ms }) => `${bytes / KiB} KiB: ${ms.toFixed(0)} ms (share ${share(bytes).toFixed(0)} ms)`).join(', ');

describe('parses-in-linear-time', () => {
  for (const parser of [...STDERR, ...STDOUT, ...PLAYER, ...HTTP, ...ORACLE, ...RUN]) {
    it(`${parser.parser}: ${parser.worst}`, async () => {
      const figures = await timed(parser);
      const over = figures.find(({ bytes, ms }) => ms > share(bytes));
      expect(over, `over its share of ${BUDGET_MS} ms a MiB: ${said(figures)}`).toBeUndefined();
    });
  }
});
