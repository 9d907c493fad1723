// Verify and the live server's timing: only the time the server was not computing counts against
// its answer (a server slow to start on a loaded machine is waited for, one that sits silent is
// not), and a server that asks or tells the same more or fewer times than recorded is no drift.
// Real servers: node scripts that burn CPU, sleep, or ask for roots, before they answer.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseCassette } from '../../harness/cassette/format/format.ts';
import { verifyCassette } from '../../harness/cassette/recording/verify.ts';

const result = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'slow', version: '1' } };
/** initialize and its result, as the frames of a cassette's YAML. */
const handshake = [
  {
    client: {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
    },
  },
  { server: { jsonrpc: '2.0', id: 0, result } },
];
const cassette = parseCassette(
  stringify({
    version: 1,
    transport: 'stdio',
    provenance: { command: ['slow-server'], recorded: '2026-12-01', recorder: 'theinference test' },
    frames: handshake,
  }),
);

/** A server that does `before` once its first line comes, then answers it with the recorded result. */
function server(before: string): string[] {
  const answer = `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: 0, result: ${JSON.stringify(result)} }) + '\\n')`;
  return [process.execPath, '-e', `process.stdin.once('data', () => { ${before}; ${answer}; process.stdin.on('end', () => process.exit(0)); })`];
}

describe('verify, waiting for a live server', () => {
  it('waits for a server that computes for longer than the timeout before it answers', async () => {
    // 1.5 s of CPU, three times the timeout: however loaded the machine, all of it is computing
    const burn = 'const until = process.cpuUsage().user + 1_500_000; while (process.cpuUsage().user < until) {}';
    expect(await verifyCassette(cassette, server(burn), { timeoutMs: 500 })).toEqual([]);
  });

  it('gives up on a server that sits silent for longer than the timeout', async () => {
    const sleep = 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2000)';
    const drift = await verifyCassette(cassette, server(sleep), { timeoutMs: 500 });
    // (its answer, two seconds on, may come after verify has ended the session: then that is said too)
    expect(drift[0]?.message).toBe('the server did not answer initialize (id 0) within 500 ms (not counting the time it was computing)');
  });
});

describe('verify, with a server whose own requests follow timing', () => {
  const roots = { roots: [{ uri: 'file:///course', name: 'course' }] };
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get-roots-list', arguments: {} } };
  const listed = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '1 root' }] } };
  const logged = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'Roots updated' } };
  // recorded: the server asked for roots once, logged once, answered
  const recorded = parseCassette(
    stringify({
      version: 1,
      transport: 'stdio',
      provenance: { command: ['roots-server'], recorded: '2026-12-02', recorder: 'theinference test' },
      frames: [
        ...handshake,
        { client: call },
        { server: { jsonrpc: '2.0', id: 0, method: 'roots/list' } },
        { client: { jsonrpc: '2.0', id: 0, result: roots } },
        { server: logged },
        { server: listed },
      ],
    }),
  );

  /** Answers initialize; on the call asks for roots `asks` times, logs once per answer that holds them,
   *  sends `extra` (a line of JSON) if given, then the call's result. */
  function rootsServer(asks: number, extra?: object): string[] {
    const script = `
      const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
      let buffer = '', answers = 0;
      process.stdin.on('data', (chunk) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\\n'); end >= 0; end = buffer.indexOf('\\n')) {
          const message = JSON.parse(buffer.slice(0, end));
          buffer = buffer.slice(end + 1);
          if (message.method === 'initialize') send({ jsonrpc: '2.0', id: 0, result: ${JSON.stringify(result)} });
          if (message.method === 'tools/call') for (let id = 0; id < ${asks}; id++) send({ jsonrpc: '2.0', id, method: 'roots/list' });
          if (message.method === undefined && message.result?.roots?.length === 1) {
            send(${JSON.stringify(logged)});
            if (++answers === ${asks}) {
              ${extra ? `send(${JSON.stringify(extra)});` : ''}
              send(${JSON.stringify(listed)});
            }
          }
        }
      });
      process.stdin.on('end', () => process.exit(0));`;
    return [process.execPath, '-e', script];
  }

  it('answers a server that asks more often than recorded, the last recorded answer again: one more of the same is no drift', async () => {
    expect(await verifyCassette(recorded, rootsServer(1), { timeoutMs: 5000 })).toEqual([]);
    expect(await verifyCassette(recorded, rootsServer(2), { timeoutMs: 5000 })).toEqual([]);
  });

  it('still finds a notification of a method it never sent', async () => {
    const drift = await verifyCassette(recorded, rootsServer(2, { jsonrpc: '2.0', method: 'notifications/resources/list_changed' }), { timeoutMs: 5000 });
    expect(drift.map((item) => item.message)).toEqual(['the server now also sends notifications/resources/list_changed']);
  });
});
