// The client the official MCP conformance suite (@modelcontextprotocol/conformance) runs: the
// reference McpClient over the reference HttpTransport, driven as each client scenario expects.
// The suite passes its scenario server's URL as the last argument, the scenario's name in
// MCP_CONFORMANCE_SCENARIO, the spec version it runs in MCP_CONFORMANCE_PROTOCOL_VERSION and, for
// some scenarios, what to do in MCP_CONFORMANCE_CONTEXT; the exit code says whether the client got
// through. The client connects as stage 6 teaches, in both spec versions: connect() probes with
// server/discover and falls back to initialize for a 2025 server; an authorization scenario gets
// stage 7's OAuthClient. What the course does not teach (skills, sampling, ...) is refused with exit
// 2 rather than faked.
// `npm run conformance` (scripts/conformance.ts) runs it; docs/conformance.md says what it covers.
import * as mcp from '../src/mcp.ts';
import { browse } from './browser.ts';

const url = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';

/** How long a tool call may wait for its response before the client gives up (sse-retry's server
 *  answers on a resumed stream only, elicitation-sep1034-client-defaults's asks for input on the GET
 *  stream: a transport that does not resume, or opens no GET stream, would wait forever). */
const CALL_TIMEOUT_MS = 3000;

type Drive = (client: mcp.McpClient) => Promise<void>;

/** Whether the server asked for input (elicitation-sep1034-client-defaults says so when its call times out). */
let asked = false;

/** What some scenarios of 2026-07-28 give the client to do (http-custom-headers: the calls to make). */
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as {
  toolCalls?: { name: string; arguments?: Record<string, unknown> }[];
  client_id?: string;
  client_secret?: string;
};

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
  // 2026-07-28: every request carries the _meta keys, its MCP-Protocol-Version header matches them;
  // the first request is refused with -32022 and the client retries with the version it lists.
  'request-metadata': async (client) => {
    const tools = await client.listTools();
    console.log(`listed ${tools.length} tools`);
  },
  // 2026-07-28: Mcp-Method on every request, Mcp-Name on tools/call (a hyphenated name),
  // resources/read (a URI with %20 and a query) and prompts/get; through stage 8's API, which sends them
  // because the server's discover result declares resources and prompts.
  'http-standard-headers': async (client) => {
    for (const tool of await client.listTools()) console.log(`${tool.name}: ${text(await client.callTool(tool.name, {}))}`);
    const resources = await client.listResources();
    for (const resource of resources) await client.readResource(resource.uri);
    const prompts = await client.listPrompts();
    for (const prompt of prompts) await client.getPrompt(prompt.name);
    console.log(`read ${resources.length} resources, got ${prompts.length} prompts`);
  },
  // 2026-07-28: the arguments a tool's schema marks with x-mcp-header, mirrored into Mcp-Param-*
  // headers (Base64 where the value is not plain ASCII), null ones left out.
  'http-custom-headers': async (client) => {
    await client.listTools();
    for (const call of context.toolCalls ?? []) console.log(`${call.name}: ${text(await client.callTool(call.name, call.arguments))}`);
  },
  // 2026-07-28: tools whose x-mcp-header annotations are invalid are left out of listTools(); the
  // valid one is called (and so would any invalid one the client kept).
  'http-invalid-tool-headers': async (client) => {
    const tools = await client.listTools();
    for (const tool of tools) await client.callTool(tool.name, tool.name === 'valid_tool' ? { region: 'us-west1' } : {});
    console.log(`called ${tools.map((tool) => tool.name).join(', ')}`);
  },
  // 2026-07-28: a network $ref in an inputSchema is not fetched (listTools keeps the schema as it is).
  'json-schema-ref-no-deref': async (client) => {
    const tools = await client.listTools();
    console.log(`listed ${tools.map((tool) => tool.name).join(', ')}`);
  },
  // 2026-07-28: input_required answered by a retry with the requestState echoed (or none when the
  // server gave none) and a new id; a call made between the rounds carries neither; a result
  // without resultType is complete. onInputRequest (below) makes that call between the rounds.
  'sep-2322-client-request-state': async (client) => {
    await client.listTools();
    for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_no_result_type'])
      console.log(`${name}: ${text(await client.callTool(name, {}))}`);
  },
  // 2025-11-25 (SEP-1034): the tool asks for input (elicitation/create) with a form whose five
  // fields (string, integer, number, enum, boolean) all have a default; the client accepts with the
  // defaults filled in. In the course's API the application answers the form through onInputRequest
  // (below: acceptDefaults), as a user accepting the prefilled form would.
  'elicitation-sep1034-client-defaults': async (client) => {
    const tool = await findTool(client, 'test_client_elicitation_defaults');
    const result = await withTimeout(
      client.callTool(tool.name, {}),
      `no response to tools/call within ${CALL_TIMEOUT_MS} ms${asked ? '' : ', and no elicitation/create came: the server sends it on the GET stream (not on the stream of the tools/call), which the transport opens after initialized'}`,
    );
    console.log(`${tool.name}: ${text(result)}`);
    if (result.isError) throw new Error(`${tool.name} answered isError: true`);
  },
  // The server ends the tools/call stream after a priming event (id, retry: 500) and sends the
  // response on a GET stream only: a client that resumes (GET with Last-Event-ID after waiting
  // `retry` ms) gets it; one that does not gets no response, and gives up after CALL_TIMEOUT_MS.
  'sse-retry': async (client) => {
    const tool = await findTool(client, 'test_reconnection');
    const result = await withTimeout(
      client.callTool(tool.name, {}),
      `no response to tools/call within ${CALL_TIMEOUT_MS} ms: the server ended its SSE stream before the response, which it sends on the GET that resumes the stream (Last-Event-ID, after the retry delay)`,
    );
    console.log(`test_reconnection: ${text(result)}`);
  },
};

