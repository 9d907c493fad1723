#!/usr/bin/env node
// Entry point for `npx theinference`: load TypeScript through tsx, then hand argv to the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../harness/cli.ts');
process.exitCode = await main(process.argv.slice(2));
