// Randomised cases: for each program command that has a generator, a few cases made from the
// run's seed, so that a solution that hard-codes the public cases' output fails. A generated
// case's input goes into the scratch copy (where the program runs); its expected output is what
// the course's own reference solution prints for it, made before the submission is graded and
// kept outside the scratch copy.
//
// Extension point: GENERATORS is keyed by program command. A stage adds its command's generator
// here; one that plays a server from a cassette returns the cassette among its `fixtures` (as
// `handshake` and `tools` do: generated server identities, capabilities, versions offered and
// notifications; tool names, schemas, arguments and results), and the case gets it as
// its cassette, played by the grader from outside the scratch copy.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { loadCassette } from '../cassette/index.ts';
import { CourseError, type Case, type Course } from '../course.ts';
import { runWithPlayer } from '../grade/case.ts';
import { jsonRpcMessage } from '../props/arbitraries.ts';
import type { Launcher } from '../run/launcher.ts';
import { CORES, inOrder } from '../run/pool.ts';
import { DEFAULT_LIMITS } from '../run/spawn.ts';

export interface GeneratedFiles {
  /** Files of the case folder the program is given (relative names). */
  inputs: Record<string, string>;
  /** Files the grader keeps beside expected.json (a cassette, for the stages that play one). */
  fixtures?: Record<string, string>;
}

/** Makes case number `index` of a run from its seed; the same seed and index give the same files. */
export type CaseGenerator = (seed: number, index: number) => GeneratedFiles;

/** A value drawn from `arbitrary`, fixed by (seed, index). */
function draw<T>(arbitrary: fc.Arbitrary<T>, seed: number, index: number): T {
  const [value] = fc.sample(arbitrary, { seed: (seed + index * 7919) | 0, numRuns: 1 });
  return value!;
}

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const text = fc.string({ unit: 'grapheme', maxLength: 12 });
const stringMap = fc.dictionary(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,9}$/), text, { maxKeys: 3, noNullPrototype: true });

/** One `.mcp.json` entry: stdio or http, `type` written or left to be inferred, defaults sometimes left out. */
const serverEntry = fc.oneof(
  fc.record(
    { type: fc.constant('stdio'), command: fc.oneof(word, fc.constantFrom('npx', 'node', 'uvx', '/usr/bin/env')), args: fc.array(text, { maxLength: 3 }), env: stringMap },
    { requiredKeys: ['command'], noNullPrototype: true },
  ),
  fc.record(
    { type: fc.constant('http'), url: word.map((host) => `https://${host}.example/mcp`), headers: stringMap },
    { requiredKeys: ['url'], noNullPrototype: true },
  ),
);

/** Entries parseConfig must refuse. */
const invalidEntry = fc.oneof(
  fc.record({ command: fc.integer() }, { noNullPrototype: true }),
  fc.record({ url: fc.constant(42) }, { noNullPrototype: true }),
  fc.record({ type: fc.constant('sse'), url: fc.constant('https://x.example/mcp') }, { noNullPrototype: true }),
  fc.constant('not an object'),
  fc.record({ command: word, args: fc.constant([1, 2]) }, { noNullPrototype: true }),
);

const mcpConfig = fc
  .tuple(fc.uniqueArray(fc.tuple(word, serverEntry), { minLength: 1, maxLength: 5, selector: ([name]) => name }), fc.option(fc.tuple(word, invalidEntry), { freq: 4 }))
  .map(([entries, invalid]) => {
    const servers: [string, unknown][] = [...entries];
    if (invalid && !servers.some(([name]) => name === invalid[0])) servers.splice(servers.length >> 1, 0, invalid);
    return { mcpServers: Object.fromEntries(servers) };
  });

