// A program with two servers (the reference client's): one on fd 3 (THEINFERENCE_WIRE_FD), one over
// Streamable HTTP at THEINFERENCE_REMOTE_URL. It does the handshake on the first and, on the second,
// what the `http` command does with the calls in argv[2] (`--skip-calls`: none of them).
import { readFileSync } from 'node:fs';
import { Socket } from 'node:net';
import * as mcp from '../../../src/mcp.ts';

const [callsFile, skip] = process.argv.slice(2);
const calls = skip === '--skip-calls' ? [] : (JSON.parse(readFileSync(callsFile!, 'utf8')) as { name: string; arguments?: object }[]);

const socket = new Socket({ fd: Number(process.env.THEINFERENCE_WIRE_FD), readable: true, writable: true });
socket.setEncoding('utf8');
const local = new mcp.McpClient(new mcp.StdioTransport({ write: (data) => void socket.write(data), chunks: socket, close: () => void socket.end() }));
const remote = new mcp.McpClient(new mcp.HttpTransport(process.env.THEINFERENCE_REMOTE_URL!));

const [localInit, remoteInit] = await Promise.all([local.initialize(), remote.initialize()]);
const tools = await remote.listTools();
for (const call of calls) await remote.callTool(call.name, call.arguments);
await Promise.all([local.close(), remote.close()]);
console.log(JSON.stringify({ local: localInit.serverInfo.name, remote: remoteInit.serverInfo.name, tools: tools.length, calls: calls.length }));
