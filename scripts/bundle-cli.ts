// The second step of `npm run build`: what the CLI process loads (lib/cli.js, tsc's, and every module
// and package it imports) bundled into lib/cli.js and chunks beside it (lib/cli-chunk-*.js: what is
// imported lazily, a command's own code above all, is loaded only when it runs). A command then starts
// from a few files instead of hundreds of modules, the harness's and its packages', resolved and
// compiled one by one (bench/start.ts). The rest of lib/ stays as tsc wrote it:
// the harness's scripts that run in processes of their own (the oracle, the bundler, the case server)
// are started from there by path, and read their own folder.
// A module that finds a file by its own location (import.meta.url, .dirname, .filename) still finds it
// from where tsc wrote it: each of those is rewritten as that location, relative to the bundle's file,
// which is in lib/ itself as every chunk is. The rewrite is of the text: the harness writes import.meta
// in code and comments only, never in a string it makes code of. No package bundled uses import.meta.
// Run: node --import tsx scripts/bundle-cli.ts (after tsc -p tsconfig.build.json)
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build, type Plugin } from 'esbuild';

const LIB = join(import.meta.dirname, '..', 'lib');
const CHUNK = 'cli-chunk-';

/** import.meta.url, .dirname and .filename of a module in lib/, as its own location seen from lib/. */
const ownLocation: Plugin = {
  name: 'own-location',
  setup(builder) {
    builder.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(`${LIB}/`)) return undefined;
      const text = readFileSync(args.path, 'utf8');
      const at = JSON.stringify(relative(LIB, args.path));
      const url = `new URL(${at}, import.meta.url)`;
      return {
        loader: 'js',
        contents: text
          .replaceAll('import.meta.url', `${url}.href`)
          .replaceAll('import.meta.dirname', `__ownDirname(__ownPath(${url}))`)
          .replaceAll('import.meta.filename', `__ownPath(${url})`),
      };
    });
  },
};

for (const file of readdirSync(LIB)) if (file.startsWith(CHUNK)) rmSync(join(LIB, file));

const result = await build({
  entryPoints: [join(LIB, 'cli.js')],
  outdir: LIB,
  allowOverwrite: true,
  chunkNames: `${CHUNK}[hash]`,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // esbuild starts its own binary, found beside its package
  external: ['esbuild'],
  plugins: [ownLocation],
  banner: {
    js: [
      // packages written as CommonJS require Node's modules
      "import { createRequire as __ownRequire } from 'node:module';",
      "import { fileURLToPath as __ownPath } from 'node:url';",
      "import { dirname as __ownDirname } from 'node:path';",
      'const require = __ownRequire(import.meta.url);',
    ].join(' '),
  },
  logLevel: 'warning',
  metafile: true,
});

const outputs = Object.keys(result.metafile.outputs);
const inputs = Object.keys(result.metafile.inputs);
console.log(`bundle-cli: lib/cli.js and ${outputs.length - 1} chunks from ${inputs.length} modules`);
