// What the stages' case generators share: drawing a value for a run's (seed, index), the words
// and texts generated files are made of, and, for the stages played from a cassette (handshake,
// tools), a generated session's handshake and its cassette.
import fc from 'fast-check';
import { stringify } from 'yaml';
import { builtWhenUsed } from '../props/arbitraries.ts';
import { REQUESTED_VERSION } from '../protocol.ts';

/** A value drawn from `arbitrary`, fixed by (seed, index). */
export function draw<T>(arbitrary: fc.Arbitrary<T>, seed: number, index: number): T {
  const [value] = fc.sample(arbitrary, { seed: (seed + index * 7919) | 0, numRuns: 1 });
  return value!;
}

/** A name as a server or a config would have it. */
export const word = builtWhenUsed(() => fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/));
/** A short text of any graphemes. */
export const text = builtWhenUsed(() => fc.string({ unit: 'grapheme', maxLength: 12 }));

/** The handshake's frames: initialize, what the server sends before its result, the result, initialized. */
export function handshakeFrames(result: Record<string, unknown>, before: unknown[] = []): unknown[] {
  return [
    {
      client: {
        method: 'initialize',
        params: { protocolVersion: REQUESTED_VERSION, capabilities: {}, clientInfo: { name: 'any', version: '0' } },
        jsonrpc: '2.0',
        id: 0,
      },
    },
    ...before,
    { server: { result, jsonrpc: '2.0', id: 0 } },
    { client: { method: 'notifications/initialized', jsonrpc: '2.0' } },
  ];
}

/** A generated session's cassette; the client's identity and capabilities are its own to choose. */
export function cassetteYaml(frames: unknown[], seed: number, index: number): string {
  return stringify({
    version: 1,
    transport: 'stdio',
    provenance: { command: ['generated'], recorded: '2026-01-01', recorder: 'theinference ci', note: `generated from seed ${seed}, case ${index + 1}` },
    free: ['params.clientInfo', 'params.capabilities'],
    frames,
  });
}
