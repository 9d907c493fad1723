// The diagnosis kinds' rows (MCP's in harness/cassette/kinds/, the http-api protocol's in its folder,
// every protocol's joined in harness/protocols/index.ts): the rule behind each quotes the spec as the
// spec has it (a MUST rule says MUST, a SHOULD rule SHOULD), a SHOULD is advice and nothing else is,
// no kind is declared in two areas, and docs/cassettes.md shows the rows as scripts/docs-kinds.ts writes them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_KINDS } from '../../harness/cassette/kinds/authorization.ts';
import { HTTP_KINDS } from '../../harness/cassette/kinds/http.ts';
import { isAdvice as mcpAdvice } from '../../harness/cassette/kinds/index.ts';
import type { DiagnosisKind } from '../../harness/exchange/diagnosis.ts';
import { SESSION_KINDS } from '../../harness/cassette/kinds/session.ts';
import { STATELESS_KINDS } from '../../harness/cassette/kinds/stateless.ts';
import { HTTP_API_KINDS, isAdvice as apiAdvice } from '../../harness/protocols/http-api/kinds.ts';
import { KINDS } from '../../harness/protocols/index.ts';
import { DOCS_COMMAND, DOCS_FILE, withKindTables } from '../../scripts/docs-kinds.ts';

/** Where an API's own rules are documented: a page of the Messages API's docs. */
const API_DOCS = /^platform\.claude\.com\/docs\/en\/[a-z0-9/-]+( \(.+\))?$/;

/** Whether its protocol keeps a diagnosis of this kind as advice. */
const isAdvice = (kind: string) => (Object.hasOwn(HTTP_API_KINDS, kind) ? apiAdvice : mcpAdvice)(kind as DiagnosisKind);

describe('the diagnosis kinds', () => {
  it("quote the spec's own word for their level, and name where", () => {
    for (const [kind, rule] of Object.entries(KINDS)) {
      expect(isAdvice(kind), kind).toBe(rule.level === 'should' || rule.level === 'compatible');
      // An API's rule (the http-api protocol's) is what the API refuses with an error, in its docs' words,
      // which have no RFC 2119 capitals: a MUST.
      if (API_DOCS.test(rule.source)) {
        expect(rule.level, kind).toBe('must');
        continue;
      }
      if (rule.level === 'must') expect(rule.words, kind).toMatch(/\bMUST\b/);
      if (rule.level === 'should') expect(rule.words, kind).toMatch(/\bSHOULD\b/);
      if (rule.level === 'compatible') expect(rule.words, kind).toMatch(/\bMUST\b.*\bnot be compatible\b/);
      if (rule.level === 'course') expect(rule.source, kind).toBe('docs/course.md');
      else expect(rule.source, kind).toMatch(/^(20\d\d-\d\d-\d\d (basic|client|server)(\/[a-z-]+)*(#[a-z-]+)?|OAuth 2\.1 #[a-z-]+|RFC \d+ \d+(\.\d+)*)$/);
      expect(isAdvice(kind), kind).toBe(rule.level === 'should' || rule.level === 'compatible');
    }
  });

  it('are advice or refused, never both: the server serves what it only advises against', () => {
    for (const [kind, row] of Object.entries(KINDS)) expect(isAdvice(kind) && row.refusal === true, kind).toBe(false);
  });

  it('each have one row, in one area (a second would silently replace the first)', () => {
    const areas = [SESSION_KINDS, HTTP_KINDS, AUTHORIZATION_KINDS, STATELESS_KINDS, HTTP_API_KINDS];
    const declared = areas.flatMap((area) => Object.keys(area));
    expect(declared.length).toBe(new Set(declared).size);
    expect(declared.length).toBe(Object.keys(KINDS).length);
  });

  it('are the tables docs/cassettes.md shows', () => {
    const docs = readFileSync(DOCS_FILE, 'utf8');
    expect(withKindTables(docs) === docs, `docs/cassettes.md differs from the kinds' rows: run ${DOCS_COMMAND}`).toBe(true);
  });
});
