// `theinference --help` names every option every command takes: the options are read from the
// commands' own argument tables (each `parse(args, { name: { type } })`), so an option added without
// a line of help fails here.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/cli.ts';

const COMMAND_FILES = [
  ...readdirSync(join(REPO, 'harness/commands')).map((file) => join(REPO, 'harness/commands', file)),
  join(REPO, 'harness/report/formats.ts'),
];

/** Every `name: { type: 'string' | 'boolean' ... }` of the command files: their parse tables. */
function optionsTaken(): string[] {
  const names = new Set<string>();
  for (const file of COMMAND_FILES) {
    for (const match of readFileSync(file, 'utf8').matchAll(/['"]?([a-z][a-z-]*)['"]?\s*:\s*\{\s*type:\s*'(?:string|boolean)'/g)) names.add(match[1]!);
  }
  return [...names].sort();
}

describe('--help', () => {
  it('names every option of every command', () => {
    const help = execFileSync(process.execPath, [join(REPO, 'bin/theinference.js'), '--help'], { encoding: 'utf8' });
    const options = optionsTaken();
    expect(options).toEqual(expect.arrayContaining(['stage', 'force', 'redact-env', 'no-validate', 'report', 'html']));
    expect(options.filter((name) => !help.includes(`--${name}`))).toEqual([]);
  });
});
