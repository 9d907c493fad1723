// The player's matching state machine through its in-memory face: hand-written cassettes, each
// test one rule of the design (recorded place, id remapping, chunks, each kind of diagnosis); and
// the player flooded with garbage, through that face, directly and on a real socket.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnoses, moreDiagnosesLine } from '../../harness/exchange/diagnosis.ts';
import { parseCassette } from '../../harness/cassette/format/format.ts';
import { createMemoryWire } from '../../harness/cassette/player/memory-wire.ts';
import type { Cassette } from '../../harness/cassette/format/model.ts';
import { MAX_LINE_CHARS, MAX_NOT_MESSAGES, Player } from '../../harness/cassette/player/player.ts';
import { KEPT_DIAGNOSES } from '../../harness/exchange/kept.ts';
import { attachPlayer } from '../../harness/transports/stdio/face.ts';
import { loadSchemas } from '../../harness/cassette/player/schema.ts';

const HEADER = `version: 1
transport: stdio
provenance:
  command: [node, server.js]
  recorded: 2026-11-30
  recorder: hand-written
free: [params.clientInfo]
frames:
`;

const INIT = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rec","version":"1"}}}`;

/** A handshake and a tools/list, written as a course author would. */
const HANDSHAKE = `${HEADER}  - client: ${INIT}
  - server: {"method":"notifications/message","params":{"level":"info","data":"booting"},"jsonrpc":"2.0"}
  - server: {"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}},"jsonrpc":"2.0","id":1}
  - client: {"jsonrpc":"2.0","method":"notifications/initialized"}
  - client: {"jsonrpc":"2.0","id":2,"method":"tools/list"}
  - server: {"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]},"jsonrpc":"2.0","id":2}
  - client: {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}
  - server: {"result":{"content":[{"type":"text","text":"hi"}]},"jsonrpc":"2.0","id":3}
`;

function cassette(text: string): Cassette {
  return parseCassette(text, 'test.yaml');
}

const line = (message: object) => JSON.stringify(message) + '\n';
const init = (id: number | string = 0, clientInfo = { name: 'student', version: '0.1' }) =>
  line({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo } });

