// Generated cases: the same seed gives the same files, another seed other files, and a generated
// cassette is one the player accepts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/index.ts';
import { generatorFor, STAGES } from '../../harness/stages/index.ts';
import { cleanUp, folder } from './helpers.ts';

afterAll(cleanUp);

describe('generators', () => {
  it('exist for the commands whose inputs can be generated', () => {
    expect(STAGES.flatMap((stage) => Object.keys(stage.generators))).toEqual(['mcp-frame', 'mcp-config', 'handshake', 'tools']);
  });

  for (const [command, generate] of STAGES.flatMap((stage) => Object.entries(stage.generators))) {
    it(`${command}: the same seed and index give the same files; other seeds, other files`, () => {
      expect(generate(77, 1)).toEqual(generate(77, 1));
      const others = new Set([1, 2, 3, 4, 5].map((seed) => JSON.stringify(generate(seed, 0))));
      expect(others.size).toBeGreaterThan(3);
    });
  }

  it('tools: the cassette loads, names the tools it lists and answers every call in calls.json', () => {
    const dir = folder({});
    for (let index = 0; index < 5; index++) {
      const files = generatorFor('tools')!(index * 31, index);
      const path = join(dir, `cassette-${index}.yaml`);
      writeFileSync(path, files.fixtures!['cassette.yaml']!);
      const cassette = loadCassette(path);
      const calls = JSON.parse(files.inputs['calls.json']!) as { name: string }[];
      const text = JSON.stringify(cassette.frames);
      for (const call of calls) expect(text).toContain(JSON.stringify(call.name));
      expect(cassette.frames.length).toBe(5 + 2 * calls.length);
    }
  });

  it('handshake: the cassette loads and offers, across seeds, more than one version the client supports', () => {
    const dir = folder({});
    const offered = new Set<unknown>();
    for (let index = 0; index < 12; index++) {
      const path = join(dir, `handshake-${index}.yaml`);
      writeFileSync(path, generatorFor('handshake')!(index * 17, index).fixtures!['cassette.yaml']!);
      const frames = loadCassette(path).frames;
      const messages = frames.flatMap((frame): Record<string, unknown>[] =>
        frame.from === 'client' || frame.from === 'server' ? [{ from: frame.from, ...frame.message }] : [],
      );
      expect(messages.filter((message) => message.from === 'client').map((message) => message.method)).toEqual(['initialize', 'notifications/initialized']);
      const result = messages.find((message) => message.from === 'server' && 'result' in message)?.result as { protocolVersion?: string } | undefined;
      offered.add(result?.protocolVersion);
    }
    expect(offered.size).toBeGreaterThan(1);
  });
});
