// The rule behind each diagnosis: every kind has one, a SHOULD is advice and nothing else is, the
// spec's words are quoted as the spec has them (a MUST rule says MUST, a SHOULD rule SHOULD), and
// docs/cassettes.md shows the table as rules.ts has it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAdvice, RULES, rulesTable } from '../../harness/cassette/rules.ts';
import { REPO } from '../helpers/cli.ts';

describe('the rules behind the diagnoses', () => {
  it("quote the spec's own word for their level, and name where", () => {
    for (const [kind, rule] of Object.entries(RULES)) {
      if (rule.level === 'must') expect(rule.words, kind).toMatch(/\bMUST\b/);
      if (rule.level === 'should') expect(rule.words, kind).toMatch(/\bSHOULD\b/);
      if (rule.level === 'compatible') expect(rule.words, kind).toMatch(/\bMUST\b.*\bnot be compatible\b/);
      if (rule.level === 'course') expect(rule.source, kind).toBe('docs/course.md');
      else expect(rule.source, kind).toMatch(/^(20\d\d-\d\d-\d\d (basic|client|server)(\/[a-z-]+)*(#[a-z-]+)?|OAuth 2\.1 #[a-z-]+|RFC \d+ \d+(\.\d+)*)$/);
      expect(isAdvice(kind as keyof typeof RULES), kind).toBe(rule.level === 'should' || rule.level === 'compatible');
    }
  });

  it('each have a row in the table of kinds docs/cassettes.md shows, and the table no other', () => {
    const docs = readFileSync(join(REPO, 'docs/cassettes.md'), 'utf8');
    const kinds = /\n\| kind \| when \| example message \|\n\|---\|---\|---\|\n((?:\|.*\n)+)/.exec(docs)?.[1];
    const rows = [...(kinds ?? '').matchAll(/^\| `([a-z-]+)` \|/gm)].map((match) => match[1]);
    expect(rows.sort()).toEqual(Object.keys(RULES).sort());
  });

  it('are the table docs/cassettes.md shows', () => {
    const docs = readFileSync(join(REPO, 'docs/cassettes.md'), 'utf8');
    const shown = /<!-- rules:[^\n]*-->\n([\s\S]*?)\n<!-- \/rules -->/.exec(docs)?.[1];
    expect(shown).toBe(rulesTable());
  });
});
