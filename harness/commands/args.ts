// Reading a command line, the one way every command does: options parsed strictly (a mistake is a
// UsageError: one line, exit 2), numbers checked, and the few facts about the terminal and the
// file system that several commands need before they start. Light: `replay` loads it too.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InputError, UsageError } from '../errors.ts';
import { MAX_SEED, WALL_FACTOR } from '../defaults.ts';

/** The one way every command reads its options: strictly, an unknown or malformed option a
 *  UsageError (one line, exit 2); positionals only where the command takes them. */
export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, { positionals = false } = {}) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: positionals });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Colours on a terminal only, and never with NO_COLOR set (no-color.org). */
export function useColor(disabled: boolean | undefined): boolean {
  return !disabled && process.stdout.isTTY === true && !process.env.NO_COLOR;
}

export function randomSeed(): number {
  return Math.floor(Math.random() * 2 ** 31);
}

/** The longest delay a Node timer holds; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
/** --timeout's limit: the wall-time backstop (WALL_FACTOR times the limit) must fit in a timer too. */
export const MAX_TIMEOUT_SECONDS = Math.floor(MAX_TIMER_MS / WALL_FACTOR / 1000);
/** More property runs than anyone waits for; past it a typo, not a wish. */
export const MAX_RUNS = 1_000_000;

export function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, not "${text}"`);
  return Number(text);
}

/** A whole number in [min, max], written in decimal digits. */
export function wholeNumber(flag: string, text: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not "${text}"`);
  return Number(text);
}

/** --seed: an unsigned 32-bit number, as the report keeps it and replays it. */
export function seed(flag: string, text: string): number {
  return wholeNumber(flag, text, 0, MAX_SEED);
}

/** --runs: property runs, at least one. */
export function runs(flag: string, text: string): number {
  return wholeNumber(flag, text, 1, MAX_RUNS);
}

/** A positive number of seconds, in decimal, small enough for a timer (see MAX_TIMEOUT_SECONDS). */
export function seconds(flag: string, text: string, max = MAX_TIMEOUT_SECONDS): number {
  const value = /^(\d+\.?\d*|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!(value > 0 && value <= max)) throw new UsageError(`${flag} takes a positive number of seconds up to ${max}, not "${text}"`);
  return value;
}

export function positive(flag: string, text: string, unit = 'seconds'): number {
  const value = Number(text);
  if (!(value > 0) || !Number.isFinite(value)) throw new UsageError(`${flag} takes a positive number of ${unit}, not "${text}"`);
  return value;
}

export function count(flag: string, text: string, max = Number.MAX_SAFE_INTEGER): number {
  if (!/^\d+$/.test(text) || Number(text) > max) throw new UsageError(`${flag} takes a whole number from 0 to ${max}, not "${text}"`);
  return Number(text);
}

/** A report path is checked before grading: finding out after minutes of grading is too late. */
export function checkWritable(flag: string, path: string): void {
  const folder = dirname(resolve(path));
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory())
    throw new InputError(`${flag} ${path}: cannot write it, the folder ${folder} does not exist`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new InputError(`${flag} ${path}: cannot write it, it is a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new InputError(`${flag} ${path}: cannot write it, the folder ${folder} is not writable`);
  }
}
