// The report theinference-case-server sends first on the wire, read off a real Unix socket, and how
// the grader holds it to the case's .mcp.json entry.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { caseServerEntry, readStartReport, startProblem, type StartReport } from '../../harness/transports/stdio/case-server.ts';

const scratch = mkdtempSync(join(tmpdir(), 'case-server-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let sockets = 0;
/** The grader's end and the program's end of one real socket. */
async function socketPair(): Promise<{ grader: Socket; program: Socket }> {
  const path = join(scratch, `${++sockets}.sock`);
  const accepted = new Promise<Socket>((resolve) => {
    const server = createServer((socket) => {
      server.close();
      resolve(socket);
    }).listen(path);
  });
  const program = connect(path);
  return { grader: await accepted, program };
}

/** What readStartReport gives, and everything the wire carries after the report, as a player reads it. */
function readAll(grader: Socket): Promise<{ report: StartReport | undefined; rest: string }> {
  return new Promise((resolve) => {
    readStartReport(grader, (report, wire) => {
      if (!report) return resolve({ report, rest: '' });
      let rest = '';
      wire.setEncoding('utf8');
      wire.on('data', (text: string) => (rest += text));
      wire.on('end', () => resolve({ report, rest }));
    });
  });
}

const report = { caseServer: { args: ['stdio'], env: { PATH: '/bin', GREETING: 'grüß dich 👋' } } };
const initialize = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}\n';
const pause = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('the report at the start of the wire', () => {
  it('is read when the first message comes in the same read, and the message goes to the player whole', async () => {
    const { grader, program } = await socketPair();
    const read = readAll(grader);
    program.end(`${JSON.stringify(report)}\n${initialize}`);
    expect(await read).toEqual({ report: report.caseServer, rest: initialize });
  });

  it('is read across reads, cut inside a character', async () => {
    const { grader, program } = await socketPair();
    const read = readAll(grader);
    const bytes = Buffer.from(`${JSON.stringify(report)}\n`);
    const cut = bytes.indexOf(Buffer.from('👋')) + 2;
    program.write(bytes.subarray(0, cut));
    await pause();
    program.write(bytes.subarray(cut));
    await pause();
    program.end(initialize);
    expect(await read).toEqual({ report: report.caseServer, rest: initialize });
  });

  it('is missing when the client wrote to the wire itself, and what it writes is drained, not left to block it', async () => {
    const { grader, program } = await socketPair();
    const read = readAll(grader);
    const written = new Promise((resolve) => program.end(initialize + 'x'.repeat(4 * 1024 * 1024), () => resolve('all written')));
    expect((await read).report).toBeUndefined();
    expect(await written).toBe('all written');
  });

  it('is missing when the wire ends before a whole line', async () => {
    const { grader, program } = await socketPair();
    const read = readAll(grader);
    program.end(JSON.stringify(report));
    expect((await read).report).toBeUndefined();
  });
});

describe('the server held to its entry', () => {
  const entry = { args: ['stdio'], env: { GREETING: 'grüß dich 👋' } };

  it("passes a server started with the entry's args, and its env on top of the parent's", () => {
    expect(startProblem(entry, report.caseServer)).toBeUndefined();
  });

  it('names what differs: the args, a variable missing, a variable with another value, no report at all', () => {
    expect(startProblem(entry, { ...report.caseServer, args: [] })).toBe(
      'spawnWire started the server with the args []; the entry in .mcp.json says ["stdio"]',
    );
    expect(startProblem(entry, { args: ['stdio'], env: { PATH: '/bin' } })).toBe(
      'the server\'s environment had no GREETING; the entry\'s env in .mcp.json sets GREETING="grüß dich 👋"',
    );
    expect(startProblem(entry, { args: ['stdio'], env: { GREETING: 'hello' } })).toBe(
      'the server\'s environment had GREETING="hello"; the entry\'s env in .mcp.json sets GREETING="grüß dich 👋"',
    );
    expect(startProblem(entry, undefined)).toMatch(/never reached the grader/);
  });

  it('reads the entry from the case folder, args and env defaulting to empty; a folder without .mcp.json has none', () => {
    const folder = join(scratch, 'case');
    mkdirSync(folder);
    expect(caseServerEntry(folder)).toBeUndefined();
    writeFileSync(join(folder, '.mcp.json'), '{"mcpServers":{"a":{"command":"x"},"b":{"command":"y","args":["z"]}}}');
    expect(caseServerEntry(folder)).toEqual({ args: [], env: {} });
  });
});
