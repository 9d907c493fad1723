// The exchange core (harness/exchange/) is what every protocol's player is made of: JSON paths, the
// bounded log of an exchange, the diagnoses kept and counted, the rows of a table of kinds, lines. It
// names no protocol and no transport: not in an identifier, a string or a comment. A protocol adds its
// words around it (its kinds join the core's DiagnosisKinds by declaration merging).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CORE = join(import.meta.dirname, '..', '..', 'harness', 'exchange');
/** The words of the protocols and transports the harness plays: MCP, JSON-RPC, HTTP (and SSE, its
 *  streams), OAuth and its authorization, stdio, and MCP's own method names. */
const PROTOCOL_WORDS = /mcp|json-?rpc|https?\b|http[A-Z_]|\bsse\b|oauth|authori[sz]|stdio|initiali[sz]e|tools\/|resources\/|prompts\//i;

/** `file:line word` of the first protocol word on each line of a source text (identifiers, strings and
 *  comments alike: the text is read as it is). */
function protocolWords(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, at) => {
    const found = PROTOCOL_WORDS.exec(line);
    return found ? [`${file}:${at + 1} ${found[0]}`] : [];
  });
}

describe('the exchange core', () => {
  const files = readdirSync(CORE).filter((name) => name.endsWith('.ts'));

  it('names no protocol and no transport', () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
    expect(files.flatMap((file) => protocolWords(file, readFileSync(join(CORE, file), 'utf8')))).toEqual([]);
  });

  it('would see one', () => {
    expect(protocolWords('planted.ts', 'export const a = 1;\n// the JSON-RPC id\nconst url = "http://x";\nconst oauthState = 1;')).toEqual([
      'planted.ts:2 JSON-RPC',
      'planted.ts:3 http',
      'planted.ts:4 oauth',
    ]);
  });
});
