// Stage 3, `tools`: list every tool (page after page), then make calls at once. Its hints read
// the `tools` and `calls` program.ts prints; its generator makes the tools, the calls and their answers.
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import type { Comparison } from '../../grade/comparison.ts';
import type { Hint } from '../../run/verdict.ts';
import { REQUESTED_VERSION } from '../../protocol.ts';
import type { GeneratedFiles, StageContent } from '../stage-content.ts';
import { builtWhenUsed } from '../../props/arbitraries.ts';
import { cassetteYaml, draw, handshakeFrames, text } from '../generated.ts';
import type { Outcome } from '../contract.ts';
import { outcomeMistake, outcomeOf } from '../outcome.ts';
import { fieldsOf, readBoth } from '../reading.ts';
import { toolsPart } from './output.ts';

// ------------------------------------------------------------------------------------ hints

function toolListRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, toolsPart);
  const expected = both?.expected.tools;
  const actual = both?.actual.tools;
  if (!Array.isArray(expected) || !Array.isArray(actual) || actual.length >= expected.length) return [];
  if (!actual.every((tool, index) => isDeepStrictEqual(tool, expected[index]))) return [];
  return [
    {
      kind: 'pagination',
      lines: [
        `your client listed ${actual.length} of the ${expected.length} tools: the rest are on further pages`,
        'follow nextCursor (tools/list with { cursor }) until the server gives none',
      ],
      general: [
        'your client listed fewer tools than the server has: the rest are on further pages',
        'follow nextCursor (tools/list with { cursor }) until the server gives none',
      ],
    },
  ];
}

function callsRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, toolsPart);
  const expected = both?.expected.calls;
  const actual = both?.actual.calls;
  if (expected === undefined || actual === undefined || expected.length !== actual.length) return [];
  const hints: Hint[] = [];
  for (let index = 0; index < expected.length; index++) {
    if (isDeepStrictEqual(expected[index], actual[index])) continue;
    const elsewhere = expected.findIndex((candidate, other) => other !== index && isDeepStrictEqual(candidate, actual[index]));
    if (elsewhere >= 0) {
      hints.push({
        kind: 'responses-swapped',
        lines: [`calls[${index}] got the answer to calls[${elsewhere}]: responses can come back in any order`, 'match each response to its request by id'],
        general: ['a call got the answer to another call: responses can come back in any order', 'match each response to its request by id'],
      });
      continue;
    }
    const mistake = outcomeMistake(expected[index], actual[index], `calls[${index}]`, 'a call');
    if (mistake) {
      hints.push({ kind: `call-${outcomeOf(expected[index])}`, ...mistake });
      continue;
    }
    // A result the server has not completed (input_required, of the 2026 revision) lost nothing: it is a question, which stage 6 hints at.
    const { resultType } = fieldsOf(actual[index]);
    if (resultType !== undefined && resultType !== 'complete') continue;
    const wanted = contentTypes(expected[index]);
    const missing = [...wanted].filter((type) => !contentTypes(actual[index]).has(type));
    if (missing.length > 0)
      hints.push({
        kind: 'content-dropped',
        lines: [`calls[${index}] lost its ${missing.join(', ')} content`, 'keep every content item of a result, whatever its type'],
        general: ['a call lost some of its content', 'keep every content item of a result, whatever its type'],
      });
  }
  return hints;
}

function contentTypes(result: Outcome | undefined): Set<string> {
  const { content } = fieldsOf(result);
  return new Set(Array.isArray(content) ? content.map((item) => String(fieldsOf(item).type)) : []);
}

// ----------------------------------------------------------------------------- random cases

/** A tool as a server lists it: a generated name, description and input schema. */
const tool = fc.record(
  {
    name: builtWhenUsed(() => fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/)),
    description: text,
    inputSchema: fc
      .dictionary(
        builtWhenUsed(() => fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/)),
        fc.constantFrom('string', 'number', 'boolean'),
        {
          minKeys: 0,
          maxKeys: 3,
          noNullPrototype: true,
        },
      )
      .map((properties) => ({
        type: 'object',
        properties: Object.fromEntries(Object.entries(properties).map(([name, type]) => [name, { type }])),
      })),
  },
  { requiredKeys: ['name', 'inputSchema'], noNullPrototype: true },
);

/** The arguments of a call to `schema`'s tool: one generated value per property, of its type. */
function argumentsFor(schema: { properties: Record<string, { type: string }> }): fc.Arbitrary<Record<string, unknown>> {
  const values = Object.entries(schema.properties).map(([name, { type }]) =>
    (type === 'string' ? text : type === 'number' ? fc.integer({ min: -1e6, max: 1e6 }) : fc.boolean()).map((value) => [name, value] as const),
  );
  return fc.tuple(...values).map((entries) => Object.fromEntries(entries));
}

/** A session with a generated server: the handshake, one page of tools, then calls of some of them, each answered. */
const toolsSession = fc.uniqueArray(tool, { minLength: 1, maxLength: 4, selector: (generated) => generated.name }).chain((tools) =>
  fc.tuple(
    fc.constant(tools),
    fc.array(
      fc
        .nat({ max: tools.length - 1 })
        .chain((index) =>
          fc.record(
            { name: fc.constant(tools[index]!.name), arguments: argumentsFor(tools[index]!.inputSchema), reply: text, isError: fc.boolean() },
            { noNullPrototype: true },
          ),
        ),
      { minLength: 1, maxLength: 2 },
    ),
  ),
);

function toolsFiles(seed: number, index: number): GeneratedFiles {
  const [tools, calls] = draw(toolsSession, seed, index);
  const frames: unknown[] = [
    ...handshakeFrames({ protocolVersion: REQUESTED_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'generated', version: String(seed) } }),
    { client: { method: 'tools/list', jsonrpc: '2.0', id: 1 } },
    { server: { result: { tools }, jsonrpc: '2.0', id: 1 } },
  ];
  calls.forEach((call, at) => {
    const id = 2 + at;
    frames.push(
      { client: { method: 'tools/call', params: { name: call.name, arguments: call.arguments }, jsonrpc: '2.0', id } },
      { server: { result: { content: [{ type: 'text', text: call.reply }], ...(call.isError ? { isError: true } : {}) }, jsonrpc: '2.0', id } },
    );
  });
  return {
    inputs: {
      'calls.json': `${JSON.stringify(
        calls.map(({ name, arguments: args }) => ({ name, arguments: args })),
        null,
        2,
      )}\n`,
    },
    fixtures: { 'cassette.yaml': cassetteYaml(frames, seed, index) },
  };
}

export const tools: StageContent = {
  slug: 'tools',
  hints: [toolListRule, callsRule],
  generators: { tools: toolsFiles },
};
