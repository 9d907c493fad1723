// The bundle the grader makes of program.ts and src/ on every save: confined (harness/run/confine.ts: a
// plugin resolves and reads every file) against esbuild resolving and reading on its own (packages
// external), alternating in the same run. Run: node --import tsx bench/bundle.ts [rounds]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundle, BUNDLE_OPTIONS } from '../harness/run/bundle.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 40);
const out = mkdtempSync(join(tmpdir(), 'bundle-bench-'));
const entry = join(root, 'program.ts');

async function confined(): Promise<number> {
  const started = performance.now();
  const made = await bundle(entry, join(out, 'confined.mjs'), { runRoot: root, folder: join(root, 'src') });
  if (!made || !('path' in made)) throw new Error('the reference did not bundle');
  return performance.now() - started;
}

async function unconfined(): Promise<number> {
  const started = performance.now();
  const outfile = join(out, 'plain.mjs');
  const { outputFiles } = await build({
    ...BUNDLE_OPTIONS,
    entryPoints: [entry],
    outfile,
    packages: 'external',
    sourcemap: 'external',
    write: false,
    logLevel: 'silent',
  });
  // what bundle() does with its output too: the file written, the map read
  writeFileSync(outfile, outputFiles.find((file) => file.path === outfile)!.contents);
  JSON.parse(outputFiles.find((file) => file.path === `${outfile}.map`)!.text);
  return performance.now() - started;
}

await confined();
await unconfined(); // both warm: esbuild's service started
const times = { confined: [] as number[], unconfined: [] as number[] };
for (let round = 0; round < rounds; round += 1) {
  times.confined.push(await confined());
  times.unconfined.push(await unconfined());
}
rmSync(out, { recursive: true, force: true });
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
console.log(`bundle of program.ts + src/, median of ${rounds} alternating rounds:`);
console.log(`  confined to src/:     ${median(times.confined).toFixed(1)} ms`);
console.log(`  esbuild's own reads:  ${median(times.unconfined).toFixed(1)} ms`);
console.log(`  ratio: ${(median(times.confined) / median(times.unconfined)).toFixed(2)}x`);
