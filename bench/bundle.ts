// The bundles the grader makes of the reference on every grading (program.ts with src/, and
// src/mcp.ts alone for the property oracle), timed four ways, alternating in the same run:
// - sandboxed, fresh: today's bundler, a process of its own in its own sandbox (a one-shot `test`, CI);
// - sandboxed, started ahead: the same process booted while the student reads, released on save (watch);
// - before: the bundler as issue 45 found it (commit BEFORE, extracted with git archive): esbuild in the
//   grader's own process, confined by its plugin alone;
// - esbuild alone: in the grader's process with no plugin and packages external, the obvious alternative.
// Run: node --import tsx bench/bundle.ts [rounds]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundle, BundleRefusal, prestartBundles, type Bundled } from '../harness/run/bundle.ts';
import { sandboxAvailability } from '../harness/run/sandbox.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 20);
/** The last commit before the bundler moved into a sandbox of its own. */
const BEFORE = 'e2c81a9';
const out = mkdtempSync(join(tmpdir(), 'bundle-bench-'));
process.once('exit', () => rmSync(out, { recursive: true, force: true }));
const entries = [
  { entry: join(root, 'src', 'mcp.ts'), outfile: join(out, 'module.mjs') },
  { entry: join(root, 'program.ts'), outfile: join(out, 'program.mjs') },
];
const options = { runRoot: root, folder: join(root, 'src'), packages: [], sandbox: true };

function check(made: Bundled[]): void {
  const refused = made.find((one) => one instanceof BundleRefusal);
  if (refused) throw new Error(`the reference did not bundle: ${refused.message}`);
}

async function fresh(): Promise<number> {
  const started = performance.now();
  check(await bundle(entries, options));
  return performance.now() - started;
}

async function ahead(): Promise<number> {
  const started = prestartBundles(entries, options);
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the student reads
  const go = performance.now();
  check(await started.release());
  return performance.now() - go;
}

/** The old bundler's module, from its own tree. */
type OldBundle = (entry: string, outfile: string, options: { runRoot: string; folder: string }) => Promise<unknown>;
let oldBundle: OldBundle | undefined;
try {
  const tree = join(out, 'before');
  execFileSync('sh', ['-c', `mkdir -p "${tree}" && git -C "${root}" archive ${BEFORE} harness | tar -x -C "${tree}"`], { stdio: 'ignore' });
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
  oldBundle = ((await import(pathToFileURL(join(tree, 'harness', 'run', 'bundle.ts')).href)) as { bundle: OldBundle }).bundle;
} catch {
  console.log(`(commit ${BEFORE} is not in this clone: the bundler as issue 45 found it is left out)`);
}

async function before(): Promise<number> {
  const started = performance.now();
  for (const { entry, outfile } of entries) await oldBundle!(entry, `${outfile}.before.mjs`, { runRoot: root, folder: join(root, 'src') });
  return performance.now() - started;
}

async function alone(): Promise<number> {
  const started = performance.now();
  await Promise.all(
    entries.map(({ entry, outfile }) =>
      build({
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        entryPoints: [entry],
        outfile: `${outfile}.alone.mjs`,
        packages: 'external',
        sourcemap: 'external',
        logLevel: 'silent',
      }),
    ),
  );
  return performance.now() - started;
}

const ways: Record<string, () => Promise<number>> = {
  'sandboxed, fresh': fresh,
  'sandboxed, started ahead': ahead,
  ...(oldBundle && { before }),
  'esbuild alone': alone,
};
for (const run of Object.values(ways)) await run(); // every way warm: esbuild's service started, files cached
const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
for (let round = 0; round < rounds; round += 1) for (const [name, run] of Object.entries(ways)) times[name]!.push(await run());

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const base = median(times['esbuild alone']!);
console.log(
  `the bundles of a grading (program.ts with src/, src/mcp.ts alone), median of ${rounds} alternating rounds, sandbox: ${sandboxAvailability().available ? 'bwrap' : 'none'}:`,
);
for (const [name, values] of Object.entries(times)) {
  console.log(`  ${name.padEnd(26)} ${median(values).toFixed(1).padStart(7)} ms  (${(median(values) / base).toFixed(2)}x esbuild alone)`);
}
