// How fast the CLI starts, bundled (lib/cli.js as `npm run build` leaves it: scripts/bundle-cli.ts)
// against the same harness as tsc alone writes it (some 250 modules, each resolved and compiled at
// start), in the same run, alternating, with a bare `node -e 0` as the unit: `--help` (every command's
// options), `lint` of one cassette, `test --help` (the test command loaded, all a grading needs) and a
// one-case grading (the start, the sandboxed bundle of src/, one program). CPU time (user + system) of
// each process tree, median of the rounds; the first round warms the file cache and is not counted.
// Run: npm run build && node --import tsx bench/start.ts [rounds]
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const repo = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 20);
// beside lib/, at its depth: the harness finds the course's files relative to its own modules (ignored by git; removed at exit)
const unbundled = join(repo, '.bench-unbundled');

rmSync(unbundled, { recursive: true, force: true });
const built = spawnSync(process.execPath, [join(repo, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', unbundled], {
  cwd: repo,
  stdio: 'inherit',
});
if (built.status !== 0) throw new Error('tsc failed');
process.once('exit', () => rmSync(unbundled, { recursive: true, force: true }));

/** node running the CLI whose main is `cli` with `args`, as bin/theinference.js runs it. */
const cliRun = (cli: string, args: string[]) => [
  '--input-type=module',
  '-e',
  `const { main } = await import(${JSON.stringify(pathToFileURL(cli).href)}); process.exitCode = await main(process.argv.slice(1));`,
  '--',
  ...args,
];

const commands: Record<string, string[]> = {
  '--help': ['--help'],
  'lint <cassette>': ['lint', join(repo, 'fixtures/handshake/everything-server/cassette.yaml')],
  'test --help': ['test', '--help'],
  'test, one case': ['test', '--stage', '1', '--case', 'mcp-frame/numbers'],
};
const starts: Record<string, string[]> = { 'node -e 0': ['-e', '0'] };
for (const [name, args] of Object.entries(commands)) {
  starts[`${name}, tsc's lib`] = cliRun(join(unbundled, 'cli.js'), args);
  starts[`${name}, bundled`] = cliRun(join(repo, 'lib', 'cli.js'), args);
}

/** The CPU time of the process and all it waited for, in ms. */
function cpuOf(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `"$0" "$@" >/dev/null 2>&1 || exit 9; times`, process.execPath, ...args], { cwd: repo });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${args.join(' ')} failed`));
      const children = out.trim().split('\n')[1]!; // `times`: the shell's own, then its children's
      const [user, system] = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60 + Number(m[2]));
      resolve((user! + system!) * 1000);
    });
  });
}

const times: Record<string, number[]> = Object.fromEntries(Object.keys(starts).map((name) => [name, []]));
for (let round = 0; round < rounds + 1; round++) {
  for (const [name, args] of Object.entries(starts)) {
    const took = await cpuOf(args);
    if (round > 0) times[name]!.push(took);
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const bare = median(times['node -e 0']!);
console.log(`CLI start, CPU ms, median of ${rounds} rounds (NODE_EXTRA_CA_CERTS ${process.env.NODE_EXTRA_CA_CERTS ? 'set' : 'unset'}):`);
console.log(`  ${'node -e 0'.padEnd(32)} ${bare.toFixed(0).padStart(5)}`);
for (const name of Object.keys(commands)) {
  const before = median(times[`${name}, tsc's lib`]!);
  const after = median(times[`${name}, bundled`]!);
  console.log(
    `  ${name.padEnd(32)} ${after.toFixed(0).padStart(5)} bundled, ${before.toFixed(0).padStart(5)} tsc's lib: ${(after / before).toFixed(2)}  (${(after / bare).toFixed(1)}x node -e 0)`,
  );
}
