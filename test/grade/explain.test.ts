// The diff text a student reads: each case builds expected.json with the reference solution and
// the actual output with one realistic mistake, both printed the way program.ts prints them.
import { describe, expect, it } from 'vitest';
import { explainDifference } from '../../harness/grade/explain.ts';
import { detailLines } from '../../harness/report/details.ts';
import { painter } from '../../harness/report/paint.ts';
import * as reference from '../../src/mcp.ts';
import { COURSE_CONTENT } from '../../harness/stages/index.ts';

// ------------------------------------------------------------------------------- the outputs

const MESSAGES = [
  {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'course', version: '1.0.0' } },
  },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo wörld, naïve café' } } },
  { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'file:///tmp/notes.txt' } },
];

/** What program.ts prints for mcp-frame with these frame/parseFrame. */
function frameOutput(frame: (message: object) => unknown, parseFrame: (line: string) => unknown = reference.parseFrame, messages: object[] = MESSAGES): Buffer {
  const frames = messages.map(frame);
  const parsed = frames.map((line) => parseFrame(line as string));
  return Buffer.from(JSON.stringify({ frames, parsed }, null, 2) + '\n');
}

const SERVER_FIELDS = ['name', 'type', 'command', 'args', 'env', 'url', 'headers'];

/** What program.ts prints for mcp-config with this parseConfig. */
function configOutput(text: string, parseConfig: (text: string) => object[]): Buffer {
  let result: unknown;
  try {
    const servers = parseConfig(text).map((server) =>
      Object.fromEntries(SERVER_FIELDS.filter((key) => key in server).map((key) => [key, (server as Record<string, unknown>)[key]])),
    );
    result = { servers };
  } catch {
    result = { rejected: true };
  }
  return Buffer.from(JSON.stringify(result, null, 2) + '\n');
}

const EXPECTED_FRAMES = frameOutput((message) => JSON.stringify(message) + '\n');

/** The explanation as a student reads it: the difference, then the hints (every stage's rules). */
function explain(expected: Buffer, actual: Buffer, color = false): string {
  return detailLines(explainDifference(expected, actual, { hintRules: COURSE_CONTENT.hintRules() }) ?? {}, painter(color)).join('\n');
}

/** The hint lines only (a hint's second line is indented under its first). */
function hints(text: string): string {
  return text.slice(text.indexOf('hint:'));
}

function firstDifferingOffset(expected: Buffer, actual: Buffer): number {
  let offset = 0;
  while (offset < Math.min(expected.length, actual.length) && expected[offset] === actual[offset]) offset++;
  return offset;
}