/** A tool as a server lists it: a generated name, description and input schema. */
const tool = fc.record(
  {
    name: fc.stringMatching(/^[a-z][a-z0-9_-]{0,15}$/),
    description: text,
    inputSchema: fc.dictionary(fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,8}$/), fc.constantFrom('string', 'number', 'boolean'), { minKeys: 0, maxKeys: 3, noNullPrototype: true }).map((properties) => ({
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
const toolsSession = fc
  .uniqueArray(tool, { minLength: 1, maxLength: 4, selector: (generated) => generated.name })
  .chain((tools) =>
    fc.tuple(
      fc.constant(tools),
      fc.array(
        fc.nat({ max: tools.length - 1 }).chain((index) =>
          fc.record({ name: fc.constant(tools[index]!.name), arguments: argumentsFor(tools[index]!.inputSchema), reply: text, isError: fc.boolean() }, { noNullPrototype: true }),
        ),
        { minLength: 1, maxLength: 2 },
      ),
    ),
  );

const PROTOCOL_VERSION = '2025-11-25';
/** What a client of these stages supports: a server may offer any of them in return. */
const SUPPORTED_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

/** The handshake's frames: initialize, what the server sends before its result, the result, initialized. */
function handshakeFrames(result: Record<string, unknown>, before: unknown[] = []): unknown[] {
  return [
    { client: { method: 'initialize', params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'any', version: '0' } }, jsonrpc: '2.0', id: 0 } },
    ...before,
    { server: { result, jsonrpc: '2.0', id: 0 } },
    { client: { method: 'notifications/initialized', jsonrpc: '2.0' } },
  ];
}

function cassetteYaml(frames: unknown[], seed: number, index: number): string {
  return stringify({
    version: 1,
    transport: 'stdio',
    provenance: { command: ['generated'], recorded: '2026-01-01', recorder: 'theinference ci', note: `generated from seed ${seed}, case ${index + 1}` },
    free: ['params.clientInfo', 'params.capabilities'],
    frames,
  });
}

/** A generated server's handshake: its name, version, capabilities, instructions, the version it
 *  offers (any the client supports), and notifications or log messages sent before its result. */
const handshakeSession = fc.record(
  {
    name: word,
    version: fc.tuple(fc.nat(20), fc.nat(20), fc.nat(99)).map((parts) => parts.join('.')),
    protocolVersion: fc.constantFrom(...SUPPORTED_VERSIONS),
    capabilities: fc.subarray(['tools', 'prompts', 'resources', 'logging', 'completions']).map((names) => Object.fromEntries(names.map((name) => [name, {}]))),
    instructions: fc.option(text, { nil: undefined }),
    before: fc.array(
      fc.oneof(
        fc.constant({ server: { method: 'notifications/tools/list_changed', jsonrpc: '2.0' } }),
        text.map((data) => ({ server: { method: 'notifications/message', params: { level: 'info', data }, jsonrpc: '2.0' } })),
      ),
      { maxLength: 2 },
    ),
  },
  { requiredKeys: ['name', 'version', 'protocolVersion', 'capabilities', 'before'], noNullPrototype: true },
);

function handshakeFiles(seed: number, index: number): GeneratedFiles {
  const { name, version, protocolVersion, capabilities, instructions, before } = draw(handshakeSession, seed, index);
  const result = { protocolVersion, capabilities, serverInfo: { name, version }, ...(instructions === undefined ? {} : { instructions }) };
  return { inputs: { 'case.md': 'A generated server: its handshake.\n' }, fixtures: { 'cassette.yaml': cassetteYaml(handshakeFrames(result, before), seed, index) } };
}

function toolsFiles(seed: number, index: number): GeneratedFiles {
  const [tools, calls] = draw(toolsSession, seed, index);
  const frames: unknown[] = [
    ...handshakeFrames({ protocolVersion: PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: 'generated', version: String(seed) } }),
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
    inputs: { 'calls.json': `${JSON.stringify(calls.map(({ name, arguments: args }) => ({ name, arguments: args })), null, 2)}\n` },
    fixtures: { 'cassette.yaml': cassetteYaml(frames, seed, index) },
  };
}

