// The course driver: `program.ts <command> <case-dir>` feeds a case to the student's src/mcp.ts
// and prints the result as JSON on stdout, which the grader compares byte for byte with the
// case's expected.json. Everything printed here is decided by this file, never by prose or
// free choices in the student's code; the student's messages go to stderr.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
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
      console.error(`parseConfig threw: ${error instanceof Error ? error.message : String(error)}`);
      return { rejected: true };
    }
    return { servers: servers.map(canonicalServer) };
  },
};

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
process.stdout.write(JSON.stringify(result, null, 2) + '\n');