/** The character the caret points at in a block ('expected.json:' or 'your stdout:'). */
function characterAtCaret(text: string, heading: string): string {
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  const caretIndex = lines.findIndex((line, index) => index > start && /│ *\^/.test(line));
  const caretLine = lines[caretIndex]!;
  const shownLine = [...lines[caretIndex - 1]!];
  return shownLine[[...caretLine].indexOf('^')] ?? '';
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sortKeysDeep((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

// ------------------------------------------------------------------------------- the byte view

describe('where the outputs differ', () => {
  it('gives the byte offset, line and column of the first difference, with a caret on both sides', () => {
    const actual = frameOutput((message) => JSON.stringify(message, null, 2) + '\n');
    const text = explain(EXPECTED_FRAMES, actual);
    const offset = firstDifferingOffset(EXPECTED_FRAMES, actual);
    const lineStart = EXPECTED_FRAMES.lastIndexOf(0x0a, offset - 1) + 1;
    const line = EXPECTED_FRAMES.subarray(0, lineStart).toString().split('\n').length;
    expect(text).toContain(`first difference at byte offset ${offset} (line ${line}, column ${offset - lineStart + 1})`);
    // Expected has {\"jsonrpc… and yours {\n  \"jsonrpc…: the caret is on the " and the n after the backslash.
    expect(characterAtCaret(text, 'expected.json:')).toBe('"');
    expect(characterAtCaret(text, 'your stdout:')).toBe('n');
    expect(text).toContain('in the JSON: first difference at frames[0]');
  });

  it('shows a little context around the difference and marks newlines with ↵', () => {
    const actual = frameOutput((message) => JSON.stringify(message, null, 2) + '\n');
    const text = explain(EXPECTED_FRAMES, actual);
    expect(text).toMatch(/1 │ \{↵\n\s*2 │ {3}"frames": \[↵\n\s*3 │ /);
    expect(text).toContain('marks: ↵ newline (\\n)');
  });

  it('says so when your output stops early, and what expected.json goes on with', () => {
    const actual = EXPECTED_FRAMES.subarray(0, EXPECTED_FRAMES.length - 1);
    const text = explain(EXPECTED_FRAMES, actual);
    expect(text).toContain(`your output stops after ${actual.length} bytes; expected.json continues with: ↵`);
    expect(text).toContain('^ your output ends here');
  });

  it('says how many extra bytes your output has, and shows them', () => {
    const actual = Buffer.concat([EXPECTED_FRAMES, Buffer.from('done\n')]);
    const text = explain(EXPECTED_FRAMES, actual);
    expect(text).toContain(`your output has 5 extra bytes after the expected ${EXPECTED_FRAMES.length}: done↵`);
    expect(text).toContain('^ expected.json ends here');
  });

  it('escapes invisible bytes: \\r, control characters, invalid UTF-8, U+2028, tabs, trailing spaces', () => {
    const expected = Buffer.from('{\n  "a": "x y"\n}\n');
    const cases: Array<[Buffer, string]> = [
      [Buffer.from('{\r\n  "a": "x y"\n}\n'), '{⟨\\r⟩↵'],
      [Buffer.from('{\n  "a": "x\x1by"\n}\n'), '"x⟨\\x1B⟩y"'],
      [Buffer.from([...Buffer.from('{\n  "a": "x'), 0xff, ...Buffer.from('y"\n}\n')]), '"x⟨\\xFF⟩y"'],
      [Buffer.from('{\n  "a": "x\u2028y"\n}\n'), '"x⟨U+2028⟩y"'],
      [Buffer.from('{\n  "a": "x\u00a0y"\n}\n'), '"x⟨U+00A0⟩y"'],
      [Buffer.from('{\n\t"a": "x y"\n}\n'), '2 │ →"a"'],
      [Buffer.from('{  \n  "a": "x y"\n}\n'), '1 │ {··↵'],
    ];
    for (const [actual, shown] of cases) {
      const text = explain(expected, actual);
      expect(text).toContain(shown);
      expect(text).toMatch(/marks: .*(⟨\\r⟩|→ tab|· space)/);
    }
  });

  it('puts the caret under the difference after wide characters', () => {
    const text = explain(Buffer.from('"ab😀漢cd"\n'), Buffer.from('"ab😀漢cX"\n'));
    // 😀 and 漢 take two columns each: the caret sits 1 + 2 + 2 + 2 + 1 columns in.
    const caretLine = text.split('\n').find((line) => line.includes('│') && line.trim().endsWith('^'))!;
    expect(caretLine.slice(caretLine.indexOf('│') + 2).indexOf('^')).toBe(8);
  });

  it('windows a long line around the difference with … on both ends', () => {
    const long = 'x'.repeat(50_000);
    const expected = Buffer.from(`["${long}a${long}"]\n`);
    const actual = Buffer.from(`["${long}b${long}"]\n`);
    const text = explain(expected, actual);
    expect(text).toContain(`first difference at byte offset ${50_002} (line 1, column ${50_003})`);
    expect(text).toMatch(/1 │ …x+ax+…/);
    expect(text).toMatch(/1 │ …x+bx+…/);
    expect(characterAtCaret(text, 'expected.json:')).toBe('a');
    expect(characterAtCaret(text, 'your stdout:')).toBe('b');
    for (const line of text.split('\n')) expect([...line].length).toBeLessThan(200);
  });
});

// ------------------------------------------------------------------------------- frame hints

describe('hints on frames', () => {
  it('pretty-printed frame: never use the indent argument', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message, null, 2) + '\n'),
    );
    expect(hints(text)).toContain("frames[0] (and 3 more) is pretty-printed: never use JSON.stringify's indent argument");
  });

  it('spaces between tokens without newlines', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message).replaceAll('":', '": ') + '\n'),
    );
    expect(hints(text)).toContain('has spaces between tokens');
  });

  it('CRLF at the end of a frame', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message) + '\r\n'),
    );
    expect(hints(text)).toContain('frames[0] (and 3 more) ends with \\r\\n');
    expect(text).toMatch(/\\r\\n",↵\n/); // the JSON escape of the frame's \r\n, shown as printed
  });

  it('no newline at the end of a frame', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message)),
    );
    expect(hints(text)).toContain("has no final newline: frame() must append exactly one '\\n'");
  });

  it('two newlines at the end of a frame', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message) + '\n\n'),
    );
    expect(hints(text)).toContain("ends with 2 newlines: frame() must append exactly one '\\n'");
  });

  it('keys reordered (sorted) inside a frame', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(sortKeysDeep(message)) + '\n'),
    );
    expect(hints(text)).toMatch(/frames\[0\].*keys are in another order \(yours are sorted\)/);
    expect(hints(text)).toContain("frame() must keep the message's key order");
  });

  it('non-ASCII escaped as \\uXXXX', () => {
    const escapeNonAscii = (text: string) => text.replace(/[\u0080-\uffff]/g, (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => escapeNonAscii(JSON.stringify(message)) + '\n'),
    );
    expect(hints(text)).toContain('frames[2] writes non-ASCII characters as \\uXXXX (\\u00e9)');
    expect(hints(text)).not.toContain('frames[0]');
  });

  it('\\/ escaping', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message).replaceAll('/', '\\/') + '\n'),
    );
    expect(hints(text)).toContain("escapes '/' as '\\/'");
  });

  it('whitespace removed inside strings', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message).replace(/\s/g, '') + '\n'),
    );
    expect(hints(text)).toContain('frames[2]: whitespace inside strings was removed (at params.arguments.text)');
  });

  it('frame() returning an object, not a string', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput(
        (message) => message,
        (line) => line,
      ),
    );
    expect(hints(text)).toContain('frames[0] (and 3 more): frame() returned an object, not a string');
  });

  it('several mistakes in one frame each get their hint', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput((message) => JSON.stringify(message, null, 2)),
    );
    expect(hints(text)).toContain('is pretty-printed');
    expect(hints(text)).toContain('has no final newline');
  });
});