/** The authorization scenarios (auth/*): the suite's MCP server answers 401 until the client has a
 *  token from its authorization server; stage 7's OAuthClient gets one (its authorization server
 *  signs in at once and redirects back). Then every tool is called, as a client that uses the server. */
const authorized: Drive = async (client) => {
  for (const tool of await client.listTools()) console.log(`${tool.name}: ${text(await client.callTool(tool.name, {}))}`);
};

/** Where the suite's authorization server sends the user back (nothing listens: the browser stops there). */
const REDIRECT_URI = 'http://localhost:3000/callback';

async function findTool(client: mcp.McpClient, name: string): Promise<mcp.Tool> {
  const tools = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new Error(`tools/list has no tool ${name} (it has: ${tools.map((t) => t.name).join(', ') || 'none'})`);
  return tool;
}

function text(result: mcp.CallToolResult): string {
  return result.content.map((item) => (typeof item.text === 'string' ? item.text : JSON.stringify(item))).join(' ');
}

/** An elicitation/create answered as a user who accepts the form as it is prefilled: each property
 *  of requestedSchema with a `default` gets it, the others are left out. */
function acceptDefaults(request: mcp.InputRequest): { action: 'accept'; content: Record<string, unknown> } {
  const schema = request.params?.requestedSchema as { properties?: Record<string, { default?: unknown }> } | undefined;
  const content: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(schema?.properties ?? {})) if (property.default !== undefined) content[name] = property.default;
  return { action: 'accept', content };
}

function withTimeout<T>(promise: Promise<T>, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), CALL_TIMEOUT_MS)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function main(): Promise<number> {
  const drive = scenario.startsWith('auth/') ? authorized : scenarios[scenario];
  if (!drive) {
    console.error(
      `conformance-client: scenario "${scenario}" is not covered by the course (its client speaks server/discover or initialize, tools/list and tools/call, input_required, elicitation answered by the application, over stdio and Streamable HTTP, OAuth; no skills or sampling); covered: auth/*, ${Object.keys(scenarios).join(', ')}`,
    );
    return 2;
  }
  if (!/^https?:\/\//.test(url)) {
    console.error(`conformance-client: expected the server URL as the last argument, got "${url}"`);
    return 2;
  }
  let between: Promise<unknown> | undefined;
  /** The scenarios whose server asks for input: the client declares elicitation and answers. */
  const withInput: Record<string, mcp.McpClientOptions> = {
    'sep-2322-client-request-state': {
      capabilities: { elicitation: { form: {} } },
      onInputRequest: async (request) => {
        console.log(`asked: ${request.method} ${JSON.stringify(request.params?.message)}`);
        between ??= client.callTool('test_mrtr_unrelated', {}); // once, between the first rounds
        await between;
        return { action: 'accept', content: { confirmed: true } };
      },
    },
    'elicitation-sep1034-client-defaults': {
      capabilities: { elicitation: { form: {} } },
      onInputRequest: (request) => {
        if (request.method !== 'elicitation/create') throw new Error(`${request.method}: not asked for in this scenario`);
        asked = true;
        const answer = acceptDefaults(request);
        console.log(`asked: ${request.method} ${JSON.stringify(request.params?.message)}; accepted with ${JSON.stringify(answer.content)}`);
        return answer;
      },
    },
  };
  const options = withInput[scenario] ?? {};
  const oauth = scenario.startsWith('auth/')
    ? new mcp.OAuthClient({
        redirectUri: REDIRECT_URI,
        clientName: 'theinference-conformance-client',
        signIn: (url) => browse(new URL(url), REDIRECT_URI),
        clientId: context.client_id,
        clientSecret: context.client_secret,
        // a metadata document's URL, for a server that takes one as client_id (the suite fetches none)
        clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
      })
    : undefined;
  const client = new mcp.McpClient(new mcp.HttpTransport(url, { oauth }), { name: 'theinference-conformance-client', version: '1.0.0' }, options);
  try {
    const connection = await client.connect();
    console.log(`connected (${connection.era} era), protocol ${connection.protocolVersion}`);
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