export const GENERATORS: Record<string, CaseGenerator> = {
  'mcp-frame': (seed, index) => ({
    inputs: { 'messages.json': `${JSON.stringify(draw(fc.array(jsonRpcMessage, { minLength: 2, maxLength: 6 }), seed, index), null, 2)}\n` },
  }),
  'mcp-config': (seed, index) => ({
    inputs: { '.mcp.json': `${JSON.stringify(draw(mcpConfig, seed, index), null, 2)}\n` },
  }),
  handshake: handshakeFiles,
  tools: toolsFiles,
};

/** Where a generated case's input goes in the scratch copy; its name in reports is `random-<command folder>/<n>`. */
function generatedCasePath(folder: string, index: number): string {
  const parts = folder.split('/');
  return join('cases', ...parts.slice(0, -1), `random-${parts.at(-1)}`, String(index + 1));
}

export interface GeneratedCases {
  /** Per stage slug. */
  byStage: Map<string, Case[]>;
}

/**
 * Writes each generated case's inputs under `scratchRoot` and its fixtures under `fixturesRoot`
 * (expected.json is written later, by `expectFromReference`).
 */
export function generateCases(course: Course, seed: number, perCommand: number, scratchRoot: string, fixturesRoot: string): GeneratedCases {
  const byStage = new Map<string, Case[]>();
  for (const stage of course.stages) {
    const seen = new Set<string>();
    const cases: Case[] = [];
    for (const publicCase of stage.cases) {
      const folder = publicCase.casePath.split('/').slice(1, -1).join('/');
      const generate = GENERATORS[publicCase.command];
      if (!generate || seen.has(folder)) continue;
      seen.add(folder);
      for (let index = 0; index < perCommand; index++) {
        const files = generate(seed, index);
        const casePath = generatedCasePath(folder, index);
        const fixtureDir = join(fixturesRoot, casePath);
        writeAll(join(scratchRoot, casePath), files.inputs);
        writeAll(fixtureDir, files.fixtures ?? {});
        const cassette = files.fixtures?.['cassette.yaml'] === undefined ? {} : { cassettePath: join(fixtureDir, 'cassette.yaml') };
        cases.push({ name: String(index + 1), stage: stage.slug, command: publicCase.command, casePath, fixtureDir, expectedPath: join(fixtureDir, 'expected.json'), ...cassette });
      }
    }
    if (cases.length > 0) byStage.set(stage.slug, cases);
  }
  return { byStage };
}

function writeAll(dir: string, files: Record<string, string>): void {
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
}

/** Why the reference solution could not make a generated case's expected output. */
export class ReferenceFailure extends CourseError {}

/**
 * Runs the course's reference solution (the course root's src/mcp.ts, through its launcher) on
 * each generated case and writes what it prints as the case's expected.json.
 */
export async function expectFromReference(cases: Case[], courseRoot: string, inputsRoot: string, start: Launcher, env: NodeJS.ProcessEnv): Promise<void> {
  await inOrder(cases.map((testCase) => async () => {
    // run from the course with the input where it was generated, and the cassette, if any, played as for the student
    const cassette = testCase.cassettePath === undefined ? undefined : loadCassette(testCase.cassettePath, { diskCache: false });
    const here = { ...testCase, casePath: join(inputsRoot, testCase.casePath) };
    const { result, report } = await runWithPlayer(here, { root: courseRoot, launcher: start, env, limits: DEFAULT_LIMITS, color: false }, cassette);
    const protocol = report?.diagnoses[0]?.message;
    if (result.exitCode !== 0 || result.timeLimit || result.flooded || result.outOfMemory || protocol !== undefined) {
      const said = protocol ?? result.stderr.toString('utf8').trim().split('\n').find((line) => /error/i.test(line)) ?? '';
      throw new ReferenceFailure(
        `the reference solution (${join(courseRoot, 'src', 'mcp.ts')}) failed on the generated case ${testCase.casePath}` +
          `${said ? `: ${said}` : ''} (pass --random 0 to grade without generated cases)`,
      );
    }
    writeFileSync(testCase.expectedPath, result.stdout);
  }), CORES);
}
