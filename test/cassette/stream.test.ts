// The player attached to a real child's extra stdio pipe (fd 3, a unix socket in Node), as the
// grader will attach it: recorded chunks arrive as separate reads, diagnoses come out of band.
import { spawn } from 'node:child_process';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseCassette } from '../../harness/cassette/format/format.ts';
import { attachPlayer } from '../../harness/transports/stdio/face.ts';
import type { Diagnosis } from '../../harness/exchange/diagnosis.ts';

const CASSETTE = `version: 1
transport: stdio
provenance: {command: [node, server.js], recorded: 2026-11-30}
frames:
  - client: {"jsonrpc":"2.0","id":1,"method":"ping"}
  - stderr: "a line the server logged"
  - server: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}
  - server: {"result":{},"jsonrpc":"2.0","id":1}
    chunks: ["{\\"result\\":{},", "\\"jsonrpc\\":\\"2.0\\",\\"id\\":1}\\n"]
  - client: {"jsonrpc":"2.0","id":2,"method":"tools/list"}
  - server: {"result":{"tools":[{"name":"café"}]},"jsonrpc":"2.0","id":2}
    cuts: [33]
`;

/** A client on fd 3: sends its lines one after another as answers arrive, prints every read it saw. */
const CLIENT = `
const net = require('node:net');
const socket = new net.Socket({ fd: 3, readable: true, writable: true });
const lines = JSON.parse(process.argv[1]);
const reads = [];
let buffered = '';
socket.on('data', (bytes) => {
  const data = bytes.toString('latin1'); // one char per byte: a cut inside a character stays visible
  reads.push(data);
  buffered += data;
  while (buffered.includes('\\n')) {
    const line = buffered.slice(0, buffered.indexOf('\\n'));
    buffered = buffered.slice(buffered.indexOf('\\n') + 1);
    if (!('id' in JSON.parse(line))) continue; // answer only responses
    const next = lines.shift();
    if (next === undefined) socket.end(); else socket.write(next + '\\n');
  }
});
socket.on('end', () => { process.stdout.write(JSON.stringify(reads)); });
socket.write(lines.shift() + '\\n');
`;

function runClient(lines: object[]): Promise<{ reads: string[]; diagnoses: Diagnosis[]; stderr: string[]; ok: boolean }> {
  const child = spawn(process.execPath, ['-e', CLIENT, JSON.stringify(lines.map((line) => JSON.stringify(line)))], {
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
  });
  const stderr: string[] = [];
  const diagnoses: Diagnosis[] = [];
  const session = attachPlayer(parseCassette(CASSETTE, 'fd3.yaml'), child.stdio[3] as Duplex, {
    chunkGapMs: 50, // the grader's own gap: a client waiting for a core on a loaded machine still reads the parts apart
    onStderr: (line) => stderr.push(line),
    onDiagnosis: (diagnosis) => diagnoses.push(diagnosis),
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', async () => {
      const report = await session.done;
      resolve({ reads: JSON.parse(stdout || '[]') as string[], diagnoses, stderr, ok: report.ok });
    }),
  );
}

describe('the player on a child process pipe', () => {
  it('delivers a recorded split frame as two reads and finishes cleanly', async () => {
    const result = await runClient([
      { jsonrpc: '2.0', id: 'a', method: 'ping' },
      { jsonrpc: '2.0', id: 'b', method: 'tools/list' },
    ]);
    expect(result.reads.slice(0, 3)).toEqual([
      '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}\n',
      '{"result":{},',
      '"jsonrpc":"2.0","id":"a"}\n',
    ]);
    // the é (two bytes in UTF-8) is cut in two, as the cassette says
    expect(result.reads.slice(3).map((read) => Buffer.from(read, 'latin1').toString('hex'))).toEqual([
      Buffer.from('{"result":{"tools":[{"name":"caf').toString('hex') + 'c3',
      'a9' + Buffer.from('"}]},"jsonrpc":"2.0","id":"b"}\n').toString('hex'),
    ]);
    expect(result.stderr).toEqual(['a line the server logged']);
    expect(result.ok).toBe(true);
    expect(result.diagnoses).toEqual([]);
  });

  it('reports a mismatch to the grader even though the client only sees an error response', async () => {
    const result = await runClient([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'prompts/list' },
    ]);
    expect(JSON.parse(result.reads.at(-1)!)).toMatchObject({ id: 2, error: { code: -32000 } });
    expect(result.diagnoses.map((d) => d.kind)).toEqual(['unexpected-method', 'unused']);
    expect(result.diagnoses[0]!.message).toBe(
      'after the ping result, the server expected tools/list (recorded id 2); your client sent prompts/list (your id 2)',
    );
    expect(result.ok).toBe(false);
  });
});
