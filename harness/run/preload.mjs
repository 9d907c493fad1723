// What a case's program process loads before the program itself: Node's modules a course program
// imports and, in a program that talks HTTP (THEINFERENCE_FETCH=1), fetch. Then, in that one,
// V8 compiles WebAssembly with its baseline compiler only: fetch reads HTTP with a parser compiled to
// WebAssembly, which V8 would compile a second time, optimized, in the background (about 45 ms of CPU
// for the few replies a case reads). The switch is made here, at run time, not with a flag on the
// command line: any V8 flag there makes Node compile its own modules from source instead of from
// their cache (about 15 ms more per program), and modules loaded after it do too, hence the list.
// Loaded, unused, these change nothing the program can see. Started ahead, the program loads this
// while it waits (warm-start.mjs); otherwise an HTTP case's program starts with `node --import`.
// Plain JavaScript: it runs before anything could compile TypeScript.
import { setFlagsFromString } from 'node:v8';

const BUILTINS = ['node:child_process', 'node:crypto', 'node:events', 'node:net', 'node:os', 'node:path', 'node:readline', 'node:stream', 'node:util'];

await Promise.all(BUILTINS.map((name) => import(name)));
if (process.env.THEINFERENCE_FETCH === '1') {
  new Response('');
  setFlagsFromString('--liftoff-only');
}
