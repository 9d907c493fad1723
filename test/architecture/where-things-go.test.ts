// The README's "Where a new thing goes" names the files each new thing touches; where a list must
// name a new module for it to count, this holds the list to the folder: a command module that
// cli.ts's table leaves out, a transport folder transports/index.ts leaves out, a table of kinds
// kinds/index.ts does not join, a stage module stages/index.ts does not list, would be dead.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');
const read = (path: string) => readFileSync(join(HARNESS, path), 'utf8');

/** The modules of a folder (`.ts`, one level), but those named. */
function modules(folder: string, but: string[] = []): string[] {
  return readdirSync(join(HARNESS, folder)).filter((name) => name.endsWith('.ts') && !but.includes(name));
}

/** What a list module imports from its folder, by file name (`./x.ts` -> x.ts). */
function importedBy(list: string): string[] {
  return [...read(list).matchAll(/(?:from|import\()\s*'\.\/(?:commands\/)?([a-z-]+)(?:\/index)?\.ts'/g)].map((match) => `${match[1]}.ts`);
}

describe('where a new thing goes', () => {
  it("a command: its module is in cli.ts's table (help comes from its options)", () => {
    const commands = modules('commands').filter((name) => /export const command = defineCommand/.test(read(`commands/${name}`)));
    expect(commands.length).toBeGreaterThan(8);
    expect(commands.filter((name) => !importedBy('cli.ts').includes(name))).toEqual([]);
  });

  it('a transport: its folder is in transports/index.ts', () => {
    const folders = readdirSync(join(HARNESS, 'transports')).filter((name) => statSync(join(HARNESS, 'transports', name)).isDirectory());
    expect(folders.sort()).toEqual(['http', 'stdio']);
    expect(folders.filter((name) => !importedBy('transports/index.ts').includes(`${name}.ts`))).toEqual([]);
  });

  it("a diagnosis kind: its area's table is joined in cassette/kinds/index.ts", () => {
    const tables = modules('cassette/kinds', ['index.ts', 'row.ts']);
    expect(tables.length).toBeGreaterThanOrEqual(4);
    expect(tables.filter((name) => !importedBy('cassette/kinds/index.ts').includes(name))).toEqual([]);
  });

  it('a stage: its folder is in stages/index.ts', () => {
    const stages = readdirSync(join(HARNESS, 'stages')).filter((name) => statSync(join(HARNESS, 'stages', name)).isDirectory());
    expect(stages.length).toBeGreaterThanOrEqual(8);
    expect(stages.filter((name) => !importedBy('stages/index.ts').includes(`${name}.ts`))).toEqual([]);
  });

  it('would see a module left out of its list', () => {
    expect(importedBy('transports/index.ts')).toContain('http.ts');
    expect(importedBy('cli.ts')).toContain('test.ts');
    expect(['planted.ts'].filter((name) => !importedBy('cli.ts').includes(name))).toEqual(['planted.ts']);
  });
});
