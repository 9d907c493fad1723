// argv -> one command function. Exit codes: 0 all pass, 1 the solution failed, 2 usage or infrastructure.
// Each command is one module of commands/ ({ name, options, run }); its module is loaded when it runs.
import { parse } from './commands/args.ts';
import type { Command, Options, Output, Parsed } from './commands/command.ts';
import { InputError, UsageError } from './errors.ts';
import { escapeControls } from './terminal-text.ts';

/** Each command, in the order the usage text lists them, loaded only when asked for (`replay`,
 *  spawned by a client, starts without the grader). A new command is its module and a line here. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  test: () => commandOf(import('./commands/test.ts')),
  export: () => commandOf(import('./commands/export.ts')),
  'merge-reports': () => commandOf(import('./commands/merge-reports.ts')),
  classroom: () => commandOf(import('./commands/classroom.ts')),
  list: () => commandOf(import('./commands/list.ts')),
  bless: () => commandOf(import('./commands/bless.ts')),
  'new-case': () => commandOf(import('./commands/new-case.ts')),
  record: () => commandOf(import('./commands/record.ts')),
  replay: () => commandOf(import('./commands/replay.ts')),
  lint: () => commandOf(import('./commands/lint.ts')),
  verify: () => commandOf(import('./commands/verify.ts')),
};

/** A command module's command, its options' own types let go: cli.ts parses with its table, which its run was typed by. */
async function commandOf(module: Promise<{ command: object }>): Promise<Command> {
  return (await module).command as Command;
}

/** Where the help of an option starts, and of a command. */
const HELP_COLUMN = 37;

/** `left` with `help` beside it at HELP_COLUMN, the help's further lines under its first. */
function column(left: string, help: string): string[] {
  const [first = '', ...more] = help.split('\n');
  const head = left.length < HELP_COLUMN - 1 ? `${left.padEnd(HELP_COLUMN)}${first}` : `${left}   ${first}`;
  return [head, ...more.map((line) => `${' '.repeat(HELP_COLUMN)}${line}`)];
}

/** A command's options, each with its help, under its headings (as `heading` writes one): the lines of both usage texts. */
function optionLines(options: Options, indent: number, heading: (text: string) => string[]): string[] {
  const lines: string[] = [];
  for (const [name, option] of Object.entries(options)) {
    if (option.heading) lines.push(...heading(option.heading));
    lines.push(...column(`${' '.repeat(indent)}--${name}${option.value ? ` ${option.value}` : ''}`, option.help));
  }
  return lines;
}

/** The usage text, made from every command's own table (so --help loads them all). */
async function usage(): Promise<string> {
  const lines = ['usage: theinference <command> [options]', ''];
  for (const load of Object.values(COMMANDS)) {
    const command = await load();
    lines.push(...column(`  ${command.name}${command.synopsis ? ` ${command.synopsis}` : ''}`, command.summary));
    lines.push(...optionLines(command.options, 7, (text) => [`     ${text}:`]));
  }
  lines.push('', 'exit codes: 0 pass, 1 the solution failed, 2 usage or infrastructure error');
  lines.push('one command alone: theinference <command> --help');
  return lines.join('\n');
}

/** `theinference <command> --help`: the one command's usage, made from the same table as its command line. */
function commandUsage(command: Command): string {
  const options = Object.keys(command.options).length > 0 ? ' [options]' : '';
  return [
    `usage: theinference ${command.name}${options}${command.synopsis ? ` ${command.synopsis}` : ''}`,
    '',
    command.summary,
    '',
    'options:',
    ...column('  -h, --help', 'this help'),
    ...optionLines(command.options, 2, (text) => ['', `${text}:`]),
  ].join('\n');
}

/** `--help` or `-h` among a command's options: before a `--`, after which the words are not options
 *  (a server command's own `--help`). Asked for anywhere there, it wins over any other mistake. */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** A command line read with the command's own options (strictly: a mistake is a UsageError); the words
 *  after `--` apart, for a command that takes a server command there. */
function parseFor(command: Command, args: string[]): Parsed<Options> {
  const split = command.afterDashes ? args.indexOf('--') : -1;
  const parsed = parse(split === -1 ? args : args.slice(0, split), command.options, { positionals: command.positionals === true });
  return { values: parsed.values as Parsed<Options>['values'], positionals: parsed.positionals, ...(split !== -1 && { rest: args.slice(split + 1) }) };
}

const PROCESS_OUTPUT: Output = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

export async function main(argv: string[], output: Output = PROCESS_OUTPUT): Promise<number> {
  const [command, ...args] = argv;
  const load = command !== undefined && Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  try {
    if (load) {
      const chosen = await load();
      if (asksForHelp(args)) {
        output.out(`${commandUsage(chosen)}\n`);
        return 0;
      }
      return await chosen.run(parseFor(chosen, args), output);
    }
    // `theinference help <command>`, as `<command> --help`
    const [topic] = args;
    if (command === 'help' && topic !== undefined && Object.hasOwn(COMMANDS, topic)) {
      output.out(`${commandUsage(await COMMANDS[topic]!())}\n`);
      return 0;
    }
    if (command === undefined || ['help', '--help', '-h'].includes(command)) {
      output.out(`${await usage()}\n`);
      return command === undefined ? 2 : 0;
    }
    throw new UsageError(`unknown command "${command}"`);
  } catch (error) {
    if (!(error instanceof InputError)) return internalError(error, output);
    // Every command's bad input reads the same: `theinference <command>: <what is wrong>`.
    output.err(`theinference${load ? ` ${command}` : ''}: ${escapeControls(oneLine(error.message))}\n`);
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