describe('hints on parsed', () => {
  it('parseFrame returning the line itself', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput(reference.frame, (line) => line),
    );
    expect(hints(text)).toContain('parsed[0] is a string: parseFrame must JSON.parse the line');
  });

  it('parseFrame returning nothing', () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput(reference.frame, () => undefined),
    );
    expect(hints(text)).toContain('parsed[0] is null: parseFrame returned nothing');
  });

  it("parsed differs while the frame is right: parseFrame's fault", () => {
    const text = explain(
      EXPECTED_FRAMES,
      frameOutput(reference.frame, (line) => (JSON.parse(line) as { params?: unknown }).params ?? {}),
    );
    expect(hints(text)).toContain("frames[0] is right but parsed[0] differs at parsed[0].jsonrpc (missing in yours): parseFrame's fault");
    expect(hints(text)).toContain('JSON.parse(line.trim())');
  });
});

// ------------------------------------------------------------------------------- output hints

describe('hints on the whole output', () => {
  it('a log line on stdout before the JSON', () => {
    const actual = Buffer.concat([Buffer.from('framing {"jsonrpc":"2.0","id":1}\n'), EXPECTED_FRAMES]);
    const text = explain(EXPECTED_FRAMES, actual);
    expect(hints(text)).toContain('a log line on stdout: framing {"jsonrpc":"2.0","id":1}');
    expect(hints(text)).toContain('use console.error: stdout is the protocol channel');
    expect(text).toContain('your stdout is not valid JSON');
    expect(text).toContain('without the lines that are not JSON: the JSON is right');
  });

  it('log lines between and after the JSON lines, counted', () => {
    const lines = EXPECTED_FRAMES.toString().split('\n');
    lines.splice(3, 0, 'debug: framed 4 messages');
    lines.push('bye');
    const text = explain(EXPECTED_FRAMES, Buffer.from(lines.join('\n')));
    expect(hints(text)).toContain('a log line on stdout: debug: framed 4 messages (and 1 more)');
  });

  it('a log line and a pretty-printed frame together', () => {
    const actual = Buffer.concat([Buffer.from('calling frame()\n'), frameOutput((message) => JSON.stringify(message, null, 2) + '\n')]);
    const text = hints(explain(EXPECTED_FRAMES, actual));
    expect(text).toContain('a log line on stdout: calling frame()');
    expect(text).toContain('is pretty-printed');
  });

  it('CRLF line ends in the raw output', () => {
    const actual = Buffer.from(EXPECTED_FRAMES.toString().replaceAll('\n', '\r\n'));
    const text = explain(EXPECTED_FRAMES, actual);
    expect(hints(text)).toContain('your output ends its lines with \\r\\n (CRLF); write \\n only');
    expect(text).toContain('1 │ {⟨\\r⟩↵');
  });

  it('missing final newline in the raw output', () => {
    const text = explain(EXPECTED_FRAMES, EXPECTED_FRAMES.subarray(0, -1));
    expect(hints(text)).toContain('your output does not end with a newline');
  });

  it('two newlines at the end of the raw output', () => {
    const text = explain(EXPECTED_FRAMES, Buffer.concat([EXPECTED_FRAMES, Buffer.from('\n')]));
    expect(hints(text)).toContain('your output ends with 2 line breaks');
  });

  it('keys sorted in a result', () => {
    const expected = Buffer.from(JSON.stringify({ tools: [{ name: 'echo', description: 'Echoes', inputSchema: { type: 'object' } }] }, null, 2) + '\n');
    const actual = Buffer.from(JSON.stringify(sortKeysDeep(JSON.parse(expected.toString())), null, 2) + '\n');
    const text = explain(expected, actual);
    expect(text).toContain('first difference at tools[0] (same keys in another order');
    expect(hints(text)).toContain('tools[0]: the same keys in another order (yours are sorted)');
  });

  it('empty output', () => {
    const text = explain(EXPECTED_FRAMES, Buffer.alloc(0));
    expect(hints(text)).toContain('your program printed nothing on stdout');
    expect(text).toContain('your output is empty; expected.json begins with: {↵');
  });

  it('no difference at all', () => {
    expect(explainDifference(EXPECTED_FRAMES, Buffer.from(EXPECTED_FRAMES))).toBeUndefined();
  });
});

