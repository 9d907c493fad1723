#!/usr/bin/env node
// Entry point for `npx theinference`: load TypeScript through tsx, then hand argv to the CLI.
import { register } from 'tsx/esm/api';

register();
// `theinference test | head` closes the pipe early: that is the reader's choice, not a crash.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
const { main, internalError } = await import('../harness/cli.ts');
// A failure outside main's own await (a stream's event handler, a timer) is the grader's too: exit 2, never 1.
const fail = (error) => process.exit(internalError(error));
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);
process.exitCode = await main(process.argv.slice(2));
