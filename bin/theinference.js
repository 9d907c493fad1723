#!/usr/bin/env node
// Entry point for `npx theinference`. The harness runs compiled (lib/: in the packed package, or
// made by npm's `prepare` in a clone), so a command starts like node. In a clone, where lib/ is
// missing or older than a source file (someone is editing the harness), it runs from source through
// tsx instead, the same code. Installed as a package, lib/ is what was packed: the files' times are
// the unpacking's, in whatever order it wrote them, and say nothing.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = fileURLToPath(new URL('../harness/', import.meta.url));
const compiled = fileURLToPath(new URL('../lib/cli.js', import.meta.url));

/** lib/ was built after the last change to any file of harness/. */
function compiledIsCurrent() {
  let built;
  try {
    built = statSync(compiled).mtimeMs;
  } catch {
    return false;
  }
  return readdirSync(source, { recursive: true }).every((file) => !file.endsWith('.ts') || statSync(source + file).mtimeMs <= built);
}

/** This grader is a package another project installed (under its node_modules/), not a clone. */
const installed = /[\\/]node_modules[\\/]/.test(fileURLToPath(import.meta.url));

let cli;
if (installed ? existsSync(compiled) : compiledIsCurrent()) cli = await import(compiled);
else {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import('../harness/cli.ts');
}
// `theinference test | head` closes the pipe early: that is the reader's choice, not a crash.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const { main, internalError } = cli;
// A failure outside main's own await (a stream's event handler, a timer) is the grader's too: exit 2, never 1.
const fail = (error) => process.exit(internalError(error));
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
process.exitCode = await main(process.argv.slice(2));
