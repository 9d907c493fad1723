// Stage 8's property suite (harness/stages/resources-and-prompts/), each property's check called
// in this process on the values its arbitrary makes: the reference's expandTemplate and decodeBase64
// hold every one, and each plausible mistake is found (a check that cannot fail would pass them too).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StudentModule } from '../../harness/props/suite.ts';
import { suiteNamed } from '../../harness/stages/index.ts';
import { decodeBase64, expandTemplate } from '../../src/mcp.ts';

const SUITE = suiteNamed('resources-and-prompts')!;
const RUNS = 300;

/** The ids of the properties some value of which `student` fails (its check throws). */
function failing(student: StudentModule): string[] {
  return SUITE.properties.flatMap((property) => {
    const values = fc.sample(property.arbitrary, { seed: 7, numRuns: RUNS });
    const broken = values.some((value) => {
      try {
        property.check(student, value);
        return false;
      } catch {
        return true;
      }
    });
    return broken ? [property.id] : [];
  });
}

const reference: StudentModule = { expandTemplate, decodeBase64 };

describe("stage 8's property suite", () => {
  it('names the exports it needs and holds for the reference on every value tried', () => {
    expect(SUITE.requiredExports).toEqual(['expandTemplate', 'decodeBase64']);
    expect(failing(reference)).toEqual([]);
  });

  it("finds a template expanded with encodeURIComponent, which leaves !'()* as they are and encodes the reserved characters of + and #", () => {
    const simple = (template: string, values: Record<string, string>) =>
      template.replace(/\{([+#./;?&]?)([^}]*)\}/g, (_all, operator: string, names: string) => {
        const parts = names.split(',').map((name) => encodeURIComponent(values[name] ?? ''));
        return operator === '?'
          ? `?${names
              .split(',')
              .map((name, at) => `${name}=${parts[at]}`)
              .join('&')}`
          : `${operator}${parts.join(',')}`;
      });
    expect(failing({ ...reference, expandTemplate: simple })).toEqual(['rfc6570-examples', 'template-encoding']);
  });

  it('finds an expansion that does not encode non-ASCII characters', () => {
    const raw = (template: string, values: Record<string, unknown>) =>
      expandTemplate(template, values as never).replace(/(?:%[89A-F][0-9A-F])+/g, (bytes) => decodeURIComponent(bytes));
    expect(failing({ ...reference, expandTemplate: raw })).toContain('template-encoding');
  });

  it('finds a decoder that keeps the Base64 text as its bytes, or drops the last partial group', () => {
    expect(failing({ ...reference, decodeBase64: (text: string) => new TextEncoder().encode(text) })).toEqual(['base64-bytes']);
    const truncating = (text: string) => {
      const bytes = decodeBase64(text);
      return bytes.subarray(0, bytes.length - (bytes.length % 3));
    };
    expect(failing({ ...reference, decodeBase64: truncating })).toEqual(['base64-bytes']);
  });
});
