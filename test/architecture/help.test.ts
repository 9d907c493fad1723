// `theinference --help` names every command and every option each takes, under it: the usage text is
// made from the commands' own tables (each commands/*.ts that is a command exports `command`), the
// same tables their command lines are parsed with, so an option cannot be added without its help.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../harness/commands/command.ts';
import { REPO } from '../helpers/cli.ts';

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
