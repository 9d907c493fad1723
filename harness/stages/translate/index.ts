// Stage 5, `translate`: MCP tools as the Claude API takes them. Its hints read the output of the
// `translate` command: each tool's translation (fields name, description, input_schema, then any
// other), matched with the expected one by name, and `unchanged`, false when toClaudeTool edited
// the MCP tool it was given.
import { isDeepStrictEqual } from 'node:util';
import { asRecord, firstJsonDifference, type Comparison } from '../../grade/comparison.ts';
import type { Hint } from '../../run/verdict.ts';
import { fieldsOf, readBoth } from '../reading.ts';
import type { StageContent } from '../stage-content.ts';
import { translatePart } from './output.ts';

const CLAUDE_FIELDS = ['name', 'description', 'input_schema'];

/** The hints a translated tool shows, in the order of the kinds below (the most basic first). */
type Check = (tool: string, expected: Record<string, unknown>, actual: Record<string, unknown>) => Hint | undefined;

const CHECKS: Check[] = [
  function keyNotRenamed(tool, _expected, actual) {
    if (!('inputSchema' in actual) || 'input_schema' in actual) return undefined;
    return {
      kind: 'input-schema-key',
      lines: [
        `your translation of ${tool} has inputSchema: the Claude API calls the field input_schema (and refuses a tool without it)`,
        'rename the key: { name, description, input_schema }',
      ],
      general: [
        'your translation of a tool has inputSchema: the Claude API calls the field input_schema (and refuses a tool without it)',
        'rename the key: { name, description, input_schema }',
      ],
    };
  },

  function missingSchema(tool, expected, actual) {
    if (!isDeepStrictEqual(expected.input_schema, { properties: {}, type: 'object' }) || isDeepStrictEqual(actual.input_schema, expected.input_schema)) {
      return undefined;
    }
    if ('inputSchema' in actual || (actual.input_schema !== undefined && Object.keys(asRecord(actual.input_schema)).length > 1)) return undefined;
    return {
      kind: 'missing-schema',
      lines: [
        `${tool} has no inputSchema (or an empty one), and your translation gives it ${actual.input_schema === undefined ? 'no input_schema' : `input_schema ${JSON.stringify(actual.input_schema)}`}`,
        'a tool without a schema gets { "type": "object", "properties": {} }: the Claude API refuses a tool without one',
      ],
      general: [
        'a tool has no inputSchema (or an empty one), and your translation gives it another input_schema',
        'a tool without a schema gets { "type": "object", "properties": {} }: the Claude API refuses a tool without one',
      ],
    };
  },

  function topSchemaKept(tool, expected, actual) {
    const schema = asRecord(actual.input_schema);
    if (!('$schema' in schema) || '$schema' in asRecord(expected.input_schema)) return undefined;
    return {
      kind: 'schema-kept',
      lines: [
        `your translation of ${tool} kept the top-level $schema of its input schema`,
        'leave it out of input_schema: the Claude API does not need it, and it costs tokens on every request',
      ],
      general: [
        'your translation of a tool kept the top-level $schema of its input schema',
        'leave it out of input_schema: the Claude API does not need it, and it costs tokens on every request',
      ],
    };
  },

  function schemaChanged(tool, expected, actual) {
    if (!('input_schema' in actual) || isDeepStrictEqual(withoutTopSchema(expected.input_schema), withoutTopSchema(actual.input_schema))) return undefined;
    const difference = firstJsonDifference(withoutTopSchema(expected.input_schema), withoutTopSchema(actual.input_schema), 'input_schema');
    const where = difference === undefined ? 'input_schema' : difference.path;
    const lostSchema = difference?.kind === 'missing' && /(\.\$schema|\["\$schema"\])$/.test(difference.path);
    return {
      kind: lostSchema ? 'nested-schema-stripped' : 'schema-changed',
      lines: lostSchema
        ? [
            `your translation of ${tool} lost a $schema below the top of its schema: ${where}`,
            'only the top-level $schema goes; what is below it (an argument named $schema, an embedded schema of its own) stays as it is',
          ]
        : [
            `your translation of ${tool} changed its schema at ${where} (${difference?.note ?? 'it differs'})`,
            "input_schema is the tool's inputSchema as it is, only its top-level $schema left out: keep $defs, $ref and every keyword",
          ],
      general: lostSchema
        ? [
            'your translation of a tool lost a $schema below the top of its schema',
            'only the top-level $schema goes; what is below it (an argument named $schema, an embedded schema of its own) stays as it is',
          ]
        : [
            'your translation of a tool changed its schema',
            "input_schema is the tool's inputSchema as it is, only its top-level $schema left out: keep $defs, $ref and every keyword",
          ],
    };
  },

  function descriptionDropped(tool, expected, actual) {
    if (!('description' in expected) || 'description' in actual) return undefined;
    return {
      kind: 'description-dropped',
      lines: [`your translation of ${tool} has no description`, "keep the tool's description: it is what the model reads to choose a tool"],
      general: ['your translation of a tool has no description', "keep the tool's description: it is what the model reads to choose a tool"],
    };
  },

  function descriptionInvented(tool, expected, actual) {
    if ('description' in expected || !('description' in actual)) return undefined;
    return {
      kind: 'description-invented',
      lines: [
        `${tool} has no description, and your translation gives it ${JSON.stringify(actual.description)}`,
        'leave the description key out when the tool has none',
      ],
      general: ['a tool has no description, and your translation gives it one', 'leave the description key out when the tool has none'],
    };
  },

  function extraFields(tool, _expected, actual) {
    const extra = Object.keys(actual).filter((key) => !CLAUDE_FIELDS.includes(key) && key !== 'inputSchema');
    if (extra.length === 0) return undefined;
    return {
      kind: 'extra-fields',
      lines: [
        `your translation of ${tool} has fields the Claude API does not take: ${extra.join(', ')}`,
        'a tool for the Claude API is { name, description, input_schema }, nothing else of the MCP tool',
      ],
      general: [
        'your translation of a tool has fields the Claude API does not take',
        'a tool for the Claude API is { name, description, input_schema }, nothing else of the MCP tool',
      ],
    };
  },
];

