// A hint whose lines are made from values (a path, a name, a count, a quote of the output) also says
// its mistake in general words (Hint.general): a hidden case shows those instead (grade/sealed-verdict.ts),
// and a hint that forgot them would quote the hidden case. Read off the harness's source: every object
// literal with a `kind` and `lines` (a hint) either has `general`, or is spread from one that was
// checked where it was made, or has lines of constant text: literals, templates and conditionals of
// literals, and names (a constant of the module or of a transport; a name inside a template is a value).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { globSync } from 'tinyglobby';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const HARNESS = join(import.meta.dirname, '..', '..', 'harness');

/** `file:line kind` of each hint literal built from values without general words. */
function unguarded(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const named = (name: string) =>
        node.properties.find((property) => property.name !== undefined && ts.isIdentifier(property.name) && property.name.text === name);
      const [kind, lines] = [named('kind'), named('lines')];
      // a hint's kind is a word (a schema's, in report/model.ts, is a check: a call)
      const hint = kind !== undefined && !(ts.isPropertyAssignment(kind) && ts.isCallExpression(kind.initializer));
      const spread = node.properties.some(ts.isSpreadAssignment);
      if (hint && lines && !named('general') && !spread && ts.isPropertyAssignment(lines) && !constantLines(lines.initializer)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${file}:${line + 1} ${kind.getText().slice(0, 60)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function constantLines(node: ts.Expression): boolean {
  if (ts.isIdentifier(node) || ts.isPropertyAccessExpression(node)) return true;
  if (!ts.isArrayLiteralExpression(node)) return false;
  return node.elements.every((element) => (ts.isSpreadElement(element) ? spreadOfConstants(element.expression) : constantText(element, true)));
}

function spreadOfConstants(node: ts.Expression): boolean {
  if (ts.isParenthesizedExpression(node)) return spreadOfConstants(node.expression);
  if (ts.isConditionalExpression(node)) return spreadOfConstants(node.whenTrue) && spreadOfConstants(node.whenFalse);
  return ts.isArrayLiteralExpression(node) && node.elements.every((element) => constantText(element, true));
}

/** Text that is the same whatever the case: `names` lets a name stand (a constant), except inside a template. */
function constantText(node: ts.Expression, names: boolean): boolean {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return true;
  if (ts.isParenthesizedExpression(node)) return constantText(node.expression, names);
  if (ts.isConditionalExpression(node)) return constantText(node.whenTrue, names) && constantText(node.whenFalse, names);
  if (ts.isTemplateExpression(node)) return node.templateSpans.every((span) => constantText(span.expression, false));
  return names && (ts.isIdentifier(node) || ts.isPropertyAccessExpression(node));
}

describe('hints', () => {
  it('every hint made from values says its mistake in general words too', () => {
    const found = globSync('**/*.ts', { cwd: HARNESS }).flatMap((file) => unguarded(file, readFileSync(join(HARNESS, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds a hint made from values without them', () => {
    // sources with #{} for a template's placeholder (a string that holds one is taken for a mistaken template)
    const unguardedIn = (text: string) => unguarded('a.ts', text.replaceAll('#{', '${'));
    expect(unguardedIn("const h = { kind: 'k', lines: [`frames[#{i}] differs`, 'fix it'] };")).toEqual(["a.ts:1 kind: 'k'"]);
    expect(unguardedIn("const h = { kind: 'k', lines: ['a ' + name] };")).toHaveLength(1);
    expect(unguardedIn("const h = { kind: 'k', lines: [names.join(', ')] };")).toHaveLength(1);
    expect(unguardedIn("const h = { kind: 'k', lines: [`frames[#{i}] differs`], general: ['a frame differs'] };")).toEqual([]);
    expect(unguardedIn("const h = { kind: 'k', lines: [`a#{x ? ' (sorted)' : ''}`, CLOSING, transport.closing] };")).toEqual([]);
  });
});
