// How long verify waits for a live server's answer: only the time the server was not computing counts,
// so a server that is slow to start (on a loaded machine, say) is waited for, and one that sits silent
// is not. Real servers: node scripts that burn CPU, or sleep, before they answer.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseCassette } from '../../harness/cassette/format.ts';
import { verifyCassette } from '../../harness/cassette/verify.ts';

const result = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'slow', version: '1' } };
const cassette = parseCassette(
  stringify({
    version: 1,
    transport: 'stdio',
    provenance: { command: ['slow-server'], recorded: '2026-12-01', recorder: 'theinference test' },
    frames: [
      {
        client: {
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } },
        },
      },
      { server: { jsonrpc: '2.0', id: 0, result } },
    ],
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
