// What a command is: its name, how it is used, its options (each with the line of help that says
// what it does) and what it does with them. cli.ts parses a command line with the command's own
// table and writes the usage text from every command's, so an option is declared once.

/** Where a command's text goes: stdout and stderr, or a caller's own sinks (the tests grade in-process,
 *  as watch mode grades many times in one process). */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

export interface Option {
  type: 'string' | 'boolean';
  /** May be given more than once (its values, in order). */
  multiple?: boolean;
  /** What the usage text shows for its value: `<slug>`. */
  value?: string;
  /** What it does, for the usage text: a line, or more (`\n` between them). */
  help: string;
  /** A heading the usage text puts above it: a group of options begins here. */
  heading?: string;
}

export type Options = Readonly<Record<string, Option>>;

type ValueOf<O extends Option> = O['type'] extends 'boolean' ? boolean : O['multiple'] extends true ? string[] : string;

export interface Parsed<O extends Options> {
  values: { [K in keyof O]?: ValueOf<O[K]> };
  /** The words that are not options, before a `--`. */
  positionals: string[];
  /** The words after `--` (a server command), when the command line has one. */
  rest?: string[];
}

export interface Command<O extends Options = Options> {
  name: string;
  /** What follows the name in the usage text, e.g. `<cassette>...`, `--out <cassette> -- <server command...>`. */
  synopsis: string;
  /** What it does, in a line. */
  summary: string;
  options: O;
  /** Takes words that are not options (else one is a usage mistake). */
  positionals?: boolean;
  /** Takes a server command after `--` (its words are `rest`, not read as options). */
  afterDashes?: boolean;
  run(args: Parsed<O>, output: Output): Promise<number>;
}

/** A command, its options' types kept for its `run`. */
export function defineCommand<const O extends Options>(command: Command<O>): Command<O> {
  return command;
}

/** `options` under one heading in the usage text: the first of them carries it. */
export function headed<const O extends Options>(options: O, heading: string): O {
  const [first, ...rest] = Object.entries(options);
  return Object.fromEntries([...(first ? [[first[0], { ...first[1], heading }]] : []), ...rest]) as unknown as O;
}