/** Everything the wire gives back until the player has nothing more to say right now. */
async function drain(chunks: AsyncIterator<string>, count: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const next = await chunks.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('the player, in memory', () => {
  it('plays server messages at their recorded place, in their recorded key order, with the live id', async () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    const chunks = wire.chunks[Symbol.asyncIterator]();
    wire.write(init('first'));
    const [notice, result] = await drain(chunks, 2);
    expect(JSON.parse(notice!).method).toBe('notifications/message');
    expect(result).toBe(
      '{"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}},"jsonrpc":"2.0","id":"first"}\n',
    );
    wire.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    wire.write(line({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }));
    const [tools] = await drain(chunks, 1);
    expect(JSON.parse(tools!).id).toBe(7);
    wire.write(line({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: { progressToken: 'p' } } }));
    const [call] = await drain(chunks, 1);
    expect(JSON.parse(call!)).toEqual({ result: { content: [{ type: 'text', text: 'hi' }] }, jsonrpc: '2.0', id: 8 });
    wire.close();
    const report = await session.done;
    expect(report).toMatchObject({ ok: true, complete: true, consumed: 4, expected: 4, diagnoses: [] });
  });

  it('says which message the server expected when notifications/initialized is skipped, and answers with an error', async () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    const chunks = wire.chunks[Symbol.asyncIterator]();
    wire.write(init(1));
    await drain(chunks, 2);
    wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    const [error] = await drain(chunks, 1);
    expect(JSON.parse(error!)).toMatchObject({ jsonrpc: '2.0', id: 2, error: { code: -32000 } });
    const report = session.finish();
    expect(report.ok).toBe(false);
    const first = report.diagnoses[0]!;
    // tools/list is in the recording, after the notification the client skipped
    expect(first.kind).toBe('out-of-order');
    expect(first.message).toBe(
      'after the initialize result, the server expected notifications/initialized; your client sent tools/list (your id 2), which the recording has later (line 13)',
    );
    expect(first.nearest).toMatchObject({ frame: 4, line: 13 });
    expect(first.waitingFor).toMatchObject({ frame: 3, line: 12 });
    expect(report.diagnoses.at(-1)).toMatchObject({ kind: 'unused', unusedCount: 3 });
  });

  it('calls a method the recording never has unexpected', () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    wire.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    const first = session.finish().diagnoses[0]!;
    expect(first.kind).toBe('unexpected-method');
    expect(first.message).toBe('at the start of the session, the server expected initialize (recorded id 1); your client sent ping (your id 1)');
  });

  it('names the JSON path, the expected and the actual value when params differ; free fields and _meta are not compared', async () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    wire.write(init(1, { name: 'anything at all', version: '9' }));
    wire.write(line({ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: { x: 1 } } }));
    wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    wire.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } }));
    const report = session.finish();
    expect(report.diagnoses.map((d) => d.kind)).toEqual(['params-differ', 'unused']);
    expect(report.diagnoses[0]).toMatchObject({ path: 'params.arguments.message', expected: 'hi', actual: 'hello' });
    expect(report.diagnoses[0]!.message).toContain('at params.arguments.message: expected "hi", got "hello"');
  });

  it('says which rule found the difference: the kind, the method, the params, an answer', () => {
    const rule = (...messages: object[]) => {
      const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
      for (const message of messages) wire.write(line(message));
      return session.finish().diagnoses[0]?.rule;
    };
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    // a notification where the recording has a request; another method; other params
    expect(rule({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBe('kind');
    expect(rule({ jsonrpc: '2.0', id: 1, method: 'ping' })).toBe('method');
    expect(rule({ ...initialize, params: { ...initialize.params, protocolVersion: '2024-11-05' } })).toBe('params');
    // an answer to a request of the server's, with a result that differs from the recorded one
    const asks = cassette(`${HEADER}  - client: ${INIT}
  - server: {"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}},"jsonrpc":"2.0","id":1}
  - server: {"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[]}}
  - client: {"jsonrpc":"2.0","id":0,"result":{"model":"m","role":"assistant","content":{"type":"text","text":"yes"}}}
`);
    const { wire, session } = createMemoryWire(asks);
    wire.write(line(initialize));
    wire.write(line({ jsonrpc: '2.0', id: 0, result: { model: 'm', role: 'assistant', content: { type: 'text', text: 'no' } } }));
    expect(session.finish().diagnoses[0]).toMatchObject({ kind: 'params-differ', rule: 'answer', path: 'result.content.text' });
  });

  it('tells out of order from unexpected, reports exhaustion and unused interactions', async () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}
  - server: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}
  - client: {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}
  - server: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}
`;
    const swapped = createMemoryWire(cassette(text));
    swapped.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'b' } }));
    expect(swapped.session.finish().diagnoses[0]).toMatchObject({ kind: 'out-of-order', nearest: { frame: 2 } });

    const extra = createMemoryWire(cassette(text));
    extra.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } }));
    extra.wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } }));
    extra.wire.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'a' } }));
    const report = extra.session.finish();
    expect(report.diagnoses.map((d) => d.kind)).toEqual(['exhausted']);
    expect(report.diagnoses[0]!.nearest).toMatchObject({ frame: 0 });
    expect(report.complete).toBe(true);

    const short = createMemoryWire(cassette(text));
    short.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } }));
    short.wire.close();
    const shortReport = await short.session.done;
    expect(shortReport.diagnoses).toHaveLength(1);
    expect(shortReport.diagnoses[0]).toMatchObject({ kind: 'unused', unusedCount: 1 });
    expect(shortReport.diagnoses[0]!.message).toBe('the session ended before your client sent tools/call "b" (recorded id 2)');
  });

  it('writes recorded chunks as separate reads, joins frames marked flush: false, keeps CRLF and non-JSON lines', async () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"ping"}
  - stdout: "server v1 starting\\n"
  - server: {"jsonrpc":"2.0","id":1,"result":{}}
    raw: "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}\\r\\n"
    chunks: ["{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,", "\\"result\\":{}}\\r\\n"]
  - client: {"jsonrpc":"2.0","id":2,"method":"ping"}
  - server: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}
    flush: false
  - server: {"jsonrpc":"2.0","id":2,"result":{}}
`;
    const { wire } = createMemoryWire(cassette(text));
    const chunks = wire.chunks[Symbol.asyncIterator]();
    wire.write(line({ jsonrpc: '2.0', id: 'a-much-longer-id', method: 'ping' }));
    expect(await drain(chunks, 3)).toEqual(['server v1 starting\n', '{"jsonrpc":"2.0","id":"a-much-longer-id",', '"result":{}}\r\n']);
    wire.write(line({ jsonrpc: '2.0', id: 9, method: 'ping' }));
    expect(await drain(chunks, 1)).toEqual([
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"a"}}\n{"jsonrpc":"2.0","id":9,"result":{}}\n',
    ]);
  });

  it('completes a character cut by `cuts` in the next in-memory chunk', async () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"ping"}
  - stdout: "déjà\\n"
    cuts: [2]
