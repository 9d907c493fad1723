// The exchange the player logs as it plays, for the sequence diagram: committed cassettes driven
// through the in-memory wire (and once through a socket, where the initialize result is held back),
// by a client that follows the recording, one that strays, and one that floods the wire.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEPT_MESSAGE_CHARS, KEPT_STEPS, responseOutcome, type ExchangeStep } from '../../harness/cassette/player/exchange.ts';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { createMemoryWire } from '../../harness/cassette/player/memory-wire.ts';
import { KEPT_DIAGNOSES } from '../../harness/exchange/kept.ts';
import { attachPlayer } from '../../harness/transports/stdio/face.ts';

const SERVER_REQUESTS = 'cassettes/everything-server-requests.yaml';
const TOOLS = 'fixtures/tools/everything-server/cassette.yaml';
const HANDSHAKE = 'fixtures/handshake/everything-server/cassette.yaml';

const line = (message: object) => JSON.stringify(message) + '\n';
const initialize = (id: number | string, capabilities: object = {}) =>
  line({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'student', version: '1' } } });
const initialized = line({ jsonrpc: '2.0', method: 'notifications/initialized' });

/** What a diagram labels each step with: direction, kind, method or outcome, id. */
const label = (step: ExchangeStep) =>
  [step.from, step.kind, step.method ?? responseOutcome(step) ?? '', step.id === undefined ? '' : JSON.stringify(step.id)].join(' ').trim();

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the exchange of a played session', () => {
  it('has one step per message of a matching session, in wire order, with the live ids', async () => {
    const { wire, session } = createMemoryWire(loadCassette(SERVER_REQUESTS));
    wire.write(initialize('init', { roots: {} }));
    wire.write(initialized);
    wire.write(line({ jsonrpc: '2.0', id: 'roots', method: 'tools/call', params: { name: 'get-roots-list', arguments: {} } }));
    wire.write(line({ jsonrpc: '2.0', id: 0, result: { roots: [{ uri: 'file:///course', name: 'course' }] } }));
    wire.write(
      line({
        jsonrpc: '2.0',
        id: 'slow',
        method: 'tools/call',
        params: { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 }, _meta: { progressToken: 'tok' } },
      }),
    );
    wire.close();
    const report = await session.done;
    expect(report.ok).toBe(true);
    const { steps, more } = report.exchange;
    expect(more).toBe(0);
    expect(steps.map(label)).toEqual([
      'client request initialize "init"',
      'server response result "init"',
      'client notification notifications/initialized',
      'client request tools/call "roots"',
      'server notification notifications/tools/list_changed',
      'server notification notifications/tools/list_changed',
      'server request roots/list 0',
      'client response result 0',
      'server notification notifications/message',
      'server response result "roots"',
      'client request tools/call "slow"',
      'server notification notifications/progress',
      'server notification notifications/progress',
      'server response result "slow"',
    ]);
    // What went over the wire, remapped; beside each client message, the recorded one it matched.
    expect(steps[11]!.message).toMatchObject({ params: { progressToken: 'tok', progress: 1 } });
    expect(steps[10]!.recorded).toMatchObject({ id: 2, params: { _meta: { progressToken: 2 } } });
    expect(steps[0]!.message).toMatchObject({ params: { clientInfo: { name: 'student' } } });
    expect(steps[0]!.recorded).toMatchObject({ params: { clientInfo: { name: 'fidelity-test' } } });
    expect(steps.filter((step) => step.from === 'server').every((step) => step.recorded === undefined)).toBe(true);
    expect(steps.some((step) => step.diagnosis)).toBe(false);
  });

  it("notes each diagnosis on the client message that caused it, beside the player's answer to it", async () => {
    const { wire, session } = createMemoryWire(loadCassette(TOOLS));
    wire.write(initialize(0));
    wire.write(initialized);
    wire.write(line({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
    wire.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello, tape' } } }));
    wire.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get-tiny-image', arguments: {} } }));
    wire.close();
    const report = await session.done;
    const { steps } = report.exchange;
    expect(steps.map(label).slice(3)).toEqual([
      'client request tools/list 1',
      'server notification notifications/tools/list_changed',
      'server response result 1',
      'client request tools/call 2',
      'server response error 2',
      'client request tools/call 3',
      'server response error 3',
    ]);
    const diagnosed = steps.flatMap((step, index) => (step.diagnosis ? [index] : []));
    expect(diagnosed).toEqual([6, 8]);
    expect(steps[6]!.diagnosis).toEqual({ kind: 'params-differ', message: report.diagnoses[0]!.message });
    expect(steps[6]!.recorded).toMatchObject({ params: { arguments: { message: 'hello, cassette' } } });
    expect(steps[6]!.message).toMatchObject({ params: { arguments: { message: 'hello, tape' } } });
    expect(steps[7]!.message).toMatchObject({ error: { code: -32000, message: `theinference: ${report.diagnoses[0]!.message}` } });
    // the player still waits for the echo: the image call is out of order, and its recorded place is the echo's
    expect(steps[8]!.diagnosis?.kind).toBe('out-of-order');
    expect(steps[8]!.recorded).toMatchObject({ params: { name: 'echo' } });
    // `unused` is the end of the session, not a message: it is in the diagnoses only
    expect(report.diagnoses.map((diagnosis) => diagnosis.kind)).toEqual(['params-differ', 'out-of-order', 'unused']);
  });

  it('puts a message sent while the initialize result was held back before that result, as it went over the wire', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'exchange-'));
    made.push(dir);
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((socket) => {
        server.close();
        resolve(socket);
      });
      server.listen(join(dir, 'wire.sock'));
    });
    const client = connect(join(dir, 'wire.sock'));
    const session = attachPlayer(loadCassette(HANDSHAKE), await accepted, { chunkGapMs: 0, initializeHoldMs: 200 });
    client.resume();
    client.end(initialize(0) + initialized); // too early: the result is still held back
    const report = await session.done;
    expect(report.exchange.steps.map(label)).toEqual([
      'client request initialize 0',
      'client notification notifications/initialized',
      'server response result 0',
    ]);
    expect(report.exchange.steps[1]!.diagnosis).toMatchObject({
      kind: 'initialized-too-early',
      message: expect.stringContaining('before the initialize result had arrived'),
    });
  });

  it('keeps the first steps of a flood and counts the rest; keeps a long message as its clipped text', async () => {
    const { wire, session } = createMemoryWire(loadCassette(HANDSHAKE));
    const huge = {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x'.repeat(100_000), version: '1' } },
    };
    wire.write(line(huge));
    const GARBAGE = 1000;
    for (let i = 0; i < GARBAGE; i++) wire.write(`garbage ${i}\n`);
    wire.close();
    const report = await session.done;
    const { steps, more } = report.exchange;
    const [first, result, garbage, parseError] = steps;
    expect(typeof first!.message).toBe('string');
    expect(first!.message).toBe(`${line(huge).slice(0, KEPT_MESSAGE_CHARS)}…`);
    expect(first).toMatchObject({ from: 'client', kind: 'request', method: 'initialize', id: 0 });
    expect(JSON.stringify(result!.message).length).toBeLessThanOrEqual(KEPT_MESSAGE_CHARS);
    expect(garbage).toMatchObject({ from: 'client', kind: 'line', message: 'garbage 0', diagnosis: { kind: 'not-json' } });
    expect(parseError).toMatchObject({ from: 'server', kind: 'response', id: null, message: { error: { code: -32700 } } });
    expect(steps).toHaveLength(KEPT_STEPS);
    expect(more).toBe(2 + 2 * GARBAGE - KEPT_STEPS); // each line, and the parse error it is answered with
    expect(steps.filter((step) => step.diagnosis)).toHaveLength(KEPT_DIAGNOSES); // the rest are counted, not described
    expect(JSON.stringify(report.exchange).length).toBeLessThan(60_000);
  });
});
