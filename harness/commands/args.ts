// Reading a command line: options parsed strictly, numbers checked, and the few facts about the
// terminal and the file system that several commands need before they start.
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { InputError, UsageError } from '../errors.ts';

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false });
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

export function integer(flag: string, text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number, not "${text}"`);
  return Number(text);
}

export function positive(flag: string, text: string, unit = 'seconds'): number {
  const value = Number(text);
  if (!(value > 0)) throw new UsageError(`${flag} takes a positive number of ${unit}, not "${text}"`);
  return value;
}

export function count(flag: string, text: string): number {
  if (!/^\d+$/.test(text)) throw new UsageError(`${flag} takes a whole number >= 0, not "${text}"`);
  return Number(text);
}

/** A report path is checked before grading: finding out after minutes of grading is too late. */
export function checkWritable(flag: string, path: string): void {
  const folder = dirname(resolve(path));
  if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) throw new InputError(`${flag} ${path}: cannot write it, the folder ${folder} does not exist`);
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) throw new InputError(`${flag} ${path}: cannot write it, it is a folder`);
  try {
    accessSync(folder, constants.W_OK);
  } catch {
    throw new InputError(`${flag} ${path}: cannot write it, the folder ${folder} is not writable`);
  }
}
