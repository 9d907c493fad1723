// The official SDK client driving one session over stdio, against whatever command is given:
// the real server, `record -- <real server>`, or `replay <cassette>`. The same session script is
// used to record, to replay and to bench, so that results can be compared as values.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..', '..');
export const NODE = process.execPath;
/** The CLI a course author runs: compiled (lib/) when that is current, else from source through tsx. */
export const BIN = join(ROOT, 'bin', 'theinference.js');
export const EVERYTHING = [NODE, join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
export const MEMORY = [NODE, join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')];

/** `theinference <args>`, as a command line. */
export function cassetteCommand(...args: string[]): string[] {
  return [NODE, BIN, ...args];
}

export type Step = (client: Client) => Promise<unknown>;

export interface SessionResult {
  server: unknown;
  /** One entry per step: the result, or the error's code and message. */
  results: unknown[];
  stderr: string;
}

export interface SessionOptions {
  env?: Record<string, string>;
  /** The client declares roots and answers the server's roots/list, after `rootsDelay` ms when given. */
  roots?: boolean;
  rootsDelay?: number;
}

export async function runSession(command: string[], steps: Step[], options: SessionOptions = {}): Promise<SessionResult> {
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    cwd: ROOT,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'fidelity-test', version: '1.0.0' }, { capabilities: options.roots ? { roots: {} } : {} });
  if (options.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      if (options.rootsDelay) await new Promise((resolve) => setTimeout(resolve, options.rootsDelay));
      return { roots: [{ uri: 'file:///course', name: 'course' }] };
    });
  }
  await client.connect(transport);
  const results: unknown[] = [];
  for (const step of steps) {
    try {
      results.push(await step(client));
    } catch (error) {
      const { code, message } = error as { code?: number; message: string };
      results.push({ thrown: { code, message } });
    }
  }
  const server = { version: client.getServerVersion(), capabilities: client.getServerCapabilities() };
  await client.close();
  return { server, results, stderr };
}

/** The everything server session: every content type, an isError result, a JSON-RPC error, progress, a server request. */
export const EVERYTHING_STEPS: Step[] = [
  (client) => client.listTools(),
  (client) => client.callTool({ name: 'echo', arguments: { message: 'hello, cassette' } }),
  (client) => client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }),
  (client) => client.callTool({ name: 'get-tiny-image', arguments: {} }),
  (client) => client.callTool({ name: 'get-resource-links', arguments: { count: 2 } }),
  (client) => client.callTool({ name: 'get-resource-reference', arguments: { resourceType: 'Text', resourceId: 3 } }),
  (client) => client.callTool({ name: 'get-structured-content', arguments: { location: 'New York' } }),
  (client) => client.callTool({ name: 'no-such-tool', arguments: {} }),
  (client) => client.callTool({ name: 'get-sum', arguments: { a: 'two', b: 40 } }),
  (client) => client.readResource({ uri: 'demo://no/such/resource' }),
];

/** A session with server-initiated requests and progress: roots/list from the server, progress notifications. */
export const EVERYTHING_EXTRA_STEPS: Step[] = [
  (client) => client.callTool({ name: 'get-roots-list', arguments: {} }),
  (client) => client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } }, undefined, { onprogress: () => {} }),
];

export const MEMORY_STEPS: Step[] = [
  (client) => client.listTools(),
  (client) =>
    client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] },
    }),
  (client) => client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'Ada', contents: ['liked engines'] }] } }),
  (client) => client.callTool({ name: 'search_nodes', arguments: { query: 'Ada' } }),
  (client) => client.callTool({ name: 'read_graph', arguments: {} }),
  (client) => client.callTool({ name: 'open_nodes', arguments: { names: ['Nobody'] } }),
];
