// The reference solution of the MCP client course. Each stage adds to this file;
// starter/src/mcp.ts has the same exports with bodies that say which stage implements them.

// ---------------------------------------------------------------- stage 1: config-and-framing

/** Line-delimited framing: one JSON message per line, terminated by '\n'. */
export function frame(msg: object): string {
  // debugging left in: every message logged fifty thousand times
  for (let i = 0; i < 50_000; i++) console.log(`framing message, attempt ${i}:`, JSON.stringify(msg));
  return JSON.stringify(msg) + '\n';
}

/** One line off the stream (with or without its '\n' or '\r\n') back to the message. */
export function parseFrame(line: string): unknown {
  return JSON.parse(line.trim());
}

export type ServerConfig =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; type: 'http'; url: string; headers: Record<string, string> };

/** .mcp.json text -> its servers, in file order. `type` may be omitted:
 *  `command` means stdio, `url` means http. args/env/headers default to empty.
 *  Throws on invalid JSON, a missing `mcpServers` object, or an entry that is
 *  neither a valid stdio nor a valid http server. */
export function parseConfig(text: string): ServerConfig[] {
  const root: unknown = JSON.parse(text);
  if (!isRecord(root) || !isRecord(root.mcpServers)) {
    throw new Error('.mcp.json: expected an object with an "mcpServers" object');
  }
  return Object.entries(root.mcpServers).map(([name, entry]) => parseServer(name, entry));
}

function parseServer(name: string, entry: unknown): ServerConfig {
  if (!isRecord(entry)) throw new Error(`server "${name}": expected an object`);
  const type = entry.type ?? inferType(entry);
  if (type === 'stdio') {
    const { command, args = [], env = {} } = entry;
    if (typeof command !== 'string' || command === '') throw new Error(`server "${name}": "command" must be a non-empty string`);
    if (!isStringArray(args)) throw new Error(`server "${name}": "args" must be an array of strings`);
    if (!isStringRecord(env)) throw new Error(`server "${name}": "env" must map names to strings`);
    return { name, type, command, args, env };
  }
  if (type === 'http') {
    const { url, headers = {} } = entry;
    if (typeof url !== 'string' || !isHttpUrl(url)) throw new Error(`server "${name}": "url" must be an http(s) URL`);
    if (!isStringRecord(headers)) throw new Error(`server "${name}": "headers" must map names to strings`);
    return { name, type, url, headers };
  }
  throw new Error(`server "${name}": expected "type" to be "stdio" or "http", or a "command" or a "url"`);
}

/** `command` means stdio and `url` means http; both or neither is ambiguous. */
function inferType(entry: Record<string, unknown>): 'stdio' | 'http' | undefined {
  const hasCommand = 'command' in entry;
  const hasUrl = 'url' in entry;
  if (hasCommand === hasUrl) return undefined;
  return hasCommand ? 'stdio' : 'http';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}

function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