`;
    const { wire } = createMemoryWire(cassette(text));
    const chunks = wire.chunks[Symbol.asyncIterator]();
    wire.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    expect(await drain(chunks, 2)).toEqual(['d', 'éjà\n']);
  });

  it('remaps progress tokens and cancelled request ids both ways', async () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":5}}}
  - server: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}}
  - client: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"enough"}}
  - server: {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}
`;
    const { wire, session } = createMemoryWire(cassette(text));
    const chunks = wire.chunks[Symbol.asyncIterator]();
    wire.write(line({ jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'slow', _meta: { progressToken: 'tok' } } }));
    expect(JSON.parse((await drain(chunks, 1))[0]!).params.progressToken).toBe('tok');
    wire.write(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'x', reason: 'enough' } }));
    expect(JSON.parse((await drain(chunks, 1))[0]!).params.requestId).toBe('x');
    expect(session.finish()).toMatchObject({ ok: true });
  });

  it("checks the client's answer to a server-initiated request", async () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get-roots-list"}}
  - server: {"jsonrpc":"2.0","id":0,"method":"roots/list"}
  - client: {"jsonrpc":"2.0","id":0,"result":{"roots":[{"uri":"file:///course"}]}}
  - server: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}
`;
    const right = createMemoryWire(cassette(text));
    right.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get-roots-list' } }));
    right.wire.write(line({ jsonrpc: '2.0', id: 0, result: { roots: [{ uri: 'file:///course' }] } }));
    expect(right.session.finish().ok).toBe(true);

    const wrong = createMemoryWire(cassette(text));
    wrong.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get-roots-list' } }));
    wrong.wire.write(line({ jsonrpc: '2.0', id: 0, result: { roots: [{ uri: 'file:///elsewhere' }] } }));
    expect(wrong.session.finish().diagnoses[0]).toMatchObject({ kind: 'params-differ', path: 'result.roots[0].uri' });
  });

  it('judges an answer to roots/list by what the client declared, not by the recorded answer; a wrong answer is said once, and the session goes on', async () => {
    // recorded: a client without roots, answering -32601 (the client's capabilities its own to choose, as a course's cassettes have them)
    const text = `${HEADER.replace('free: [params.clientInfo]', 'free: [params.clientInfo, params.capabilities]')}  - client: ${INIT}
  - server: {"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}},"jsonrpc":"2.0","id":1}
  - client: {"jsonrpc":"2.0","method":"notifications/initialized"}
  - client: {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get-roots-list"}}
  - server: {"jsonrpc":"2.0","id":0,"method":"roots/list"}
  - client: {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}
  - server: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}
`;
    const session = async (capabilities: object, answer: object) => {
      const { wire, session } = createMemoryWire(cassette(text));
      const chunks = wire.chunks[Symbol.asyncIterator]();
      wire.write(
        line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'c', version: '1' } } }),
      );
      await drain(chunks, 1);
      wire.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get-roots-list' } }));
      await drain(chunks, 1); // roots/list
      wire.write(line({ jsonrpc: '2.0', id: 0, ...answer }));
      const [result] = await drain(chunks, 1); // the call's result comes, whatever the answer was
      return { result: JSON.parse(result!), report: session.finish() };
    };
    const declared = await session({ roots: {} }, { result: { roots: [{ uri: 'file:///course', name: 'course' }] } });
    expect(declared.report).toMatchObject({ ok: true, complete: true });
    const undeclared = await session({}, { error: { code: -32601, message: 'no' } });
    expect(undeclared.report).toMatchObject({ ok: true, complete: true });
    // another error code where -32601 is what a client SHOULD answer: advice, and the case passes
    const otherCode = await session({}, { error: { code: -32603, message: 'no roots here' } });
    expect(otherCode.report).toMatchObject({ ok: true, complete: true, diagnoses: [] });
    expect(otherCode.report.advice).toMatchObject([{ kind: 'roots-error-code' }]);
    expect(undeclared.report.advice).toEqual([]);
    const notFile = await session({ roots: {} }, { result: { roots: [{ uri: 'https://example.com' }] } });
    // (the schema says so too: a root's uri is a file:// URI)
    // each a MUST of the spec (client/roots), not the recording's: roots-answer
    expect(notFile.report.diagnoses).toMatchObject([{ kind: 'invalid-message' }, { kind: 'roots-answer', path: 'result.roots[0].uri' }]);
    const unasked = await session({}, { result: { roots: [] } });
    expect(unasked.report.diagnoses).toMatchObject([{ kind: 'roots-answer', path: 'result' }]);
    // an error from a client that declared roots: the recording's (the course's), not the spec's
    const refused = await session({ roots: {} }, { error: { code: -32603, message: 'no' } });
    expect(refused.report.diagnoses).toMatchObject([{ kind: 'params-differ', path: 'result' }]);
    expect(unasked.result).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [] } });
  });

  it("takes the client's answer to a server request before or after the client's next message: MCP orders neither", async () => {
    // recorded answering first, and the server saying what the answer did, before the client's tools/list
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","method":"notifications/initialized"}
  - server: {"jsonrpc":"2.0","id":0,"method":"roots/list"}
  - client: {"jsonrpc":"2.0","id":0,"result":{"roots":[]}}
  - server: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"0 roots"}}
  - client: {"jsonrpc":"2.0","id":2,"method":"tools/list"}
  - server: {"jsonrpc":"2.0","id":2,"result":{"tools":[]}}
  - client: {"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}}
  - server: {"jsonrpc":"2.0","id":3,"result":{"content":[]}}
`;
    const answer = line({ jsonrpc: '2.0', id: 0, result: { roots: [] } });
    const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });

    // answered after the request that follows it in the recording: what the server said up to the
    // request is played as if the answer had come, and the request is answered at once
    const late = createMemoryWire(cassette(text));
    const chunks = late.wire.chunks[Symbol.asyncIterator]();
    late.wire.write(initialized);
    expect(JSON.parse((await drain(chunks, 1))[0]!)).toMatchObject({ method: 'roots/list' });
    late.wire.write(line({ jsonrpc: '2.0', id: 'a', method: 'tools/list' }));
    const [notice, tools] = await drain(chunks, 2);
    expect(JSON.parse(notice!)).toMatchObject({ method: 'notifications/message' });
    expect(JSON.parse(tools!)).toEqual({ jsonrpc: '2.0', id: 'a', result: { tools: [] } });
    late.wire.write(answer);
    late.wire.write(line({ jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'a' } }));
    late.wire.close();
    expect(await late.session.done).toMatchObject({ ok: true, complete: true, consumed: 4, diagnoses: [] });

    // never answered: the answer owed is the one named
    const last = createMemoryWire(cassette(text));
    last.wire.write(initialized);
    last.wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    last.wire.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'a' } }));
    const owing = last.session.finish();
    expect(owing.diagnoses).toHaveLength(1);
    expect(owing.diagnoses[0]).toMatchObject({ kind: 'unused', unusedCount: 1, waitingFor: { frame: 2 } });
    expect(owing.diagnoses[0]!.message).toBe("the session ended before your client sent an answer to the server's roots/list request (the server's id 0)");

    // recorded with the request first, answered first: the answer is taken ahead of its place
    const swapped = text
      .replace(`  - client: {"jsonrpc":"2.0","id":0,"result":{"roots":[]}}\n`, '')
      .replace(
        `  - client: {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n`,
        `  - client: {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n  - client: {"jsonrpc":"2.0","id":0,"result":{"roots":[]}}\n`,
      );
    expect(swapped).not.toBe(text);
    const early = createMemoryWire(cassette(swapped));
    for (const message of [
      initialized,
      answer,
      line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'a' } }),
    ]) {
      early.wire.write(message);
    }
    expect(early.session.finish()).toMatchObject({ ok: true, complete: true, consumed: 4 });
  });

  it("still refuses an answer to a request the server has not sent, a wrong answer out of place, and the client's own messages swapped", () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}
  - server: {"jsonrpc":"2.0","id":0,"method":"roots/list"}
  - client: {"jsonrpc":"2.0","id":0,"result":{"roots":[]}}
  - client: {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"b"}}
  - server: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}
  - server: {"jsonrpc":"2.0","id":2,"result":{"content":[]}}
