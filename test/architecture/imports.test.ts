// The harness's modules import one another without a circle: data flows one way (course ->
// cases -> run -> verdicts -> report), so a module never needs one that needs it. Static imports
// only: a lazy `import()` inside a function is how a command loads what it runs, not a dependency
// of the module's own loading. And its folders import downwards only, in one order (FOLDER_ORDER),
// lazy imports too: what a folder needs of one above it is passed down to it.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');

/** Each harness module and the harness modules it imports statically (type-only imports too: they still tie the modules' meaning). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of globSync('**/*.ts', { cwd: HARNESS })) {
    const text = readFileSync(join(HARNESS, file), 'utf8');
    const targets = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((match) =>
      relative(HARNESS, resolve(dirname(join(HARNESS, file)), match[1]!)),
    );
    graph.set(file, targets);
  }
  return graph;
}

/** The first circle found, as the list of modules around it, or undefined. */
function findCircle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (module: string): string[] | undefined => {
    if (state.get(module) === 'done') return undefined;
    if (state.get(module) === 'open') return [...path.slice(path.indexOf(module)), module];
    state.set(module, 'open');
    path.push(module);
    for (const target of graph.get(module) ?? []) {
      const circle = visit(target);
      if (circle) return circle;
    }
    path.pop();
    state.set(module, 'done');
    return undefined;
  };
  for (const module of graph.keys()) {
    const circle = visit(module);
    if (circle) return circle;
  }
  return undefined;
}

/** The harness's folders, top to bottom: each may import only from those below it (and itself).
 *  `base` is the harness's top-level modules (errors, files, defaults, terminal text, processes…). */
const FOLDER_ORDER = [
  'cli',
  'commands',
  'classroom',
  'ci',
  'watch',
  'stages',
  'report',
  'grade',
  'props',
  'run',
  'protocols',
  'transports',
  'authorization',
  'cassette',
  'exchange',
  'course',
  'base',
];

/** The folder a harness module belongs to, as FOLDER_ORDER names it. */
function folderOf(module: string): string {
  const [first, ...rest] = module.split('/');
  if (rest.length > 0) return first!;
  return module === 'cli.ts' ? 'cli' : module === 'course.ts' ? 'course' : 'base';
}

/** Every import of a harness module (static, and lazy ones with a literal path) that names a module of a folder above its own. */
function importsUpwards(files: Map<string, string>): string[] {
  const wrong: string[] = [];
  for (const [file, text] of files) {
    const from = FOLDER_ORDER.indexOf(folderOf(file));
    const named = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms), ...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)];
    for (const match of named) {
      const target = relative(HARNESS, resolve(dirname(join(HARNESS, file)), match[1]!));
      const to = FOLDER_ORDER.indexOf(folderOf(target));
      if (to < from) wrong.push(`${file} imports ${target} (${folderOf(file)} is below ${folderOf(target)})`);
    }
  }
  return wrong;
}

function harnessSources(): Map<string, string> {
  return new Map(globSync('**/*.{ts,mjs}', { cwd: HARNESS }).map((file) => [file, readFileSync(join(HARNESS, file), 'utf8')]));
}

describe('the harness imports', () => {
  it('form no circle', () => {
    const graph = importGraph();
    expect(graph.size).toBeGreaterThan(50);
    expect(findCircle(graph)).toBeUndefined();
  });

  it('would see a circle if there were one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(findCircle(graph)).toEqual(['a.ts', 'b.ts', 'c.ts', 'a.ts']);
  });

  it('read every relative import of a module, however it is written', () => {
    const text = `import type { A } from './a.ts';\nimport {\n  b,\n  type C,\n} from '../b.ts';\nexport { d } from './d.ts';\nconst lazy = () => import('./e.ts');\n`;
    const found = [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)].map((match) => match[1]);
    expect(found).toEqual(['./a.ts', '../b.ts', './d.ts']);
  });

  it('run downwards between folders only, in the order commands > classroom > ci > stages > report > grade > props > run > protocols > transports > authorization > cassette > exchange > course > base', () => {
    const sources = harnessSources();
    expect([...sources.keys()].map(folderOf).filter((folder) => !FOLDER_ORDER.includes(folder))).toEqual([]);
    expect(importsUpwards(sources)).toEqual([]);
  });

  it('reach the cassette engine through its one entry, cassette/index.ts (a lazy import() of what a command runs may name its module)', () => {
    const past: string[] = [];
    for (const [file, text] of harnessSources()) {
      if (file.startsWith('cassette/')) continue;
      for (const match of text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'(\.[^']+)'/gms)) {
        const target = relative(HARNESS, resolve(dirname(join(HARNESS, file)), match[1]!));
        if (target.startsWith('cassette/') && target !== 'cassette/index.ts') past.push(`${file} imports ${target}`);
      }
    }
    expect(past).toEqual([]);
  });

  it('would see an import that runs upwards, static or lazy', () => {
    const planted = new Map([
      ['cassette/player.ts', "import { x } from '../report/json.ts';\nimport { y } from './model.ts';\n"],
      ['grade/case.ts', "const later = () => import('../stages/index.ts');\nimport { z } from '../run/spawn.ts';\n"],
      ['course.ts', "import type { S } from './stages/content.ts';\n"],
    ]);
    expect(importsUpwards(planted)).toEqual([
      'cassette/player.ts imports report/json.ts (cassette is below report)',
      'grade/case.ts imports stages/index.ts (grade is below stages)',
      'course.ts imports stages/content.ts (course is below stages)',
    ]);
  });
});
