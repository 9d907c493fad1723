// What the derive scripts of the HTTP stages share: the everything server's HTTP recording they
// start from, and the writing of one case derived from it (its case folder, its cassette with the
// recording's provenance and a note saying what was edited).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette, saveCassette, type Cassette, type Frame } from '../harness/cassette/index.ts';

export const ROOT = join(import.meta.dirname, '..');
export const SOURCE = 'everything-http-tools';
export const recorded: Cassette = loadCassette(join(ROOT, 'cassettes', `${SOURCE}.yaml`));

/** cases/<folder>/<name>/ with case.md and `inputs`, and fixtures/<folder>/<name>/cassette.yaml of `frames`. */
export function writeHttpCase(folder: string, name: string, about: string, note: string, frames: Frame[], inputs: Record<string, unknown> = {}): void {
  const cassette: Cassette = {
    version: 2,
    transport: 'http',
    provenance: { ...recorded.provenance, note: `derived from cassettes/${SOURCE}.yaml: ${note}` },
    ...(recorded.http && { http: recorded.http }),
    free: ['params.clientInfo', 'params.capabilities'],
    frames: frames.map(({ line: _line, ...frame }) => frame as Frame),
  };
  const caseDir = join(ROOT, 'cases', folder, name);
  const fixtureDir = join(ROOT, 'fixtures', folder, name);
  mkdirSync(caseDir, { recursive: true });
  mkdirSync(fixtureDir, { recursive: true });
  writeFileSync(join(caseDir, 'case.md'), `${about}\n`);
  for (const [file, value] of Object.entries(inputs)) writeFileSync(join(caseDir, file), `${JSON.stringify(value, null, 2)}\n`);
  saveCassette(cassette, join(fixtureDir, 'cassette.yaml'), { overwrite: true });
  console.log(`${folder}/${name}: ${cassette.frames.length} frames`);
}
