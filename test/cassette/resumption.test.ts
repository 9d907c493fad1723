// A stream the server closes before its response (the spec's polling, 2025-11-25): a real SDK server
// (scripts/resumable-server.ts) closes a call's stream after its first log message, and the official
// SDK client resumes it with GET and Last-Event-ID. The recorder keeps where the stream closed and
// what came on the GET that resumed it; the player closes it there too, and serves the rest only to
// a GET that says the last event id, after the retry the stream gave.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { serveCassette } from '../../harness/transports/http/serve.ts';
import type { Cassette, HttpPlacement } from '../../harness/cassette/format/model.ts';
import { parseSse } from '../../harness/transports/http/sse.ts';
import { RESUMABLE_STEPS, runHttpSession, startRecorder, startResumableHttp, type Running } from '../../scripts/record-http-cassettes.ts';

const dir = mkdtempSync(join(tmpdir(), 'theinference-resumption-'));
let server: Running;
beforeAll(async () => {
  server = await startResumableHttp();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Where each server message and event of the recording went: `<what> for <request>`, with `closes`. */
function streams(cassette: Cassette): string[] {
  return cassette.frames.flatMap((frame) => {
    if (frame.from !== 'server' && frame.from !== 'sse') return [];
    const placement: HttpPlacement = frame.http ?? {};
    const what = frame.from === 'sse' ? 'priming' : String(frame.message.method ?? `result ${JSON.stringify(frame.message.id)}`);
    return [`${what} for ${JSON.stringify(placement.request)}${placement.closes ? ', closes' : ''}`];
  });
}

const BOTH = 'application/json, text/event-stream';

/** A fetch client up to the call of `count`: the session's headers and the call's POST response. */
async function callCount(url: string): Promise<{ headers: Record<string, string>; call: Response }> {
  const post = (body: object, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: BOTH, ...headers }, body: JSON.stringify(body) });
  const initialize = await post({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
  });
  await initialize.text();
  const headers = { 'mcp-session-id': initialize.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  await (await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
  await (await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)).text();
  const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'count', arguments: { to: 3 } } }, headers);
  return { headers, call };
}

describe('a stream the server closes before its response', () => {
  it('is recorded where it closed, and the GET that resumed it as that stream: the SDK client sees the same live, recorded and replayed', async () => {
    const live = await runHttpSession(server.url, RESUMABLE_STEPS);
    const out = join(dir, 'resumable.yaml');
    const recorder = await startRecorder(['--out', out, '--http', server.url]);
    const recorded = await runHttpSession(recorder.url, RESUMABLE_STEPS);
    expect((await recorder.exited).code).toBe(0);
    expect(recorded).toEqual(live);
    expect(live.results[1]).toEqual({ content: [{ type: 'text', text: 'counted to 3' }] });

    const cassette = loadCassette(out);
    expect(streams(cassette)).toEqual([
      'priming for 0',
      'result 0 for 0',
      'priming for 1',
      'result 1 for 1',
      'priming for 2',
      'notifications/message for 2, closes',
      'notifications/message for 2',
      'notifications/message for 2',
      'result 2 for 2',
    ]);
    // the SDK client's own GET stream, not the one that resumed the call's
    expect(cassette.http?.get).toMatchObject({ status: 200, body: 'sse' });

    const player = await serveCassette(cassette);
    try {
      expect(await runHttpSession(player.url, RESUMABLE_STEPS)).toEqual(live);
    } finally {
      await player.close();
    }
    const report = await player.done;
    expect(report.diagnoses).toEqual([]);
    expect(report.advice).toEqual([]);
  });

  it('is played closed after the recorded event, and goes on on a GET with its last event id: the rest, then the end', async () => {
    const player = await serveCassette(loadCassette(join(import.meta.dirname, '../../cassettes/resumable-http.yaml')));
    try {
      const { headers, call } = await callCount(player.url);
      const before = parseSse(await call.text()); // ends when the server closes it
      expect(before.map((event) => event.data === '' || JSON.parse(event.data!).method)).toEqual([true, 'notifications/message']);
      expect(before[0]!.retry).toBe(500);
      await new Promise((resolve) => setTimeout(resolve, 500));
      const resumed = await fetch(player.url, { headers: { accept: 'text/event-stream', 'last-event-id': before.at(-1)!.id!, ...headers } });
      expect(resumed.status).toBe(200);
      const after = parseSse(await resumed.text()).map((event) => JSON.parse(event.data!));
      expect(after.map((message) => message.method ?? message.result.content[0].text)).toEqual([
        'notifications/message',
        'notifications/message',
        'counted to 3',
      ]);
      expect(after[2].id).toBe(2);
      await (await fetch(player.url, { method: 'DELETE', headers })).text();
    } finally {
      await player.close();
    }
    const report = await player.done;
    expect(report.diagnoses).toEqual([]);
    expect(report.advice).toEqual([]);
  });

  it('a GET sooner than the retry is served, and said (a MUST); one without the last id (none, or another) is advice, and gets none of the rest', async () => {
    // a retry of ten minutes: every GET here is sooner, however slow the machine
    const cassette = loadCassette(join(import.meta.dirname, '../../cassettes/resumable-http.yaml'));
    for (const frame of cassette.frames) if (frame.from === 'sse' && frame.http.retry !== undefined) frame.http.retry = 600_000;
    const player = await serveCassette(cassette);
    try {
      const { headers, call } = await callCount(player.url);
      const [priming, log] = parseSse(await call.text());
      const plain = await fetch(player.url, { headers: { accept: 'text/event-stream', ...headers } });
      expect(plain.status).toBe(200); // the recorded GET stream, which carries nothing of the call
      await plain.body?.cancel();
      const first = await fetch(player.url, { headers: { accept: 'text/event-stream', 'last-event-id': priming!.id!, ...headers } });
      expect(first.status).toBe(400);
      await first.text();
      const early = await fetch(player.url, { headers: { accept: 'text/event-stream', 'last-event-id': log!.id!, ...headers } });
      expect(parseSse(await early.text())).toHaveLength(3);
    } finally {
      await player.close();
    }
    const report = await player.done;
    expect(report.diagnoses.map((diagnosis) => diagnosis.kind)).toEqual(['http-retry']);
    // advice is said once a kind: the first of the two (the scenario resumed-from-first-event shows the other)
    expect(report.advice.map((advice) => advice.message)).toEqual([
      expect.stringContaining('has no Last-Event-ID, while the server waits to resume the stream of tools/call "count" (your id 2)'),
      expect.stringContaining('the session ended without DELETE'),
    ]);
  });

  it('never resumed: said when the session ends, with what never reached the client', async () => {
    const player = await serveCassette(loadCassette(join(import.meta.dirname, '../../cassettes/resumable-http.yaml')));
    try {
      const { call } = await callCount(player.url);
      await call.text();
    } finally {
      await player.close();
    }
    const report = await player.done;
    expect(report.advice.map((advice) => advice.message)).toEqual([
      expect.stringContaining('the session ended without DELETE'),
      expect.stringContaining(
        'and your client never resumed it (a GET with that Last-Event-ID): what the server sent after it, the response among it, never reached your client',
      ),
    ]);
  });
});
