// Reading what program.ts printed against a stage's contract (harness/stages/<slug>/contract.ts):
// each stage's output.ts puts a reader together from these, checked by the compiler to give the
// contract's type, and its hints read the typed value instead of looking fields up one at a time.
// A value that is not what the contract says is read as nothing, with the place and what was
// expected: program.ts is the course's, so only a changed program.ts or a broken output gets there.

import { bothValues, type Comparison } from '../grade/comparison.ts';
import type { Json, JsonObject } from './contract.ts';

export type { Json, JsonObject };

/** Reads `value` found at `path` (`steps[2].step`) as a T, or throws NotAsContract. */
export type Reader<T> = (value: unknown, path: string) => T;

class NotAsContract extends Error {}

/** The typed value, or the place where the printed value is not what the contract says. */
export type Read<T> = { ok: true; value: T } | { ok: false; problem: string };

/** `value`, the whole output of a command, read with `reader`. */
export function readOutput<T>(reader: Reader<T>, value: unknown): Read<T> {
  try {
    return { ok: true, value: reader(value, '') };
  } catch (error) {
    if (error instanceof NotAsContract) return { ok: false, problem: error.message };
    throw error;
  }
}

function notAsContract(path: string, expected: string): never {
  throw new NotAsContract(`${path === '' ? 'the output' : path} is not what the contract says: expected ${expected}`);
}

export const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of a part the student's code decides (a result, an item of it): none where it is not an object. */
export const fieldsOf = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});

/** Any JSON value: a part the server's data or the student's code decides. */
export const json: Reader<Json> = (value, path) => (value === undefined ? notAsContract(path, 'a JSON value') : (value as Json));

export const jsonObject: Reader<JsonObject> = (value, path) => (isObject(value) ? value : notAsContract(path, 'an object'));

export const string: Reader<string> = (value, path) => (typeof value === 'string' ? value : notAsContract(path, 'a string'));

export const boolean: Reader<boolean> = (value, path) => (typeof value === 'boolean' ? value : notAsContract(path, 'true or false'));

export function literal<T extends string | number | boolean>(want: T): Reader<T> {
  return (value, path) => (value === want ? want : notAsContract(path, JSON.stringify(want)));
}

export function array<T>(item: Reader<T>): Reader<T[]> {
  return (value, path) => (Array.isArray(value) ? value.map((entry, at) => item(entry, `${path}[${at}]`)) : notAsContract(path, 'an array'));
}

/** A field the contract lets program.ts leave out. */
interface Omissible<T> {
  optional: Reader<T>;
}
export function optional<T>(reader: Reader<T>): Omissible<T> {
  return { optional: reader };
}

type ReaderFields = Record<string, Reader<unknown> | Omissible<unknown>>;
type Present<F extends ReaderFields> = { [K in keyof F as F[K] extends Reader<unknown> ? K : never]: F[K] extends Reader<infer T> ? T : never };
type Optionals<F extends ReaderFields> = { [K in keyof F as F[K] extends Omissible<unknown> ? K : never]?: F[K] extends Omissible<infer T> ? T : never };
type ReadShape<F extends ReaderFields> = Present<F> & Optionals<F>;

/** An object with these fields (and no check of others: a field the contract does not name is the hints' to see). */
export function object<F extends ReaderFields>(fields: F): Reader<ReadShape<F>> {
  return (value, path) => {
    if (!isObject(value)) notAsContract(path, `an object with ${Object.keys(fields).join(', ')}`);
    const read: Record<string, unknown> = { ...value };
    for (const [key, reader] of Object.entries(fields)) {
      const at = path === '' ? key : `${path}.${key}`;
      if (typeof reader === 'function') read[key] = reader(value[key], at);
      else if (value[key] !== undefined) read[key] = reader.optional(value[key], at);
    }
    return read as ReadShape<F>;
  };
}

/** The first of `readers` that reads the value; `expected` says what they take together. */
export function oneOf<T extends unknown[]>(expected: string, ...readers: { [K in keyof T]: Reader<T[K]> }): Reader<T[number]> {
  return (value, path) => {
    for (const reader of readers) {
      try {
        return reader(value, path);
      } catch (error) {
        if (!(error instanceof NotAsContract)) throw error;
      }
    }
    return notAsContract(path, expected);
  };
}

export function record<T>(entry: Reader<T>): Reader<Record<string, T>> {
  return (value, path) => {
    if (!isObject(value)) return notAsContract(path, 'an object');
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, entry(item, `${path}[${JSON.stringify(key)}]`)]));
  };
}

/** Both outputs of a comparison read with `reader`, each once whichever rules ask: undefined where either
 *  is not JSON, or not what the contract says. */
export function readBoth<T>(comparison: Comparison, reader: Reader<T>): { expected: T; actual: T } | undefined {
  let known = READ.get(comparison);
  if (known === undefined) READ.set(comparison, (known = new Map()));
  if (!known.has(reader)) {
    const both = bothValues(comparison);
    const expected = both && readOutput(reader, both.expected);
    const actual = both && readOutput(reader, both.actual);
    known.set(reader, expected?.ok && actual?.ok ? { expected: expected.value, actual: actual.value } : undefined);
  }
  return known.get(reader) as { expected: T; actual: T } | undefined;
}

const READ = new WeakMap<Comparison, Map<Reader<unknown>, { expected: unknown; actual: unknown } | undefined>>();
