// Writes docs/cassettes.md's two tables of the diagnosis kinds from their rows (harness/cassette/kinds/):
// the kinds (when, an example message) and the rules behind them, each between its marker comments.
// `node --import tsx scripts/docs-kinds.ts`; test/cassette/rules.test.ts fails while the docs differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RuleLevel } from '../harness/exchange/rows.ts';
import { KINDS } from '../harness/protocols/index.ts';
import { OUTPUT_RULES } from '../harness/cassette/rules.ts';

export const DOCS_FILE = join(import.meta.dirname, '..', 'docs', 'cassettes.md');
export const DOCS_COMMAND = 'node --import tsx scripts/docs-kinds.ts';

const LEVEL_WORDS: Record<RuleLevel, string> = {
  must: 'MUST: error',
  should: 'SHOULD: advice',
  compatible: 'allowed, not by every server: advice',
  course: "the course's: error",
};

/** A table cell: a `|` in the text would end it. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** Each kind, when the player says it, and a message of it. */
export function kindsTable(): string {
  const rows = Object.entries(KINDS).map(([kind, row]) => `| \`${kind}\` | ${cell(row.what)} | ${cell(row.example)} |`);
  return ['| kind | when | example message |', '|---|---|---|', ...rows].join('\n');
}

/** The rule behind each kind, then the rules decided by the program's output. */
export function rulesTable(): string {
  const rules = [...Object.entries(KINDS), ...Object.entries(OUTPUT_RULES).map(([kind, rule]) => [`${kind} (output)`, rule] as const)];
  const rows = rules.map(([kind, rule]) => `| \`${kind}\` | ${LEVEL_WORDS[rule.level]} | ${rule.source} | ${cell(rule.words)} |`);
  return ['| diagnosis | level | where | the rule |', '|---|---|---|---|', ...rows].join('\n');
}

/** The docs with each table written between its markers, `<!-- <name>: … -->` and `<!-- /<name> -->`. */
export function withKindTables(docs: string): string {
  let text = docs;
  for (const [name, table] of [
    ['kinds', kindsTable()],
    ['rules', rulesTable()],
  ] as const) {
    const block = new RegExp(`(<!-- ${name}:[^\\n]*-->\\n)[\\s\\S]*?(\\n<!-- /${name} -->)`);
    if (!block.test(text)) throw new Error(`docs/cassettes.md has no <!-- ${name}: … --> … <!-- /${name} --> markers`);
    // a function, so that a `$` in a table is not read as a pattern
    text = text.replace(block, (_, start: string, end: string) => `${start}${table}${end}`);
  }
  return text;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const docs = readFileSync(DOCS_FILE, 'utf8');
  const written = withKindTables(docs);
  if (written === docs) console.log('docs/cassettes.md: the tables of kinds are up to date');
  else {
    writeFileSync(DOCS_FILE, written);
    console.log('docs/cassettes.md: the tables of kinds written');
  }
}
