// A program with an MCP server on fd 3 and an API at THEINFERENCE_LLM_URL (its key in
// THEINFERENCE_LLM_URL_KEY): the handshake, then a tool loop of two requests as an agent makes them,
// the tool's result the one the recording expects (`--no-key`: the requests carry no key).
import { Socket } from 'node:net';
import * as mcp from '../../../src/mcp.ts';

const noKey = process.argv[2] === '--no-key';
const socket = new Socket({ fd: Number(process.env.THEINFERENCE_WIRE_FD), readable: true, writable: true });
socket.setEncoding('utf8');
const client = new mcp.McpClient(new mcp.StdioTransport({ write: (data) => void socket.write(data), chunks: socket, close: () => void socket.end() }));
const { serverInfo } = await client.initialize();
await client.close();

const tools = [
  {
    name: 'get_weather',
    description: 'Get the current weather in a given city.',
    input_schema: { type: 'object', properties: { city: { type: 'string', description: 'The city, e.g. Paris' } }, required: ['city'] },
  },
];
const messages: unknown[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
const headers = {
  'content-type': 'application/json',
  'anthropic-version': '2026-10-21',
  ...(!noKey && { 'x-api-key': process.env.THEINFERENCE_LLM_URL_KEY! }),
};
const stops: string[] = [];
for (let turn = 0; turn < 3; turn++) {
  const response = await fetch(`${process.env.THEINFERENCE_LLM_URL}/v1/messages`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model: 'claude-opus-4-6', max_tokens: 1024, tools, messages }),
  });
  const reply = (await response.json()) as { stop_reason?: string; content?: { type: string; id?: string }[] };
  stops.push(reply.stop_reason ?? `error ${response.status}`);
  if (reply.stop_reason !== 'tool_use') break;
  messages.push({ role: 'assistant', content: reply.content });
  const uses = reply.content!.filter((block) => block.type === 'tool_use');
  messages.push({ role: 'user', content: uses.map((use) => ({ type: 'tool_result', tool_use_id: use.id, content: '14°C, light rain' })) });
}
console.log(JSON.stringify({ server: serverInfo.name, stops }));
