// Cassette format v1: what loads, what is refused (with file, line and field), and how saving
// protects what is on disk. The lint command runs as a real process.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CassetteError, loadCassette, parseCassette } from '../../harness/cassette/format/format.ts';
import { saveCassette, serialiseCassette } from '../../harness/cassette/format/save.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import type { Cassette, ClientFrame } from '../../harness/cassette/format/model.ts';
import { cassetteCommand, ROOT } from './sdk-session.ts';

const scratch = mkdtempSync(join(tmpdir(), 'cassette-format-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const GOOD = `version: 1
transport: stdio
provenance:
  command: [node, server.js]
  recorded: 2026-11-30
frames:
  - client: {"jsonrpc":"2.0","id":1,"method":"ping"}
  - server: {"jsonrpc":"2.0","id":1,"result":{}}
`;

function refusal(text: string): CassetteError {
  try {
    parseCassette(text, 'bad.yaml');
  } catch (error) {
    if (error instanceof CassetteError) return error;
    throw error;
  }
  throw new Error('the cassette was accepted');
}

describe('cassette format v1', () => {
  it('round-trips every kind of frame, raw bytes with CRLF and chunks included', () => {
    const cassette: Cassette = {
      version: 1,
      transport: 'stdio',
      provenance: { command: ['node', 'server.js'], package: '@scope/server', packageVersion: '1.2.3', recorded: '2026-11-30', recorder: 'hand-written' },
      free: ['params.clientInfo'],
      frames: [
        { from: 'client', message: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } }, free: ['params.capabilities'] },
        { from: 'stderr', text: 'starting: ünïcode' },
        { from: 'stdout', text: 'a log line\n', chunks: ['a log ', 'line\n'] },
        { from: 'stdout', text: 'déjà vu\n', cuts: [2, 5] },
        {
          from: 'server',
          message: { result: { protocolVersion: '2025-11-25', n: 1.5, s: 'yes', d: '2026-11-30' }, jsonrpc: '2.0', id: 1 },
          raw: '{"result":{"protocolVersion":"2025-11-25","n":1.5,"s":"yes","d":"2026-11-30"},"jsonrpc":"2.0","id":1}\r\n',
          chunks: ['{"result":', '{"protocolVersion":"2025-11-25","n":1.5,"s":"yes","d":"2026-11-30"},"jsonrpc":"2.0","id":1}\r\n'],
          flush: false,
        },
      ],
    };
    const text = serialiseCassette(cassette);
    const back = parseCassette(text, 'x.yaml');
    expect(back.frames.map(({ line: _line, ...frame }) => frame)).toEqual(cassette.frames);
    expect(back.provenance).toEqual(cassette.provenance);
    expect(back.free).toEqual(cassette.free);
    expect(Object.keys((back.frames[4] as { message: object }).message)).toEqual(['result', 'jsonrpc', 'id']);
    expect(text).toContain('\\r\\n"');
  });

  it('names file, line and field for each kind of bad input', () => {
    expect(refusal('version: 1\nframes: [\n').message).toMatch(/^bad\.yaml:\d+: \(yaml\): /);
    expect(refusal(GOOD.replace('version: 1', 'version: 3')).message).toBe(
      'bad.yaml:1: version: this file is cassette version 3; this theinference reads versions 1 and 2 (update theinference)',
    );
    expect(refusal(GOOD.replace('transport: stdio', 'transport: http')).message).toBe(
      'bad.yaml:2: transport: expected "stdio" (version 1 is stdio only), got "http"',
    );
    expect(refusal(GOOD.replace('  - server:', '  - sever:')).message).toBe(
      'bad.yaml:8: frames[1]: expected exactly one of client, server, stdout, stderr, sse, auth; got none',
    );
    expect(refusal(GOOD + '    http: {request: 1}\n').message).toBe('bad.yaml:9: frames[1].http: a stdio cassette has no http field');
    expect(refusal(GOOD.replace('"jsonrpc":"2.0","id":1,"result"', '"jsonrpc":"1.0","id":1,"result"')).message).toBe(
      'bad.yaml:8: frames[1].server.jsonrpc: expected "2.0"',
    );
    expect(refusal(GOOD.replace('recorded: 2026-11-30', 'recorded: yesterday')).message).toBe('bad.yaml:5: provenance.recorded: expected a date, YYYY-MM-DD');
    expect(refusal(GOOD + '    chunks: ["{}", "x"]\n').message).toBe("bad.yaml:9: frames[1].chunks: the chunks do not add up to the frame's bytes");
    expect(refusal(GOOD + '    raw: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":2,\\"result\\":{}}\\n"\n').field).toBe('frames[1].raw');
    expect(refusal(GOOD + '    color: blue\n').message).toBe(
      'bad.yaml:9: frames[1].color: unknown field (expected one of: server, free, raw, chunks, cuts, flush, http)',
    );
    expect(refusal(GOOD + '    cuts: [5, 3]\n').message).toBe(
      'bad.yaml:9: frames[1].cuts: expected increasing byte offsets between 1 and 36 (the frame has 37 bytes)',
    );
    expect(refusal(GOOD.replace('frames:', 'free: ["params..x"]\nframes:')).field).toBe('free[0]');
  });

  it('saves atomically and never replaces a cassette unless asked', () => {
    const dir = mkdtempSync(join(scratch, 'save-'));
    const target = join(dir, 'c.yaml');
    const cassette = parseCassette(GOOD);
    saveCassette(cassette, target);
    expect(loadCassette(target).frames).toHaveLength(2);
    writeFileSync(target, 'precious');
    expect(() => saveCassette(cassette, target)).toThrow(/EEXIST/);
    expect(readFileSync(target, 'utf8')).toBe('precious');
    saveCassette(cassette, target, { overwrite: true });
    expect(readFileSync(target, 'utf8')).toBe(serialiseCassette(cassette));
    expect(readdirSync(dir)).toEqual(['c.yaml']);
  });

  it('lint: exit 0 on a sound cassette, 1 on a conversation that cannot be played, 2 with one line on bad input', () => {
    const dir = mkdtempSync(join(scratch, 'lint-'));
    const run = (file: string) => {
      const [command, ...args] = cassetteCommand('lint', file);
      return spawnSync(command!, args, { cwd: ROOT, encoding: 'utf8' });
    };
    writeFileSync(join(dir, 'good.yaml'), GOOD);
    const good = run(join(dir, 'good.yaml'));
    expect(good.status).toBe(0);
    expect(good.stdout).toContain('ok (2 frames, 1 client messages)');

    writeFileSync(join(dir, 'orphan.yaml'), GOOD.replace('"id":1,"result"', '"id":9,"result"'));
    const orphan = run(join(dir, 'orphan.yaml'));
    expect(orphan.status).toBe(1);
    expect(orphan.stderr).toContain('orphan.yaml:8: server response to id 9, but no earlier client request has that id');

    writeFileSync(join(dir, 'twice.yaml'), `${GOOD}  - server: {"jsonrpc":"2.0","id":1,"result":{}}\n`);
    const twice = run(join(dir, 'twice.yaml'));
    expect(twice.status).toBe(1);
    expect(twice.stderr).toContain('twice.yaml:9: server response to id 1, but request 1 was answered already (line 8)');

    writeFileSync(join(dir, 'newer.yaml'), GOOD.replace('version: 1', 'version: 3'));
    const newer = run(join(dir, 'newer.yaml'));
    expect(newer.status).toBe(2);
    expect(newer.stderr.trim().split('\n')).toHaveLength(1);
    expect(newer.stderr).toContain('newer.yaml:1: version: this file is cassette version 3');
  });
});

describe('lint and machine paths', () => {
  const lintOf = (text: string) => lintCassette(parseCassette(text, 'paths.yaml')).map((problem) => problem.message);

  it('refuses a home or temporary folder anywhere in a message, a URI, stderr, or the command', () => {
    const withPath = (where: string) => GOOD.replace('"result":{}', `"result":{"content":[{"type":"text","text":"read ${where}"}]}`);
    expect(lintOf(withPath('/home/ada/notes.txt'))).toEqual([
      'server frame names the machine path "/home/ada/notes.txt": record in a folder whose path the cassette does not keep, or replace it by hand',
    ]);
    expect(lintOf(withPath('file:///tmp/mcp-x1/a.txt'))).toHaveLength(1);
    expect(lintOf(withPath('C:\\\\Users\\\\ada\\\\a.txt'))).toHaveLength(1);
    expect(lintOf(`${GOOD}  - stderr: "Secure MCP Filesystem Server running in /Users/ada/project"\n`)).toHaveLength(1);
    expect(lintOf(GOOD.replace('command: [node, server.js]', 'command: [/usr/local/bin/node, server.js]'))).toEqual([
      'provenance.command names the absolute path "/usr/local/bin/node": record from the project folder, with the command as typed there',
    ]);
  });

  it('lets through what only looks like one: a URL path, a relative path, a placeholder', () => {
    const withText = (text: string) => GOOD.replace('"result":{}', `"result":{"text":${JSON.stringify(text)}}`);
    for (const text of ['https://example.com/home/page', 'fixtures/home/notes.txt', 'read <setup:root>/notes.txt', 'the /tmp folder']) {
      expect(lintOf(withText(text)), text).toEqual([]);
    }
  });
});

describe('the annotated example in docs/cassettes.md', () => {
  it('is a valid cassette that plays', async () => {
    const doc = readFileSync(join(ROOT, 'docs', 'cassettes.md'), 'utf8');
    const example = /```yaml\n([\s\S]*?)```/.exec(doc)![1]!;
    const cassette = parseCassette(example, 'docs/cassettes.md');
    const { createMemoryWire } = await import('../../harness/cassette/player/memory-wire.ts');
    const { wire, session } = createMemoryWire(cassette);
    const send = (message: object) => wire.write(JSON.stringify(message) + '\n');
    send({
      jsonrpc: '2.0',
      id: 'a',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'me', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi', at: 'now' } } });
    wire.close();
    const chunks: string[] = [];
    for await (const chunk of wire.chunks) chunks.push(chunk);
    expect(await session.done).toMatchObject({ ok: true });
    expect(chunks).toHaveLength(6); // notification, result, stdout line, two chunks, two notifications in one read
    expect(chunks.at(-1)!.split('\n')).toHaveLength(3);
  });
});

describe('cassette format v2: HTTP', () => {
  const HTTP: Cassette = {
    version: 2,
    transport: 'http',
    provenance: { url: 'http://127.0.0.1/mcp', package: '@scope/server', recorded: '2026-11-30', recorder: 'hand-written' },
    http: { path: '/mcp', get: { status: 200, headers: { 'content-type': 'text/event-stream' }, body: 'sse' }, delete: { status: 200, body: 'none' } },
    frames: [
      {
        from: 'client',
        message: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
        http: {
          path: '/mcp',
          headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: '<redacted>' },
          reply: { status: 200, headers: { 'content-type': 'text/event-stream', 'mcp-session-id': 'abc' }, body: 'sse' },
        },
      },
      { from: 'sse', data: '', http: { request: 1, id: 'e0', at: 3 } },
      {
        from: 'server',
        message: { jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-11-25' } },
        http: { request: 1, id: 'e1', event: 'message', at: 4 },
      },
      {
        from: 'client',
        message: { jsonrpc: '2.0', method: 'notifications/initialized' },
        http: { path: '/mcp', reply: { status: 202, body: 'none' } },
      },
      { from: 'sse', http: { comments: ['keepalive'], at: 900 } },
      {
        from: 'client',
        message: { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        http: { path: '/mcp', reply: { status: 400, headers: { 'content-type': 'text/plain' }, body: 'text', text: 'Bad Request' } },
      },
    ],
  };

  it('round-trips an HTTP session: the POST of each client message, its reply, every event of each stream', () => {
    const back = parseCassette(serialiseCassette(HTTP), 'h.yaml');
    expect(back.frames.map(({ line: _line, ...frame }) => frame)).toEqual(HTTP.frames);
    expect(back.http).toEqual(HTTP.http);
    expect(back.provenance).toEqual(HTTP.provenance);
    expect(back.transport).toBe('http');
  });

  it('lint: a sound HTTP session is clean; a message placed where no server could send it is named', () => {
    expect(lintCassette(HTTP)).toEqual([]);
    const misplaced = structuredClone(HTTP);
    misplaced.frames.splice(3, 0, { from: 'server', message: { jsonrpc: '2.0', method: 'notifications/message', params: {} }, http: { request: 1 } });
    misplaced.http = { path: '/mcp' }; // no GET stream
    misplaced.frames.push({ from: 'server', message: { jsonrpc: '2.0', method: 'notifications/message', params: {} }, http: {} });
    misplaced.frames.push({ from: 'server', message: { jsonrpc: '2.0', method: 'notifications/message', params: {} }, http: { request: 42 } });
    const initialized = misplaced.frames[4] as ClientFrame;
    initialized.http!.reply = { status: 200, body: 'sse' };
    expect(lintCassette(misplaced).map(({ frame, message }) => ({ frame, message }))).toEqual([
      { frame: 3, message: 'server notification notifications/message went with request 1, whose response had ended its POST already' },
      { frame: 4, message: "a client notification was answered with a sse body; only a request's POST gets one" },
      { frame: 5, message: 'an event without a message was on the GET stream, but the recording has no GET stream the server held open' },
      { frame: 7, message: 'server notification notifications/message was on the GET stream, but the recording has no GET stream the server held open' },
      { frame: 8, message: 'server notification notifications/message went with request 42, which is not a client request still open at that point' },
    ]);
  });

  it('names file, line and field for bad HTTP input', () => {
    const text = serialiseCassette(HTTP);
    expect(refusal(text.replace('status: 202', 'status: 999')).message).toMatch(
      /^bad\.yaml:\d+: frames\[3\]\.http\.reply\.status: expected an HTTP status \(100 to 599\)$/,
    );
    expect(refusal(text.replace('  url: http://127.0.0.1/mcp\n', '')).message).toBe(
      'bad.yaml:4: provenance.url: expected the URL the server was recorded at (http:// or https://)',
    );
    expect(refusal(text.replace('body: sse', 'body: stream')).field).toBe('http.get.body');
    expect(refusal(text.replace('mcp-session-id: abc', 'Mcp-Session-Id: abc')).message).toMatch(
      /frames\[0\]\.http\.reply\.headers\.Mcp-Session-Id: expected a header name in lower case$/,
    );
    expect(refusal(text.replace('  - sse: null\n    http:\n      comments:\n        - keepalive\n', '  - sse: null\n    http:\n')).message).toMatch(
      /frames\[4\]\.http\.comments: an event without data is a block of comments: give them$/,
    );
    expect(refusal(text.replace('      at: 4\n', '      at: 4\n    raw: "{}\\n"\n')).message).toMatch(/frames\[2\]\.raw: an HTTP cassette has no raw field$/);
  });
});
