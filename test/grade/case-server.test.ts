// The report theinference-case-server sends first on the wire, read off a real Unix socket, and how
// the grader holds it to the case's .mcp.json entry.
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pathToFileURL } from 'node:url';
import { REPO } from '../helpers/cli.ts';
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

  it('is missing when it nests deeper than the grader reads: the words of what differs would overflow the stack', async () => {
    const { grader, program } = await socketPair();
    const read = readAll(grader);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    program.end(`{"caseServer":{"args":["stdio"],"env":{"GREETING":${deep}}}}\n${initialize}`);
    const said = (await read).report;
    expect(said).toBeUndefined();
    expect(startProblem({ args: ['stdio'], env: { GREETING: 'hello' } }, said)).toMatch(/never reached the grader/);
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

// program.ts listens, under the Node that runs the program; theinference-case-server connects, under
// whichever `node` the PATH names first. The two need not be one Node: Node 20 and Node 22 name
// a Linux abstract socket differently and cannot reach each other's.
describe("program.ts's socket to the case's server", () => {
  // the Node 22 of the node devDependency (the conformance suite's)
  const node22 = join(REPO, 'node_modules', 'node', 'bin', 'node');

  it('is reached by a server that another Node runs: its report is the first line on the wire', async () => {
    const root = join(scratch, 'run-root');
    cpSync(join(REPO, 'harness', 'case-server'), join(root, '.theinference', 'case-server'), { recursive: true });
    const otherNode = join(scratch, 'other-node');
    mkdirSync(otherNode);
    symlinkSync(node22, join(otherNode, 'node'));
    const program = spawn(
      process.execPath,
      [
        '--import',
        pathToFileURL(join(REPO, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        join(REPO, 'program.ts'),
        'handshake',
        join(REPO, 'cases', 'handshake', 'server-spawned-from-config'),
      ],
      {
        cwd: root,
        env: { ...process.env, THEINFERENCE_WIRE_FD: '3', PATH: `${otherNode}${delimiter}${process.env.PATH}` },
        stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    program.stderr!.on('data', (chunk) => (stderr += chunk));
    const wire = program.stdio[3] as Socket;
    const { report: started } = await new Promise<{ report: StartReport | undefined }>((resolve) => {
      readStartReport(wire, (report) => resolve({ report }));
      program.on('exit', () => resolve({ report: undefined }));
    });
    program.kill();
    expect({ args: started?.args, greeting: started?.env.CASE_SERVER_GREETING, stderr }).toEqual({
      args: ['stdio'],
      greeting: 'grüß dich 👋',
      stderr: '',
    });
  });
});