// ------------------------------------------------------------------------------- config hints

type Entry = { type?: string; command?: string; args?: unknown; env?: unknown; url?: string; headers?: unknown };
const entriesOf = (text: string) => Object.entries((JSON.parse(text) as { mcpServers: Record<string, Entry> }).mcpServers);

const CONFIG = JSON.stringify({
  mcpServers: {
    zeta: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    alpha: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer t' } },
    files: { type: 'stdio', command: 'node', env: { ROOT: '/tmp' } },
  },
});

describe('hints on configs', () => {
  const expected = configOutput(CONFIG, reference.parseConfig);

  it('type not inferred', () => {
    const noInference = (text: string) => entriesOf(text).map(([name, entry]) => ({ name, ...entry, args: entry.args ?? [], env: entry.env ?? {} }));
    const text = explain(expected, configOutput(CONFIG, noInference));
    expect(text).toContain('first difference at servers[0].type (missing in yours)');
    expect(hints(text)).toContain('servers[0] has no type, expected "stdio": infer the type');
    expect(hints(text)).toContain('"command" means stdio, "url" means http');
  });

  it('defaults missing', () => {
    const noDefaults = (text: string) => entriesOf(text).map(([name, entry]) => ({ name, type: entry.type ?? (entry.command ? 'stdio' : 'http'), ...entry }));
    const text = explain(expected, configOutput(CONFIG, noDefaults));
    expect(hints(text)).toContain('defaults are missing: servers[0] has no env; servers[2] has no args');
    expect(hints(text)).toContain('args defaults to [], env and headers to {}');
  });

  it('file order lost', () => {
    const sorted = (text: string) => reference.parseConfig(text).sort((left, right) => left.name.localeCompare(right.name));
    const text = explain(expected, configOutput(CONFIG, sorted));
    expect(hints(text)).toContain("the servers are in another order (yours are sorted by name): keep the file's order");
  });

  it('an http server with stdio fields', () => {
    const everything = (text: string) => reference.parseConfig(text).map((server) => ({ args: [], env: {}, headers: {}, ...server }));
    const text = explain(expected, configOutput(CONFIG, everything));
    expect(hints(text)).toContain('servers[0] is stdio but has headers');
  });

  it('an invalid entry accepted: says which', () => {
    const lenient = (text: string) => entriesOf(text).map(([name, entry]) => ({ name, type: entry.type ?? 'stdio', args: [], env: {}, ...entry }));
    const cases: Array<[object, string]> = [
      [{ mcpServers: { a: { command: 'node', args: [1, 2] } } }, '"args" that is not a list of strings (servers[0], "a")'],
      [{ mcpServers: { a: { type: 'stdio' } } }, 'a stdio entry without a "command" string'],
      [{ mcpServers: { a: { type: 'sse', url: 'https://x.example' } } }, 'a type other than "stdio" or "http" (servers[0], "a", here "sse")'],
      [{ mcpServers: [{ command: 'node' }] }, 'an "mcpServers" that is a list'],
      [{ mcpServers: { a: { command: 'node', env: { PORT: 8080 } } } }, '"env" values that are not strings'],
    ];
    for (const [config, reason] of cases) {
      const text = JSON.stringify(config);
      const explained = explain(configOutput(text, reference.parseConfig), configOutput(text, lenient));
      expect(explained).toContain('an invalid config was accepted: parseConfig must throw on');
      expect(explained).toContain(reason);
    }
  });

  it('a valid config rejected', () => {
    const strict = (text: string) =>
      entriesOf(text).map(([name, entry]) => {
        if (entry.type === undefined) throw new Error(`server ${name}: missing type`);
        return { name, ...entry };
      });
    const text = explain(expected, configOutput(CONFIG, strict));
    expect(hints(text)).toContain('parseConfig threw on a valid config; its message is in the [your_program] lines below');
  });
});

