// How fast the CLI starts: `theinference --help`, `theinference lint` on one cassette (the harness
// loaded, a cassette parsed, nothing graded) and the loading of everything `test` grades with (what
// each grading pays before its first case) against a bare `node -e 0`, in the same run,
// alternating; wall time of each start, median of the rounds. Target: --help <= 1.5x node -e 0.
// The harness runs compiled (lib/, made by `npm run build`), not through tsx.
// Run: npm run build && node --import tsx bench/start.ts [rounds]
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 30);
const bin = join(repo, 'bin', 'theinference.js');

const starts: Record<string, string[]> = {
  'node -e 0': ['-e', '0'],
  'theinference --help': [bin, '--help'],
  'theinference lint <cassette>': [bin, 'lint', join(repo, 'fixtures/handshake/everything-server/cassette.yaml')],
  'the test command loaded': ['--input-type=module', '-e', `await import(${JSON.stringify(pathToFileURL(join(repo, 'lib/commands/test.js')).href)})`],
};

const times: Record<string, number[]> = Object.fromEntries(Object.keys(starts).map((name) => [name, []]));
for (let round = 0; round < rounds + 1; round++) {
  for (const [name, args] of Object.entries(starts)) {
    const started = performance.now();
    const run = spawnSync(process.execPath, args, { cwd: repo, stdio: ['ignore', 'ignore', 'pipe'] });
    const took = performance.now() - started;
    if (run.status !== 0) throw new Error(`${name} exited with ${run.status}: ${run.stderr}`);
    if (round > 0) times[name]!.push(took); // the first round warms the file cache
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const bare = median(times['node -e 0']!);
console.log(`CLI start, median of ${rounds} rounds (NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'unset'}):`);
for (const [name, values] of Object.entries(times)) {
  console.log(`  ${name.padEnd(30)} ${median(values).toFixed(1).padStart(6)} ms  ${(median(values) / bare).toFixed(2)}x node -e 0`);
}
