// Small composable validators for JSON read back from a file: each one either returns the value, typed,
// or throws a SchemaError naming the field path (`stages[0].checks[3].status`) and what was wrong.
// A validator's type is inferred from it, so a schema can be held against the interface it describes.
import type { Json, JsonObject } from '../cassette/index.ts';

export class SchemaError extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(`${path === '' ? 'the report' : path}: ${problem}`);
  }
}

export type Validator<T> = (value: unknown, path: string) => T;
export type Infer<C> = C extends Validator<infer T> ? T : never;

/** What a value is, in a few words: `"passed"`, `3`, `null`, `an array`, `an object`. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

function fail(path: string, expected: string, value: unknown): never {
  throw new SchemaError(path, `expected ${expected}, got ${describe(value)}`);
}

export function string(options: { max?: number } = {}): Validator<string> {
  return (value, path) => {
    if (typeof value !== 'string') fail(path, 'a string', value);
    if (options.max !== undefined && value.length > options.max)
      throw new SchemaError(path, `${value.length} characters, more than the ${options.max} a report keeps`);
    return value;
  };
}

export const boolean: Validator<boolean> = (value, path) => (typeof value === 'boolean' ? value : fail(path, 'true or false', value));

/** A whole number in [min, max]. */
export function integer(min = 0, max = Number.MAX_SAFE_INTEGER): Validator<number> {
  return (value, path) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) fail(path, `a whole number from ${min} to ${max}`, value);
    return value;
  };
}

/** A finite number in [min, max]. */
export function number(min = -Infinity, max = Infinity): Validator<number> {
  return (value, path) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
      fail(path, `a number${min === -Infinity ? '' : ` from ${min}`}${max === Infinity ? '' : ` up to ${max}`}`, value);
    return value;
  };
}

export function oneOf<const T extends readonly (string | number)[]>(...values: T): Validator<T[number]> {
  return (value, path) => ((values as readonly unknown[]).includes(value) ? (value as T[number]) : fail(path, `one of ${values.join(', ')}`, value));
}

export function nullable<T>(check: Validator<T>): Validator<T | null> {
  return (value, path) => (value === null ? null : check(value, path));
}

export function array<T>(item: Validator<T>, options: { min?: number } = {}): Validator<T[]> {
  return (value, path) => {
    if (!Array.isArray(value)) fail(path, 'an array', value);
    if (options.min !== undefined && value.length < options.min)
      throw new SchemaError(path, `expected at least ${options.min} item${options.min === 1 ? '' : 's'}, got ${value.length}`);
    value.forEach((element, index) => item(element, `${path}[${index}]`));
    return value as T[];
  };
}

/** Any JSON value (what a program or a server sent). */
export const json: Validator<Json> = (value, path) => {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : fail(path, 'a JSON value', value);
  if (Array.isArray(value)) return value.map((item, index) => json(item, `${path}[${index}]`));
  if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) json(item, path === '' ? key : `${path}.${key}`);
    return value as Json;
  }
  return fail(path, 'a JSON value', value);
};

/** A JSON object (a whole message). */
export const jsonObject: Validator<JsonObject> = (value, path) =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (json(value, path) as JsonObject) : fail(path, 'a JSON object', value);

const OPTIONAL: unique symbol = Symbol('optional');
type Optional<T> = Validator<T> & { [OPTIONAL]: true };

/** A field that may be left out of its object (present, it must pass `check`). */
export function optional<T>(check: Validator<T>): Optional<T> {
  return Object.assign((value: unknown, path: string) => check(value, path), { [OPTIONAL]: true as const });
}

type Shape = Record<string, Validator<unknown>>;
type OptionalKeys<S extends Shape> = { [K in keyof S]: S[K] extends Optional<unknown> ? K : never }[keyof S];
type ObjectOf<S extends Shape> = { [K in Exclude<keyof S, OptionalKeys<S>>]: Infer<S[K]> } & { [K in OptionalKeys<S>]?: Infer<S[K]> };

/** An object with exactly these fields: a missing one (unless optional) or one it does not know is refused. */
export function object<S extends Shape>(shape: S): Validator<ObjectOf<S>> {
  return (value, path) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, 'an object', value);
    const at = (key: string) => (path === '' ? key : `${path}.${key}`);
    for (const [key, check] of Object.entries(shape)) {
      if (!Object.hasOwn(value, key)) {
        if (OPTIONAL in check) continue;
        throw new SchemaError(at(key), 'missing');
      }
      check((value as Record<string, unknown>)[key], at(key));
    }
    for (const key of Object.keys(value)) if (!Object.hasOwn(shape, key)) throw new SchemaError(at(key), 'a field a version 1 report does not have');
    return value as ObjectOf<S>;
  };
}

/** `check`, then a rule across its fields; `rule` returns the problem, or undefined. */
export function refine<T>(check: Validator<T>, rule: (value: T) => { path?: string; problem: string } | undefined): Validator<T> {
  return (value, path) => {
    const checked = check(value, path);
    const broken = rule(checked);
    if (broken) throw new SchemaError(broken.path === undefined ? path : path === '' ? broken.path : `${path}.${broken.path}`, broken.problem);
    return checked;
  };
}

/** True when A and B are each assignable to the other: a schema and the interface it checks agree. */
export type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
