// `theinference --help` names every command and every option each takes, under it: the usage text is
// made from the commands' own tables (each commands/*.ts that is a command exports `command`), the
// same tables their command lines are parsed with, so an option cannot be added without its help.
// `theinference <command> --help` prints the one command's part of it, through the real bin.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../harness/commands/command.ts';
import { REPO, runCli } from '../helpers/cli.ts';

async function commands(): Promise<Command[]> {
  const found: Command[] = [];
  for (const file of readdirSync(join(REPO, 'harness/commands'))) {
    const module = (await import(join(REPO, 'harness/commands', file))) as { command?: Command };
    if (module.command) found.push(module.command);
  }
  return found;
}

describe('--help', () => {
  it('names every command, and every option of each under it, with its help', async () => {
    const help = execFileSync(process.execPath, [join(REPO, 'bin/theinference.js'), '--help'], { encoding: 'utf8' });
    const all = await commands();
    expect(all.map((command) => command.name).sort()).toEqual([
      'bless',
      'classroom',
      'export',
      'lint',
      'list',
      'merge-reports',
      'new-case',
      'record',
      'replay',
      'test',
      'verify',
    ]);
    for (const command of all) {
      const at = help.indexOf(`\n  ${command.name}`);
      expect(at, command.name).toBeGreaterThan(-1);
      const section = help.slice(at + 1).split(/\n {2}\S/)[0]!;
      expect(section, command.name).toContain(command.summary.split('\n')[0]);
      for (const [name, option] of Object.entries(command.options)) {
        expect(section, `${command.name} --${name}`).toContain(`--${name}`);
        expect(section, `${command.name} --${name}`).toContain(option.help.split('\n')[0]);
      }
    }
  });
});

describe('<command> --help', () => {
  it("prints the command's usage, summary and every option it declares, exit 0, for every command, as -h and `help <command>` do", async () => {
    const all = await commands();
    const runs = await Promise.all(all.map((command) => runCli([command.name, '--help'])));
    for (const [index, command] of all.entries()) {
      const run = runs[index]!;
      expect({ code: run.code, stderr: run.stderr }, command.name).toEqual({ code: 0, stderr: '' });
      expect(run.stdout, command.name).toMatch(new RegExp(`^usage: theinference ${command.name}\\b`));
      expect(run.stdout, command.name).toContain(command.summary);
      expect(run.stdout, command.name).toContain('-h, --help');
      for (const [name, option] of Object.entries(command.options)) {
        expect(run.stdout, `${command.name} --${name}`).toMatch(new RegExp(`^ {2}--${name}\\b.*${escaped(option.help.split('\n')[0]!)}`, 'm'));
      }
    }
    const replay = runs[all.findIndex((command) => command.name === 'replay')]!.stdout;
    const [short, asked] = await Promise.all([runCli(['replay', '-h']), runCli(['help', 'replay'])]);
    expect(short).toEqual({ code: 0, stdout: replay, stderr: '' });
    expect(asked).toEqual({ code: 0, stdout: replay, stderr: '' });
  });

  it("wins over another mistake on the line, but not after --, where the words are a server command's", async () => {
    const [mistaken, afterDashes] = await Promise.all([
      runCli(['test', '--stgae', 'x', '--help']),
      runCli(['verify', 'no-such.yaml', '--', 'server', '--help']),
    ]);
    expect(mistaken.code).toBe(0);
    expect(mistaken.stdout).toMatch(/^usage: theinference test /);
    expect(afterDashes.code).toBe(2);
    expect(afterDashes.stdout).toBe('');
    expect(afterDashes.stderr).toContain('no-such.yaml');
  });
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
