// What the derive scripts of the HTTP stages share: the everything server's HTTP recording they
// start from, and the writing of one case derived from it (or from another recording: its case
// folder, its cassette with the recording's provenance and a note saying what was edited).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette, saveCassette, type Cassette, type Frame } from '../harness/cassette/index.ts';

export const ROOT = join(import.meta.dirname, '..');
export const SOURCE = 'everything-http-tools';
export const recorded: Cassette = loadCassette(join(ROOT, 'cassettes', `${SOURCE}.yaml`));

/** A recording of cassettes/ by its name (without .yaml), with that name. */
export function recording(name: string): { name: string; cassette: Cassette } {
  return { name, cassette: loadCassette(join(ROOT, 'cassettes', `${name}.yaml`)) };
}

/** cases/<folder>/<name>/ with case.md and `inputs`, and fixtures/<folder>/<name>/cassette.yaml of
 *  `frames`, derived from `source` (the everything server's tools session unless told). */
export function writeHttpCase(
  folder: string,
  name: string,
  about: string,
  note: string,
  frames: Frame[],
  inputs: Record<string, unknown> = {},
  source = { name: SOURCE, cassette: recorded },
): void {
  const cassette: Cassette = {
    version: 2,
    transport: 'http',
    provenance: { ...source.cassette.provenance, note: `derived from cassettes/${source.name}.yaml: ${note}` },
    ...(source.cassette.http && { http: source.cassette.http }),
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
