// The course driver: `program.ts <command> <case-dir>` feeds a case to the student's src/mcp.ts
// and prints the result as JSON on stdout, which the grader compares byte for byte with the
// case's expected.json. Everything printed here is decided by this file, never by prose or
// free choices in the student's code; the student's messages go to stderr.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { join, relative } from 'node:path';
import * as mcp from './src/mcp.ts';

type Command = (caseDir: string) => unknown | Promise<unknown>;

const commands: Record<string, Command> = {
  /** messages.json (an array of JSON-RPC messages) -> every message framed, then parsed back. */
  'mcp-frame': (caseDir) => {
    const messages = readJson(join(caseDir, 'messages.json')) as object[];
    const frames = messages.map((message) => mcp.frame(message));
    const parsed = frames.map((line) => mcp.parseFrame(line));
    return { frames, parsed };
  },

  /** .mcp.json -> the servers, each with its fields in one fixed order; or the fact of a refusal. */
  'mcp-config': (caseDir) => {
    const text = readFileSync(join(caseDir, '.mcp.json'), 'utf8');
    let servers: mcp.ServerConfig[];
    try {
      servers = mcp.parseConfig(text);
    } catch (error) {
      rethrowIfNotWritten(error);
      console.error(`parseConfig threw: ${error instanceof Error ? error.message : String(error)}`);
      return { rejected: true };
    }
    return { servers: servers.map(canonicalServer) };
  },

  /** The handshake against the case's cassette: what initialize() returned, or how it failed. */
  handshake: async (caseDir) => {
    const wire = connect(caseDir);
    const client = new mcp.McpClient(new mcp.StdioTransport(wire));
    const initialize = await outcome(client.initialize());
    await client.close();
    return { initialize, ...leftOpen(wire) };
  },

  /** After the handshake: every tool (all pages), then the calls in calls.json, all at once. */
  tools: async (caseDir) => {
    const calls = readJson(join(caseDir, 'calls.json')) as { name: string; arguments?: object }[];
    const wire = connect(caseDir);
    const client = new mcp.McpClient(new mcp.StdioTransport(wire));
    await client.initialize();
    const tools = await outcome(client.listTools());
    const results = await Promise.all(calls.map((call) => outcome(client.callTool(call.name, call.arguments))));
    await client.close();
    return { tools, calls: results, ...leftOpen(wire) };
  },
};

/** A result in canonical form, an McpError by its code (the server's), any other failure as a refusal. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    return canonical(await promise);
  } catch (error) {
    rethrowIfNotWritten(error);
    if (error instanceof mcp.McpError) return { error: { code: error.code } };
    console.error(`refused: ${error instanceof Error ? error.message : String(error)}`);
    return { refused: true };
  }
}

/** The starter's functions throw "not implemented yet: <name>" until written: a function not written
 *  is never a right refusal, so the case ends with that error instead of passing by it. */
function rethrowIfNotWritten(error: unknown): void {
  if (error instanceof Error && error.message.startsWith('not implemented yet')) throw error;
}

/** Keys sorted at every depth: the server's data, independent of how the client copied it. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(Object.keys(record).sort().map((key) => [key, canonical(record[key])]));
}

/** A wire that knows whether the client closed it. */
interface TrackedWire extends mcp.Wire {
  readonly closed: boolean;
}

/** After close(): the wire still open means close() never reached it (the program's exit would hide
 *  that, closing everything), and the output says so. Nothing is added when it was closed. */
function leftOpen(wire: TrackedWire): { closed?: false } {
  if (wire.closed) return {};
  console.error('close() returned, and the wire to the server is still open: close the transport, and the transport its wire');
  return { closed: false };
}

/** The wire to the server. Under the grader it is fd 3, owned by the grader's cassette player.
 *  By hand, the case's cassette is played by `theinference replay`, whose diagnoses show on stderr. */
function connect(caseDir: string): TrackedWire {
  const wire = openWire(caseDir);
  let closed = false;
  return {
    write: (data) => wire.write(data),
    chunks: wire.chunks,
    close: () => {
      closed = true;
      wire.close();
    },
    get closed() {
      return closed;
    },
  };
}

function openWire(caseDir: string): mcp.Wire {
  const fd = process.env.THEINFERENCE_WIRE_FD;
  if (fd !== undefined) {
    const socket = new Socket({ fd: Number(fd), readable: true, writable: true });
    socket.setEncoding('utf8');
    return { write: (data) => void socket.write(data), chunks: socket, close: () => void socket.end() };
  }
  const cassette = join('fixtures', relative('cases', caseDir), 'cassette.yaml');
  const bin = ['bin/theinference.js', 'node_modules/theinference/bin/theinference.js'].find((path) => existsSync(path));
  if (!existsSync(cassette) || bin === undefined) throw new Error(`run this from the course directory: no ${cassette} or theinference here`);
  const player = spawn(process.execPath, [bin, 'replay', cassette], { stdio: ['pipe', 'pipe', 'inherit'] });
  player.stdout.setEncoding('utf8');
  return { write: (data) => void player.stdin.write(data), chunks: player.stdout, close: () => void player.stdin.end() };
}

const SERVER_FIELDS = ['name', 'type', 'command', 'args', 'env', 'url', 'headers'];

function canonicalServer(server: object): object {
  const fields = server as Record<string, unknown>;
  return Object.fromEntries(SERVER_FIELDS.filter((key) => key in fields).map((key) => [key, fields[key]]));
}

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

const [command, caseDir] = process.argv.slice(2);
const run = command === undefined ? undefined : commands[command];
if (run === undefined || caseDir === undefined) {
  console.error(`usage: your_program.sh <command> <case-dir>\ncommands: ${Object.keys(commands).join(', ')}`);
  process.exit(2);
}
const result = await run(caseDir);
// Exit once printed: a connection the client left open must not keep the case running.
process.stdout.write(JSON.stringify(result, null, 2) + '\n', () => process.exit(0));
