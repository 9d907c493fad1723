// A type's name says one thing across the harness. The same name declared in two modules (an
// interface, a type, a class or an enum, at a module's top level) is two meanings under one word, or
// one meaning declared twice: either way a reader cannot tell from the name which is meant. A
// thing used in two modules is declared in one and imported; two things get two names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { globSync } from 'tinyglobby';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');
const DECLARATION = /^(?:export\s+)?(?:declare\s+)?(?:abstract\s+)?(?:interface|type|class|enum)\s+([A-Za-z_$][\w$]*)/gm;

/** Each name declared by more than one module, with the modules. */
function namesDeclaredTwice(sources: Map<string, string>): string[] {
  const where = new Map<string, Set<string>>();
  for (const [file, text] of sources) {
    for (const match of text.matchAll(DECLARATION)) where.set(match[1]!, (where.get(match[1]!) ?? new Set()).add(file));
  }
  return [...where]
    .filter(([, files]) => files.size > 1)
    .map(([name, files]) => `${name}: ${[...files].sort().join(', ')}`)
    .sort();
}

describe('the harness type names', () => {
  it('are each declared by one module', () => {
    const sources = new Map(globSync('**/*.ts', { cwd: HARNESS }).map((file) => [file, readFileSync(join(HARNESS, file), 'utf8')]));
    expect(sources.size).toBeGreaterThan(50);
    expect(namesDeclaredTwice(sources)).toEqual([]);
  });

  it('would see a name declared twice, whatever declares it', () => {
    const planted = new Map([
      ['run/verdict.ts', 'export interface Difference {\n  offset: number;\n}\nexport type Status = string;\n'],
      ['cassette/format/json-path.ts', "export type Difference = { path: string[] };\nclass Status {}\nimport type { Other } from './x.ts';\n"],
      ['grade/case.ts', 'function inside() {\n  type Local = number;\n}\nexport abstract class Other {}\n'],
    ]);
    expect(namesDeclaredTwice(planted)).toEqual([
      'Difference: cassette/format/json-path.ts, run/verdict.ts',
      'Status: cassette/format/json-path.ts, run/verdict.ts',
    ]);
  });
});