// ------------------------------------------------------------------------------- colour, size

describe('colour and size', () => {
  const pretty = frameOutput((message) => JSON.stringify(message, null, 2) + '\n');

  it('has no escape codes with colour off, whatever the output holds', () => {
    const actuals = [pretty, Buffer.alloc(0), Buffer.from('\x1b[31mred\x1b[0m\n'), Buffer.concat([Buffer.from('log\n'), EXPECTED_FRAMES])];
    for (const actual of actuals) expect(explain(EXPECTED_FRAMES, actual)).not.toContain('\x1b');
  });

  it('colours yours red, expected green, marks dim, with colour on', () => {
    const text = explain(EXPECTED_FRAMES, pretty, true);
    expect(text).toContain('\x1b[31m'); // red: yours from the difference on
    expect(text).toContain('\x1b[32m'); // green: expected from the difference on
    expect(text).toContain('\x1b[2m↵'); // dim: the marks
    expect(text.replace(/\x1b\[[\d;]*m/g, '')).toBe(explain(EXPECTED_FRAMES, pretty));
  });

  it('explains 1 MiB outputs briefly', () => {
    const messages = Array.from({ length: 2500 }, (_, index) => ({
      jsonrpc: '2.0',
      id: index,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: `message ${index} ${'·'.repeat(100)}` } },
    }));
    const expected = frameOutput((message) => JSON.stringify(message) + '\n', reference.parseFrame, messages);
    const broken = (message: object) => (JSON.stringify(message) + '\n').replace('"id":2499', '"id": 2499');
    const actual = frameOutput(broken, reference.parseFrame, messages);
    expect(expected.length).toBeGreaterThan(1024 * 1024);
    // How fast is bench/explain.ts's to say: a test on a loaded machine cannot.
    const text = explain(expected, actual);
    expect(text).toContain('frames[2499]');
    expect(hints(text)).toContain('frames[2499] has spaces between tokens');
    expect(text.length).toBeLessThan(5000);
  });

  it('explains a 1 MiB output on one line, briefly', () => {
    const expected = Buffer.alloc(1024 * 1024, 'a');
    const actual = Buffer.from(expected);
    actual[700_000] = 0x62;
    const text = explain(expected, actual);
    expect(text.length).toBeLessThan(5000);
    expect(text).toContain('first difference at byte offset 700000 (line 1, column 700001)');
    expect(characterAtCaret(text, 'your stdout:')).toBe('b');
  });
});