`;
    const unasked = createMemoryWire(cassette(text));
    unasked.wire.write(line({ jsonrpc: '2.0', id: 0, result: { roots: [] } }));
    expect(unasked.session.finish().diagnoses[0]).toMatchObject({ kind: 'out-of-order', waitingFor: { frame: 0 } });

    const wrong = createMemoryWire(cassette(text));
    wrong.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'a' } }));
    wrong.wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'b' } }));
    wrong.wire.write(line({ jsonrpc: '2.0', id: 0, result: { roots: [{ uri: 'file:///elsewhere' }] } }));
    expect(wrong.session.finish().diagnoses).toMatchObject([
      { kind: 'params-differ', path: 'result.roots[0]', waitingFor: { frame: 2 } },
      { kind: 'unused', waitingFor: { frame: 2 } },
    ]);

    const swapped = createMemoryWire(cassette(text));
    swapped.wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'b' } }));
    expect(swapped.session.finish().diagnoses[0]).toMatchObject({ kind: 'out-of-order' });
  });

  it('says when a request reuses an id the client gave an earlier request, answered or not, and still plays it', async () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    wire.write(init(1));
    wire.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    wire.write(line({ jsonrpc: '2.0', id: '1', method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' } } }));
    const report = session.finish();
    expect(report.complete).toBe(true);
    expect(report.diagnoses).toHaveLength(1);
    expect(report.diagnoses[0]).toMatchObject({
      kind: 'id-reused',
      message:
        'your client sent tools/list (your id 1) with an id it already gave initialize in this session: every request needs an id never used before in the session',
    });
  });

  it('reads params as MCP means them: arguments left out are the empty arguments, either way round', () => {
    const played = (recorded: string, sent: object) => {
      const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get-tiny-image"${recorded}}}
  - server: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}
`;
      const { wire, session } = createMemoryWire(cassette(text));
      wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get-tiny-image', ...sent } }));
      return session.finish();
    };
    expect(played(',"arguments":{}', {}).ok).toBe(true);
    expect(played('', { arguments: {} }).ok).toBe(true);
    expect(played(',"arguments":{}', { arguments: {} }).ok).toBe(true);
    // only empty is the default: arguments that hold something are compared
    expect(played(',"arguments":{"size":1}', {}).diagnoses[0]).toMatchObject({ kind: 'params-differ', path: 'params.arguments' });
    expect(played('', { arguments: { size: 1 } }).diagnoses[0]).toMatchObject({ kind: 'params-differ', path: 'params.arguments' });
  });

  it("compares an error the client answers with by its code: the message and data are the client's own words", async () => {
    const text = `${HEADER}  - client: {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}
  - server: {"jsonrpc":"2.0","id":0,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}}
  - client: {"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"Method not found"}}
  - server: {"jsonrpc":"2.0","id":1,"result":{"content":[]}}
`;
    const answer = (error: object) => {
      const { wire, session } = createMemoryWire(cassette(text));
      wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo' } }));
      wire.write(line({ jsonrpc: '2.0', id: 0, error }));
      return session.finish();
    };
    expect(answer({ code: -32601, message: 'Method not found: sampling/createMessage', data: { method: 'sampling/createMessage' } }).ok).toBe(true);
    expect(answer({ code: -32603, message: 'Method not found' }).diagnoses[0]).toMatchObject({
      kind: 'params-differ',
      path: 'error.code',
      expected: -32601,
      actual: -32603,
    });
    expect(answer({ message: 'Method not found' }).diagnoses.map((diagnosis) => diagnosis.kind)).toContain('params-differ');
  });
  it('flags messages that break the MCP schema or are not JSON', () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    wire.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n');
    wire.write('this is not json\n');
    const kinds = session.finish().diagnoses.map((d) => d.kind);
    expect(kinds).toEqual(['invalid-message', 'not-json', 'unused']);
    expect(session.diagnoses[0]!.message).toContain('params.clientInfo');
  });

  it('checks each message against the negotiated protocol version', async () => {
    const text = `${HEADER}  - client: ${INIT}
  - server: {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}
  - client: {"jsonrpc":"2.0","id":2,"method":"tasks/list"}
`;
    const { wire, session } = createMemoryWire(cassette(text));
    wire.write(init(1));
    wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tasks/list' }));
    wire.close();
    const report = await session.done;
    expect(report.diagnoses.map((d) => d.message)).toEqual([
      'tasks/list (your id 2) is not valid MCP 2025-06-18: tasks/list does not exist in protocol version 2025-06-18 (it came in 2025-11-25)',
    ]);
  });
});

