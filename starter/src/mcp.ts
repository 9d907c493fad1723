// Your MCP client. Each stage of the course adds to this file; run
//   npx theinference test --stage <stage> --watch
// and make the grader happy, one stage at a time.

// ---------------------------------------------------------------- stage 1: config-and-framing

/** Line-delimited framing: one JSON message per line, terminated by '\n'. */
export function frame(msg: object): string {
  // -> compact JSON + a single trailing newline
  throw new Error('not implemented yet: frame (stage config-and-framing)');
}

export function parseFrame(line: string): unknown {
  // -> JSON.parse the line back into an object (trim the newline first)
  throw new Error('not implemented yet: parseFrame (stage config-and-framing)');
}

export type ServerConfig =
  | { name: string; type: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { name: string; type: 'http'; url: string; headers: Record<string, string> };

/** .mcp.json text -> its servers, in file order. `type` may be omitted:
 *  `command` means stdio, `url` means http. args/env/headers default to empty.
 *  Throws on invalid JSON, a missing `mcpServers` object, or an entry that is
 *  neither a valid stdio nor a valid http server. */
export function parseConfig(text: string): ServerConfig[] {
  throw new Error('not implemented yet: parseConfig (stage config-and-framing)');
}
