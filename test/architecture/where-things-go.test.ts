// The README's "Where a new thing goes" names the files each new thing touches; where a list must
// name a new module for it to count, this holds the list to the folder: a command module that
// cli.ts's table leaves out, a transport or protocol folder its index.ts leaves out, a table of kinds
// kinds/index.ts does not join, a stage module stages/index.ts does not list, would be dead.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCourse } from '../../harness/course.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const HARNESS = join(ROOT, 'harness');
const read = (path: string) => readFileSync(join(HARNESS, path), 'utf8');

/** What a stage is, as the README counts it: the modules of its folder, and the files outside it that
 *  name it (a line, an entry, a command), `<slug>` standing for its slug. */
const STAGE_FOLDER = ['index.ts', 'contract.ts', 'output.ts'];
const STAGE_ELSEWHERE = [
  'harness/stages/index.ts',
  'course.yaml',
  'program.ts',
  'src/mcp.ts',
  'starter/src/mcp.ts',
  'docs/course.md',
  'test/helpers/scenarios.ts',
  'test/scenarios-<slug>.test.ts',
];

/** How many files the README says a stage touches, and its paragraph. */
function readmeStage(readme: string): { files: number; paragraph: string } | undefined {
  const match = /^- \*\*a stage\*\* \((\d+) files and its cases\):([\s\S]*?)^- /m.exec(readme);
  return match ? { files: Number(match[1]), paragraph: match[2]!.replace(/\s+/g, ' ') } : undefined;
}

/** Where a stage of the course lacks what a stage consists of, a line each. */
function stageProblems(root: string, slugs: string[]): string[] {
  const text = (path: string) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : '');
  return slugs.flatMap((slug) => [
    ...STAGE_FOLDER.filter((file) => !existsSync(join(root, 'harness', 'stages', slug, file))).map((file) => `${slug}: no harness/stages/${slug}/${file}`),
    ...(text('harness/stages/index.ts').includes(`'./${slug}/index.ts'`) ? [] : [`${slug}: not in harness/stages/index.ts`]),
    ...(text('program.ts').includes(`'./harness/stages/${slug}/contract.ts'`) ? [] : [`${slug}: program.ts does not import its contract`]),
    ...(text('docs/course.md').includes(`\`${slug}\``) ? [] : [`${slug}: docs/course.md does not name it`]),
    ...(text('test/helpers/scenarios.ts').includes(`stage: '${slug}'`) ? [] : [`${slug}: no broken solution in test/helpers/scenarios.ts`]),
    ...(existsSync(join(root, 'test', `scenarios-${slug}.test.ts`)) ? [] : [`${slug}: no test/scenarios-${slug}.test.ts`]),
  ]);
}

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

  it('a protocol: its folder is in protocols/index.ts', () => {
    const folders = readdirSync(join(HARNESS, 'protocols')).filter((name) => statSync(join(HARNESS, 'protocols', name)).isDirectory());
    expect(folders.sort()).toEqual(['http-api', 'mcp']);
    expect(folders.filter((name) => !importedBy('protocols/index.ts').includes(`${name}.ts`))).toEqual([]);
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

  it("a stage: its folder's modules, and a line in each file outside it, as many as the README counts", () => {
    const slugs = loadCourse(ROOT).stages.map(({ slug }) => slug);
    expect(slugs.length).toBeGreaterThanOrEqual(8);
    expect(stageProblems(ROOT, slugs)).toEqual([]);
    const readme = readmeStage(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(readme?.files).toBe(STAGE_FOLDER.length + STAGE_ELSEWHERE.length);
    for (const file of [...STAGE_FOLDER, ...STAGE_ELSEWHERE]) expect(readme?.paragraph, file).toContain(file.replace(/^harness\//, ''));
    for (const file of STAGE_ELSEWHERE) expect(existsSync(join(ROOT, file.replace('<slug>', slugs[0]!))), file).toBe(true);
  });

  it('would see a stage without a part, and a README that counts otherwise', () => {
    expect(stageProblems(ROOT, ['planted'])).toEqual([
      'planted: no harness/stages/planted/index.ts',
      'planted: no harness/stages/planted/contract.ts',
      'planted: no harness/stages/planted/output.ts',
      'planted: not in harness/stages/index.ts',
      'planted: program.ts does not import its contract',
      'planted: docs/course.md does not name it',
      'planted: no broken solution in test/helpers/scenarios.ts',
      'planted: no test/scenarios-planted.test.ts',
    ]);
    expect(readmeStage('- **a stage** (9 files and its cases): `harness/stages/<slug>.ts`\n- **a protocol area**')?.files).toBe(9);
  });

  it('would see a module left out of its list', () => {
    expect(importedBy('transports/index.ts')).toContain('http.ts');
    expect(importedBy('cli.ts')).toContain('test.ts');
    expect(['planted.ts'].filter((name) => !importedBy('cli.ts').includes(name))).toEqual(['planted.ts']);
  });
});
