// Derives the translate cases from the HTTP session recorded from the real everything server
// (cassettes/everything-http-tools.yaml): its initialize, initialized and tools/list, then DELETE
// (the calls left out: the translate command makes none). Every tool the real server lists has a
// top-level `$schema`; what no real server of the recordings sends (a tool without a schema or
// without a description, a `$schema` deeper in the schema, `$defs` with `$ref` and 2020-12
// keywords) is a hand edit of its tools/list result, said in the case cassette's provenance.
// Run: node --import tsx scripts/derive-translate-cases.ts
// then `npx theinference bless --stage translate` for the expected output.
import type { Frame, JsonObject } from '../harness/cassette/index.ts';
import { recorded, SOURCE as source, writeHttpCase } from './http-cases.ts';

type Tool = JsonObject & { name: string; inputSchema?: JsonObject };

interface TranslateCase {
  name: string;
  about: string;
  /** What was changed in the recorded tools/list result, for the provenance; none: as recorded. */
  edit?: string;
  tools(tools: Tool[]): Tool[];
}

const CASES: TranslateCase[] = [
  {
    name: 'everything-server',
    about:
      "The real everything server's tools, as it lists them: every input schema starts with a `$schema` (draft-07), which the translation leaves out, and nothing else of it changes.",
    tools: (tools) => tools,
  },
  {
    name: 'no-input-schema',
    about:
      'Tools that take no arguments, listed without an inputSchema (MCP requires one, some servers leave it out): the Claude API refuses a tool without a schema, so each gets `{ "type": "object", "properties": {} }`; the other tools keep theirs.',
    edit: 'the inputSchema of every tool without arguments (an empty properties) removed',
    tools: (tools) =>
      tools.map((tool) => {
        const properties = tool.inputSchema?.properties;
        if (properties === undefined || Object.keys(properties as object).length > 0) return tool;
        const { inputSchema: _removed, ...rest } = tool;
        return rest as Tool;
      }),
  },
  {
    name: 'nested-schema',
    about:
      'A tool whose schema has `$schema` below its top: an argument named `$schema`, and an argument whose own schema is an embedded resource with its own `$schema` and `$id`. Only the top-level `$schema` is left out of the translation.',
    edit: 'a tool added, validate-document, whose input schema has an argument named $schema and an argument schema with its own $schema and $id',
    tools: (tools) => [
      ...tools,
      {
        name: 'validate-document',
        title: 'Validate Document Tool',
        description: 'Validates a JSON document against a schema given inline.',
        inputSchema: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: {
            $schema: { type: 'string', description: 'The meta-schema URI the document claims to follow' },
            schema: {
              $schema: 'http://json-schema.org/draft-07/schema#',
              $id: 'https://example.com/schemas/inline',
              type: 'object',
              description: 'The schema to validate against',
            },
            document: { description: 'The document to validate' },
          },
          required: ['schema', 'document'],
        },
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      },
    ],
  },
  {
    name: 'defs-and-refs',
    about:
      'A tool whose JSON Schema 2020-12 input schema has `$defs` referred to by `$ref` (by JSON pointer and by `$anchor`), `prefixItems` and `unevaluatedProperties`: the translation keeps all of it as it is and leaves out only the top-level `$schema`.',
    edit: 'a tool added, draw-line, with a 2020-12 input schema: $defs, $ref, $anchor, prefixItems, unevaluatedProperties',
    tools: (tools) => [
      ...tools,
      {
        name: 'draw-line',
        title: 'Draw Line Tool',
        description: 'Draws a line between two points.',
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: {
            point: {
              $anchor: 'point',
              type: 'array',
              prefixItems: [{ type: 'number' }, { type: 'number' }],
              items: false,
            },
            style: {
              type: 'object',
              properties: { color: { type: 'string' }, width: { type: 'number', minimum: 0 } },
              unevaluatedProperties: false,
            },
          },
          properties: {
            from: { $ref: '#/$defs/point' },
            to: { $ref: '#point' },
            style: { $ref: '#/$defs/style' },
          },
          required: ['from', 'to'],
          unevaluatedProperties: false,
        },
      },
    ],
  },
  {
    name: 'no-description',
    about: 'Tools listed without a description (it is optional): their translations have no description either, not an empty one.',
    edit: 'the description of echo and get-sum removed',
    tools: (tools) =>
      tools.map((tool) => {
        if (tool.name !== 'echo' && tool.name !== 'get-sum') return tool;
        const { description: _removed, ...rest } = tool;
        return rest as Tool;
      }),
  },
];

/** The session up to the tools/list result: the calls after it, and what answered them, left out. */
function listingOnly(frames: Frame[]): Frame[] {
  const firstCall = frames.findIndex((frame) => frame.from === 'client' && frame.message.method === 'tools/call');
  if (firstCall < 0) throw new Error(`${source}: no tools/call after tools/list`);
  return frames.slice(0, firstCall);
}

/** The frames with the tools/list result's tools edited by `edit`. */
function withTools(frames: Frame[], edit: (tools: Tool[]) => Tool[]): Frame[] {
  return frames.map((frame): Frame => {
    if (frame.from !== 'server' || frame.message.method !== undefined) return frame;
    const result = frame.message.result as { tools?: Tool[] } | undefined;
    if (result?.tools === undefined) return frame;
    return { ...frame, message: { ...frame.message, result: { ...result, tools: edit(result.tools) } } };
  });
}

for (const testCase of CASES) {
  const note = `initialize, initialized, tools/list and DELETE (the calls left out); tools/list result ${testCase.edit ? `edited: ${testCase.edit}` : 'as recorded'}`;
  writeHttpCase('translate', testCase.name, testCase.about, note, withTools(listingOnly(structuredClone(recorded.frames)), testCase.tools));
}
