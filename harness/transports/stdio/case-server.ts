// A case whose folder has a .mcp.json starts its server through the student's spawnWire: the entry
// names theinference-case-server (harness/case-server/), which program.ts relays to the grader's
// wire. Its first line there is its report, the arguments and environment it was started with; the
// grader holds them to the entry here, and hands the rest of the wire to the cassette player. That
// the server was found at all proves the PATH was passed on; that it reached the grader proves the
// entry's env was (program.ts adds the way to the grader there).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { nestedDeeperThan } from '../../json-depth.ts';

/** What a server is started with: its args, and its environment (or the variables its entry adds). */
interface Startup {
  args: string[];
  env: Record<string, string>;
}
/** What the case's server must be started with: the first entry of its .mcp.json. */
export type ServerEntry = Startup;
/** What theinference-case-server says it was started with. */
export type StartReport = Startup;

/** The longest report read: an environment is a few kilobytes. */
const MAX_REPORT_BYTES = 256 * 1024;

/** The case's server entry, or undefined for a case without a .mcp.json. */
export function caseServerEntry(caseDir: string): ServerEntry | undefined {
  const path = join(caseDir, '.mcp.json');
  if (!existsSync(path)) return undefined;
  const servers = (JSON.parse(readFileSync(path, 'utf8')) as { mcpServers?: Record<string, { args?: string[]; env?: Record<string, string> }> }).mcpServers;
  const first = servers === undefined ? undefined : Object.values(servers)[0];
  return { args: first?.args ?? [], env: first?.env ?? {} };
}

/** Reads the report off the start of the wire, then gives the wire, at the byte after it, to `then`.
 *  Anything else first (a client that wrote to the wire itself), or nothing, gives undefined, and
 *  the wire is not handed on: nothing the client wrote reached a server it started. */
export function readStartReport(wire: Duplex, then: (report: StartReport | undefined, wire: Duplex) => void): void {
  const pieces: Buffer[] = [];
  let length = 0;
  const onData = (chunk: Buffer) => {
    const newline = chunk.indexOf(0x0a);
    if (newline < 0) {
      pieces.push(chunk);
      length += chunk.length;
      if (length > MAX_REPORT_BYTES) settle(undefined);
      return;
    }
    pieces.push(chunk.subarray(0, newline));
    settle(parseReport(Buffer.concat(pieces).toString('utf8')), chunk.subarray(newline + 1));
  };
  const onEnd = () => settle(undefined);
  let settled = false;
  function settle(report: StartReport | undefined, rest?: Buffer): void {
    if (settled) return;
    settled = true;
    wire.off('data', onData);
    wire.off('end', onEnd);
    // Put back once no one listens (with a listener, unshift hands it over at once), and before the
    // reader attaches: it may set an encoding, which decodes what is buffered. The stream still
    // flows: the reader's 'data' listener gets the rest; without a reader it is dropped, so that a
    // program writing to the wire never blocks on it.
    if (rest && rest.length > 0) wire.unshift(rest);
    then(report, wire);
  }
  wire.on('error', () => {}); // the program's end may reset the wire: what came before is what came
  wire.on('data', onData);
  wire.on('end', onEnd);
}

function parseReport(line: string): StartReport | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    // the program's to write: one nested too deep would overflow the comparison and the words of startProblem
    if (nestedDeeperThan(parsed)) return undefined;
    const report = (parsed as { caseServer?: unknown }).caseServer as Partial<StartReport> | undefined;
    if (!Array.isArray(report?.args) || typeof report.env !== 'object' || report.env === null) return undefined;
    return { args: report.args.map(String), env: report.env };
  } catch {
    return undefined;
  }
}

/** What was wrong with how spawnWire started the server, in one line; undefined when nothing was. */
export function startProblem(entry: ServerEntry, report: StartReport | undefined): string | undefined {
  if (!report) return "the server in the case's .mcp.json never reached the grader: your spawnWire did not start it, or not with the entry's env";
  if (JSON.stringify(report.args) !== JSON.stringify(entry.args)) {
    return `spawnWire started the server with the args ${JSON.stringify(report.args)}; the entry in .mcp.json says ${JSON.stringify(entry.args)}`;
  }
  for (const [name, value] of Object.entries(entry.env)) {
    const got = report.env[name];
    if (got !== value) {
      const had = got === undefined ? `had no ${name}` : `had ${name}=${JSON.stringify(got)}`;
      return `the server's environment ${had}; the entry's env in .mcp.json sets ${name}=${JSON.stringify(value)}`;
    }
  }
  return undefined;
}