describe('the player, flooded', () => {
  it('keeps the first diagnoses in full and counts the rest, and still plays a client that recovers', async () => {
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    const chunks = wire.chunks[Symbol.asyncIterator]();
    for (let i = 0; i < 100; i++) wire.write(`garbage ${i}\n`);
    await drain(chunks, 100); // a parse error for each
    wire.write(init(1));
    const [, result] = await drain(chunks, 2);
    expect(JSON.parse(result!).id).toBe(1);
    const report = session.finish();
    expect(report.diagnoses).toHaveLength(KEPT_DIAGNOSES);
    expect(report.diagnoses.at(-1)!.message).toBe('your client wrote a line that is not JSON: garbage 19');
    expect(report.moreDiagnoses).toBe(100 - KEPT_DIAGNOSES + 1); // the rest of the garbage, and what was never sent
    expect(report).toMatchObject({ ok: false, complete: false, consumed: 1 });
    expect(formatDiagnoses(report).at(-1)).toBe('… and 81 more');
    expect(moreDiagnosesLine({ ...report, moreDiagnoses: 127_980 })).toBe('… and 127,980 more');
  });

  it('quotes what the client wrote escaped and clipped, and keeps a long line as its clipped text', async () => {
    await loadSchemas(); // its verdict then comes at once, in order: run alone, nothing else would have loaded them
    const { wire, session } = createMemoryWire(cassette(HANDSHAKE));
    const prefix = '\x1b[31mred\x1b]0;title\x07\u009b ';
    wire.write(`${prefix}${'x'.repeat(10_000)}\n`);
    const method = `\x1b[2J${'m'.repeat(100_000)}`;
    wire.write(line({ jsonrpc: '2.0', id: 1, method, params: {} }));
    const [notJson, invalid, unexpected] = session.finish().diagnoses;
    expect(notJson!.message).toBe(`your client wrote a line that is not JSON: \\x1b[31mred\\x1b]0;title\\x07\\x9b ${'x'.repeat(77 - prefix.length)}...`);
    expect(notJson!.received).toBe(`${prefix}${'x'.repeat(4096 - prefix.length)}…`);
    for (const diagnosis of [invalid!, unexpected!]) {
      expect(diagnosis.message).toContain('\\x1b[2Jmmm');
      expect(diagnosis.message).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      expect(diagnosis.message.length).toBeLessThan(1000);
      expect(typeof diagnosis.received).toBe('string'); // the line's first 4096 characters, not the parsed message
      expect((diagnosis.received as string).length).toBe(4097);
    }
  });

  it('cuts client bytes into lines itself, and stops reading at a line longer than it holds', { timeout: 30_000 }, () => {
    const written: string[] = [];
    let cuts = 0;
    const player = new Player(cassette(HANDSHAKE), { write: (piece) => written.push(String(piece.bytes)), cut: () => cuts++ });
    player.start();
    const message = init(1);
    player.receiveChunk(message.slice(0, 10));
    player.receiveChunk(message.slice(10) + 'not json\nhalf');
    expect(player.diagnoses.map((d) => d.kind)).toEqual(['not-json']);
    player.endOfInput();
    expect(player.diagnoses.map((d) => d.message)).toEqual([
      'your client wrote a line that is not JSON: not json',
      'your client wrote a line that is not JSON: half',
    ]);

    const flooded = new Player(cassette(HANDSHAKE), { write: () => {}, cut: () => cuts++ });
    const mebibyte = 'y'.repeat(1024 * 1024);
    for (let i = 0; i < MAX_LINE_CHARS / mebibyte.length + 4; i++) flooded.receiveChunk(mebibyte);
    flooded.receiveChunk('\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
    flooded.endOfInput();
    expect(cuts).toBe(1);
    const report = flooded.finish();
    expect(report.diagnoses.map((d) => d.kind)).toEqual(['line-too-long', 'unused']);
    expect(report.diagnoses[0]!.message).toBe(
      `your client wrote a line longer than 16 MiB without a newline; the player stopped reading: ${'y'.repeat(77)}...`,
    );
    expect((report.diagnoses[0]!.received as string).length).toBe(4097);
  });

  it('reads every line an HTTP client posts, however many are not messages: each came as a request of its own, and is answered', () => {
    let parseErrors = 0;
    let cuts = 0;
    const player = new Player(cassette(HANDSHAKE), { write: (piece) => (parseErrors += String(piece.bytes).includes('-32700') ? 1 : 0), cut: () => cuts++ });
    player.start();
    for (let i = 0; i < MAX_NOT_MESSAGES + 10; i++) player.receiveLine('not json'); // as the HTTP face hands over a body
    expect(cuts).toBe(0);
    expect(parseErrors).toBe(MAX_NOT_MESSAGES + 10);
  });

  // Bounded time is the test's timeout: generous for a loaded machine, far below what a quadratic player takes.
  it('128k lines of garbage on a real socket: read up to MAX_NOT_MESSAGES, each answered, then no more; a bounded report', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'player-flood-'));
    const path = join(dir, 'wire.sock');
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((socket) => {
        server.close();
        resolve(socket);
      });
      server.listen(path);
    });
    const client = connect(path);
    client.on('error', () => {}); // the player hangs up while the rest is still being written
    const session = attachPlayer(cassette(HANDSHAKE), await accepted, { chunkGapMs: 0 });
    let answers = 0;
    client.on('data', (bytes: Buffer) => {
      for (const byte of bytes) if (byte === 0x0a) answers++;
    });
    const LINES = 128_000;
    client.end(Array.from({ length: LINES }, (_, index) => `\x1b[31mgarbage ${index}`).join('\n') + '\n');
    const report = await session.done;
    await new Promise((resolve) => client.once('close', resolve));
    rmSync(dir, { recursive: true, force: true });
    expect(report.diagnoses).toHaveLength(KEPT_DIAGNOSES);
    expect(report.diagnoses[0]!.message).toBe('your client wrote a line that is not JSON: \\x1b[31mgarbage 0');
    // the last kept says why reading stopped; counted: the rest of the lines read, and the unused handshake
    expect(report.diagnoses.at(-1)!.message).toBe('your client wrote 1,000 lines that are not messages; the player stopped reading');
    expect(report.moreDiagnoses).toBe(MAX_NOT_MESSAGES - (KEPT_DIAGNOSES - 1) + 1);
    expect(JSON.stringify(report).length).toBeLessThan(50_000);
    expect(answers).toBeLessThanOrEqual(MAX_NOT_MESSAGES); // a parse error for each line read, as far as they got out before the hang-up
  });
});
