// The client the official MCP conformance suite (@modelcontextprotocol/conformance) runs: the
// reference McpClient over the reference HttpTransport, driven as each client scenario expects.
// The suite passes its scenario server's URL as the last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO; the exit code says whether the client got through. What the course
// does not teach (OAuth, elicitation, ...) is refused with exit 2 rather than faked.
// `npm run conformance` (scripts/conformance.ts) runs it; docs/conformance.md says what it covers.
import * as mcp from '../src/mcp.ts';

const url = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';

/** How long a tool call may wait for its response before the client gives up (sse-retry's
 *  server answers on a resumed stream only, which the reference never opens). */
const CALL_TIMEOUT_MS = 3000;

type Drive = (client: mcp.McpClient) => Promise<void>;

const scenarios: Record<string, Drive> = {
  // The handshake: initialize (protocol version, clientInfo), notifications/initialized, then a
  // first request, as a client does once it is connected.
  initialize: async (client) => {
    const tools = await client.listTools();
    console.log(`listed ${tools.length} tools`);
  },
  // tools/list, then tools/call of add_numbers with two numbers (the scenario checks both are numbers).
  tools_call: async (client) => {
    const tool = await findTool(client, 'add_numbers');
    const result = await client.callTool(tool.name, { a: 2, b: 3 });
    console.log(`add_numbers(2, 3): ${text(result)}`);
    if (result.isError) throw new Error('add_numbers answered isError: true');
  },
  // A tool's inputSchema as listTools returned it, sent back verbatim to the echo tool: the
  // scenario diffs it against the JSON Schema 2020-12 schema it advertised ($schema, $defs, ...).
  'json-schema-2020-12-preservation': async (client) => {
    const focal = await findTool(client, 'json_schema_2020_12_tool');
    const result = await client.callTool('json_schema_echo', { schema: focal.inputSchema });
    console.log(`json_schema_echo: ${text(result)}`);
  },
  // The server ends the tools/call stream after a priming event (id, retry: 500) and sends the
  // response on a GET stream only: a client that resumes (GET with Last-Event-ID after `retry`)
  // gets it. The course's HttpTransport does not resume, so the call gets no response.
  'sse-retry': async (client) => {
    const tool = await findTool(client, 'test_reconnection');
    const result = await withTimeout(
      client.callTool(tool.name, {}),
      `no response to tools/call within ${CALL_TIMEOUT_MS} ms: the server ended the SSE stream before the response and the reference HttpTransport does not resume streams (no GET with Last-Event-ID after the retry delay)`,
    );
    console.log(`test_reconnection: ${text(result)}`);
  },
};

async function findTool(client: mcp.McpClient, name: string): Promise<mcp.Tool> {
  const tools = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`tools/list has no tool ${name} (it has: ${tools.map((t) => t.name).join(', ') || 'none'})`);
  return tool;
}

function text(result: mcp.CallToolResult): string {
  return result.content.map((item) => (typeof item.text === 'string' ? item.text : JSON.stringify(item))).join(' ');
}

function withTimeout<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), CALL_TIMEOUT_MS)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function main(): Promise<number> {
  const drive = scenarios[scenario];
  if (!drive) {
    console.error(
      `conformance-client: scenario "${scenario}" is not covered by the course (its client speaks initialize, tools/list and tools/call over stdio and Streamable HTTP; no OAuth, elicitation, sampling or stream resumption); covered: ${Object.keys(scenarios).join(', ')}`,
    );
    return 2;
  }
  if (!/^https?:\/\//.test(url)) {
    console.error(`conformance-client: expected the server URL as the last argument, got "${url}"`);
    return 2;
  }
  const client = new mcp.McpClient(new mcp.HttpTransport(url), { name: 'theinference-conformance-client', version: '1.0.0' });
  try {
    const result = await client.initialize();
    console.log(`initialized: ${result.serverInfo.name} ${result.serverInfo.version}, protocol ${result.protocolVersion}`);
    await drive(client);
    return 0;
  } catch (error) {
    console.error(`conformance-client: ${scenario}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await client.close().catch((error) => console.error(`conformance-client: close: ${error instanceof Error ? error.message : String(error)}`));
  }
}

// exit as soon as the scenario is done: a request left waiting (sse-retry) must not keep the process up
process.exit(await main());
