// The harness's modules import one another without a circle: data flows one way (course ->
// cases -> run -> verdicts -> report), so a module never needs one that needs it. Static imports
// only: a lazy `import()` inside a function is how a command loads what it runs, not a dependency
// of the module's own loading.
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
});
