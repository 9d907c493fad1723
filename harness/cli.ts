// argv -> one command function. Exit codes: 0 all pass, 1 the solution failed, 2 usage or infrastructure.
// Each command's module is loaded when it runs: `replay`, spawned by a client, starts without the grader.
import { DEFAULT_MEMORY_BYTES, DEFAULT_RUNS, GENERATED_PER_COMMAND } from './defaults.ts';
import { InputError, UsageError } from './errors.ts';
import { escapeControls } from './terminal-text.ts';

/** The usage text; the report files' lines come from their table (without their renderers: --help starts like node). */
async function usage(): Promise<string> {
  const { REPORT_FILES } = await import('./report/report-files.ts');
  const reportLines = REPORT_FILES.map(({ option, what }) => `       [--${option} <file>]`.padEnd(37) + `write ${what}`).join('\n');
  return USAGE.replace('REPORT_FILES\n', `${reportLines}\n`);
}

const USAGE = `usage: theinference <command> [options]

  test [--stage <slug>] [--watch]   grade src/mcp.ts: the stage and every stage before it
       [--seed <n>] [--runs <n>]     property tests: replay a seed, number of runs (default ${DEFAULT_RUNS})
       [--timeout <seconds>]         CPU time per case, instead of the stage table's (wall time: 3x)
       [--submission <dir>]          grade <dir>/src/ in a scratch copy of this course
       [--memory <MiB>]              memory (RSS) limit per case (default ${DEFAULT_MEMORY_BYTES / 1024 / 1024})
       [--network]                   let cases reach the machine's network (default: a sandboxed case
                                     reaches only its own player)
       [--no-network]                no network even without a sandbox (through unshare)
       [--no-sandbox]                run cases without the bubblewrap sandbox (weaker: see docs/ci.md)
       [--require-sandbox]           refuse to grade where no sandbox can be made (default with --submission)
       [--verbose] [--no-color]      relay stderr of passing cases too; plain text
       [--no-bundle]                 start every case through your_program.sh (slower; same bytes)
       [--no-prestart]               watch: start each case's program on save, not ahead (less memory)
     report files, written when grading ends (--report and --junit make it a CI run):
REPORT_FILES
     CI grading (any of these; see docs/ci.md):
       [--all]                       grade every stage, not stopping at the first that fails
       [--cases <dir>]               add hidden cases (cases/ and fixtures/ as in the course)
       [--shard <i>/<n>]             grade part i of n; merge the reports with merge-reports
       [--random <n>]                generated cases per command (default ${GENERATED_PER_COMMAND}; 0 for none)
  export <dir> [--grader <spec>]    the student's repository: the course's files, the starter as src/, a
                                     package.json that depends on this grader, a workflow that grades each push
  merge-reports --report <file> [--junit <file>] [--html <file>] <shard.json...>   one report from the shards' reports
  list                              the stages, and which pass
  bless [--stage <slug>]            rewrite expected.json from the reference solution (course authors)
  record --out <cassette> -- <server command...>   record a real MCP server (stdio), secrets redacted
       [--script <session.yaml>]     the SDK client plays these steps (else: relay a client on stdin/stdout)
       [--setup <folder>]            copy it to a fresh folder, <setup> in the command and session
       [--env <NAME=VALUE>]          start the server with this variable (<setup> may be in it; kept in the cassette)
       [--force]                     replace an existing cassette
       [--redact-env <NAME>]         redact this variable's value too (repeat for more)
       [--allow-noise]               keep non-JSON lines on the server's stdout as stdout frames
       [--keep-nondeterministic]     do not mark UUIDs, timestamps and the like free
  record --out <cassette> --http <url>   record a Streamable HTTP server: point the client at the printed URL
       [--port <n>] [--force]        the proxy's port on 127.0.0.1 (default: a free one); replace an existing cassette
       [--script <session.yaml>]     the SDK client plays these steps through the proxy, then DELETE
       [-- <server command...>]      start the server (PORT = the URL's port; port 0 picks a free one), stop it at the end
  replay <cassette>                 play a cassette as an MCP server, over the transport it was recorded on (diagnoses on stderr)
       [--stdio | --http [--port <n>]]   over stdio, or over HTTP on 127.0.0.1 (its URL printed on stdout)
       [--pace recorded|none]        over HTTP: keep the recorded gaps between events (default: none, at once)
       [--report <file>] [--html <file>]   write what it found as JSON, or the session drawn
       [--no-validate]               do not check the client's messages against the MCP schema
  lint <cassette>...                check cassettes
  verify <cassette> [-- <server command...>]   replay a cassette's client side against the live server (default: the recorded command)
       [--url <url>]                 an HTTP cassette: a running server to play it against (default: start the recorded command)
       [--timeout <seconds>]         wait this long for each answer (default 10)
       [--redact-env <NAME>]         a variable whose value is a secret too (repeat for more)

exit codes: 0 pass, 1 the solution failed, 2 usage or infrastructure error`;

/** Where a run's text goes: stdout and stderr, or a caller's own sinks (the tests grade in-process, as
 *  watch mode grades many times in one process). Only `test` and main's own messages write through it. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const PROCESS_OUTPUT: Output = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

/** Each command, loaded when it runs. */
const COMMANDS: Record<string, (args: string[], output: Output) => Promise<number>> = {
  test: async (args, output) => (await import('./commands/test.ts')).test(args, output.out),
  list: async (args) => (await import('./commands/list.ts')).list(args),
  bless: async (args) => (await import('./commands/bless.ts')).bless(args),
  'merge-reports': async (args) => (await import('./commands/merge-reports.ts')).mergeReports(args),
  export: async (args, output) => (await import('./commands/export.ts')).exportCourse(args, output.out),
  record: async (args) => (await import('./commands/record.ts')).record(args),
  replay: async (args) => (await import('./commands/replay.ts')).replay(args),
  lint: async (args) => (await import('./commands/lint.ts')).lint(args),
  verify: async (args) => (await import('./commands/verify.ts')).verify(args),
};

export async function main(argv: string[], output: Output = PROCESS_OUTPUT): Promise<number> {
  const [command, ...args] = argv;
  const run = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  try {
    if (run) return await run(args, output);
    if (command === undefined || ['help', '--help', '-h'].includes(command)) {
      output.out(`${await usage()}\n`);
      return command === undefined ? 2 : 0;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (!(error instanceof InputError)) return internalError(error, output);
    // Every command's bad input reads the same: `theinference <command>: <what is wrong>`.
    output.err(`theinference${run ? ` ${command}` : ''}: ${escapeControls(oneLine(error.message))}\n`);
    if (error instanceof UsageError) output.err('run `theinference help` for the commands and options\n');
    return 2;
  }
}

/** The grader's own failure is never a verdict on the solution: one line, exit 2 (1 means "the solution failed"). */
export function internalError(error: unknown, output: Output = PROCESS_OUTPUT): 2 {
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const where =
    error instanceof Error
      ? error.stack
          ?.split('\n')
          .find((line) => line.trim().startsWith('at '))
          ?.trim()
      : undefined;
  output.err(`theinference: internal error, nothing was graded to the end: ${oneLine(what)}${where ? ` (${where})` : ''}\n`);
  return 2;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}