function withoutTopSchema(schema: unknown): unknown {
  const { $schema: _top, ...rest } = asRecord(schema);
  return rest;
}

/** Each tool's translation against the expected one (by name), each kind of mistake once. */
function translationRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, translatePart);
  const expected = both?.expected.tools;
  const actual = both?.actual.tools;
  if (!Array.isArray(expected) || !Array.isArray(actual)) return [];
  const hints: Hint[] = [];
  for (const check of CHECKS) {
    for (const wanted of expected) {
      const { name } = fieldsOf(wanted);
      const got = actual.find((candidate) => fieldsOf(candidate).name === name);
      if (got === undefined || isDeepStrictEqual(wanted, got)) continue;
      const hint = check(String(name), fieldsOf(wanted), fieldsOf(got));
      if (hint !== undefined) {
        hints.push(hint);
        break; // one tool names the mistake
      }
    }
  }
  return hints;
}

/** The MCP tool edited by its translation: what listTools returned is not what it was. */
function mutationRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, translatePart);
  if (both?.expected.unchanged !== true || both.actual.unchanged !== false) return [];
  return [
    {
      kind: 'tool-mutated',
      lines: [
        'toClaudeTool changed the MCP tools it was given: after it, they are no longer what listTools returned ("unchanged": false)',
        "build a new object and leave the tool alone: copy the schema without $schema ({ $schema, ...rest }), do not delete it from the tool's own",
      ],
    },
  ];
}

export const translate: StageContent = { slug: 'translate', hints: [translationRule, mutationRule], generators: {} };
