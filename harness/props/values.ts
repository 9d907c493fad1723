// Values across the oracle's pipe, both ways: a JSON form of anything a function may take or
// return (undefined, NaN, -0, bigints, holes, prototypes, cycles, promises...), so that the
// grader's checks see what they would have seen in-process.
// - JSON primitives (except -0), dense plain arrays and plain objects without a "$" key are
//   themselves; anything else is an object with a "$" tag.
// - encode() runs beside the student's code: bounded in size and depth, and built only from
//   what it took before the student's module loaded. A cycle is a reference to its ancestor.
// - decode() runs in the grader on bytes it cannot trust (JSON.parse's output, which it rebuilds
//   in place): it checks everything and throws DecodeError for anything it did not expect.
// No harness imports: oracle.ts loads this beside the student's module.
import { types } from 'node:util';

/** What one encoded value may cost, in bytes of JSON: far above any generated message. */
export const VALUE_BUDGET_BYTES = 4 * 1024 * 1024;
/** Deeper than this and the value is not examined: the grader's own recursion must stay safe. */
export const MAX_DEPTH = 500;

/** A value too big, too deep or unreadable: replaces the whole value, never a part of it. */
export interface Unexaminable {
  $: 'too-big' | 'too-deep' | 'unreadable';
  /** Only for too-big: the length of the string that was too long. */
  stringLength?: number;
}

// Taken before the student's module loads, which might patch them.
const stringify = JSON.stringify;
const { keys, getPrototypeOf, setPrototypeOf, hasOwn, fromEntries, defineProperty, create, is } = Object;
const isArray = Array.isArray;
const ObjectPrototype = Object.prototype;
const ArrayPrototype = Array.prototype;
const functionSource = Function.prototype.call.bind(Function.prototype.toString) as (fn: unknown) => string;
const dateTime = Function.prototype.call.bind(Date.prototype.getTime) as (date: unknown) => number;
const regexpSource = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(RegExp.prototype, 'source')!.get!) as (re: unknown) => string;
const regexpFlags = Function.prototype.call.bind(Object.getOwnPropertyDescriptor(RegExp.prototype, 'flags')!.get!) as (re: unknown) => string;
const mapEntries = Function.prototype.call.bind(Map.prototype.entries) as (map: unknown) => IterableIterator<[unknown, unknown]>;
const setValues = Function.prototype.call.bind(Set.prototype.values) as (set: unknown) => IterableIterator<unknown>;
const objectTag = Function.prototype.call.bind(Object.prototype.toString) as (value: unknown) => string;
const arrayFrom = Array.from;
const keyFor = Symbol.keyFor;
const isBuffer = Buffer.isBuffer;
const byteLength = Buffer.byteLength;
const ErrorClass = Error;
const unbox: Array<[(value: unknown) => boolean, (value: unknown) => unknown]> = [
  [types.isNumberObject, Function.prototype.call.bind(Number.prototype.valueOf)],
  [types.isStringObject, Function.prototype.call.bind(String.prototype.valueOf)],
  [types.isBooleanObject, Function.prototype.call.bind(Boolean.prototype.valueOf)],
  [types.isBigIntObject, Function.prototype.call.bind(BigInt.prototype.valueOf)],
  [types.isSymbolObject, Function.prototype.call.bind(Symbol.prototype.valueOf)],
];
const WELL_KNOWN_SYMBOLS = new Map<symbol, string>(
  Object.getOwnPropertyNames(Symbol)
    .filter((name) => typeof (Symbol as unknown as Record<string, unknown>)[name] === 'symbol')
    .map((name) => [(Symbol as unknown as Record<string, symbol>)[name]!, name]),
);
const TYPED_ARRAYS: Readonly<Record<string, (values: unknown[]) => unknown>> = Object.fromEntries(
  [
    Buffer,
    Int8Array,
    Uint8Array,
    Uint8ClampedArray,
    Int16Array,
    Uint16Array,
    Int32Array,
    Uint32Array,
    Float32Array,
    Float64Array,
    BigInt64Array,
    BigUint64Array,
  ].map((kind) => [kind.name, (values: unknown[]) => (kind as unknown as { from(items: unknown[]): unknown }).from(values)]),
);

class OverBudget {
  constructor(readonly marker: Unexaminable) {}
}

/** The JSON text of `value`'s encoding; an Unexaminable marker when it is too big, too deep or unreadable. */
export function encode(value: unknown, budget = VALUE_BUDGET_BYTES): string {
  try {
    if (typeof value === 'string' && value.length > budget) return stringify(tooBig(value));
    const plain = typeof value === 'string' || isPlainJson(value, budget);
    const text = stringify(plain ? value : new Encoder(value, budget).value(value, 0));
    return byteLength(text) <= budget ? text : stringify(tooBig(value));
  } catch (error) {
    if (error instanceof OverBudget) return stringify(error.marker);
    // a getter or proxy trap threw, or the value is stranger than this file knows
    return stringify({ $: 'unreadable' } satisfies Unexaminable);
  }
}

function tooBig(root: unknown): Unexaminable {
  return typeof root === 'string' ? { $: 'too-big', stringLength: root.length } : { $: 'too-big' };
}

/** At least the bytes of a value's JSON (a separator, quotes, brackets), so that over budget is over for sure. */
const COST = { value: 2, key: 3, container: 2 };

/** True when `value` is JSON with no "$" key, no -0 and no cycle: its encoding is itself (the common
 *  case, e.g. every generated message, checked without building anything). Throws OverBudget. */
function isPlainJson(root: unknown, budget: number): boolean {
  let cost = 0;
  const path = new Set<object>();
  const plain = (value: unknown, depth: number): boolean => {
    cost += COST.value;
    if (cost > budget) throw new OverBudget(tooBig(root));
    switch (typeof value) {
      case 'string':
        cost += value.length;
        return true;
      case 'boolean':
        return true;
      case 'number':
        return Number.isFinite(value) && !is(value, -0);
      case 'object': {
        if (value === null) return true;
        cost += COST.container;
        if (depth >= MAX_DEPTH || path.has(value)) return false;
        const proto = getPrototypeOf(value);
        const ownKeys = keys(value);
        path.add(value);
        let result = true;
        if (isArray(value)) {
          if (proto !== ArrayPrototype || ownKeys.length !== value.length) result = false;
          for (let index = 0; result && index < value.length; index += 1) result = hasOwn(value, index) && plain(value[index], depth + 1);
        } else {
          if (proto !== ObjectPrototype || hasOwn(value, '$')) result = false;
          const record = value as Record<string, unknown>;
          for (let index = 0; result && index < ownKeys.length; index += 1) {
            const key = ownKeys[index]!;
            cost += key.length + COST.key;
            result = plain(record[key], depth + 1);
          }
        }
        path.delete(value);
        return result;
      }
      default:
        return false;
    }
  };
  return plain(root, 0);
}

class Encoder {
  private cost = 0;
  /** The objects on the path from the root, each with its depth: a repeat is a cycle. */
  private readonly path = new Map<object, number>();

  constructor(
    private readonly root: unknown,
    private readonly budget: number,
  ) {}

  private spend(bytes: number): void {
    this.cost += bytes;
    if (this.cost > this.budget) throw new OverBudget(tooBig(this.root));
  }

  value(value: unknown, depth: number): unknown {
    if (depth > MAX_DEPTH) throw new OverBudget({ $: 'too-deep' });
    this.spend(COST.value);
    switch (typeof value) {
      case 'string':
        this.spend(value.length);
        return value;
      case 'boolean':
        return value;
      case 'number':
        if (Number.isFinite(value) && !is(value, -0)) return value;
        return { $: 'number', v: is(value, -0) ? '-0' : String(value) };
      case 'undefined':
        return { $: 'undefined' };
      case 'bigint': {
        const digits = String(value);
        this.spend(digits.length);
        return { $: 'bigint', v: digits };
      }
      case 'symbol':
        return this.symbol(value);
      case 'function': {
        const source = functionSource(value);
        this.spend(source.length);
        return { $: 'function', source };
      }
      default:
        return value === null ? null : this.object(value as object, depth);
    }
  }

  private symbol(value: symbol): unknown {
    const key = keyFor(value);
    if (key !== undefined) return { $: 'symbol', key };
    const wellKnown = WELL_KNOWN_SYMBOLS.get(value);
    if (wellKnown !== undefined) return { $: 'symbol', wellKnown };
    const description = value.description;
    this.spend(description?.length ?? 0);
    return description === undefined ? { $: 'symbol' } : { $: 'symbol', description };
  }

  private object(value: object, depth: number): unknown {
    const seen = this.path.get(value);
    if (seen !== undefined) return { $: 'cycle', up: depth - seen };
    this.spend(COST.container);
    this.path.set(value, depth);
    try {
      return this.container(value, depth);
    } finally {
      this.path.delete(value);
    }
  }

  private container(value: object, depth: number): unknown {
    const child = (item: unknown) => this.value(item, depth + 1);
    const entries = (record: object) =>
      keys(record).map((key) => {
        this.spend(key.length + COST.key);
        return [key, child((record as Record<string, unknown>)[key])];
      });
    if (types.isPromise(value)) return { $: 'promise' };
    if (value instanceof ErrorClass || types.isNativeError(value)) {
      const error = value as Error;
      return { $: 'error', name: child(error.name), message: child(error.message) };
    }
    if (types.isDate(value)) return { $: 'date', time: child(dateTime(value)) };
    if (types.isRegExp(value)) {
      const source = regexpSource(value);
      this.spend(source.length);
      return { $: 'regexp', source, flags: regexpFlags(value) };
    }
    if (types.isMap(value)) return { $: 'map', entries: arrayFrom(mapEntries(value), ([key, item]) => [child(key), child(item)]) };
    if (types.isSet(value)) return { $: 'set', values: arrayFrom(setValues(value), child) };
    if (types.isTypedArray(value)) {
      const kind = isBuffer(value) ? 'Buffer' : objectTag(value).slice(8, -1);
      return { $: 'bytes', kind, values: arrayFrom(value as unknown as ArrayLike<unknown>, child) };
    }
    if (types.isBoxedPrimitive(value)) {
      const [, unboxed] = unbox.find(([test]) => test(value))!;
      return { $: 'boxed', value: child(unboxed(value)) };
    }
    const proto = getPrototypeOf(value);
    if (isArray(value)) {
      const array = value as unknown[];
      // index keys come first, in order: n keys ending at n - 1 are exactly 0..n-1
      const arrayKeys = keys(array);
      const dense =
        proto === ArrayPrototype && arrayKeys.length === array.length && (array.length === 0 || arrayKeys[array.length - 1] === String(array.length - 1));
      if (dense) return array.map(child);
      return { $: 'array', length: array.length, entries: entries(array), ...this.prototype(proto, ArrayPrototype) };
    }
    if (proto === ObjectPrototype && !hasOwn(value, '$')) return fromEntries(entries(value));
    return { $: 'object', entries: entries(value), ...this.prototype(proto, ObjectPrototype) };
  }

  /** How a prototype other than the usual one is written: null, or another class (its name, for reading). */
  private prototype(proto: object | null, usual: object): { proto?: 'null' | 'other'; className?: string } {
    if (proto === usual) return {};
    if (proto === null) return { proto: 'null' };
    let className: unknown;
    try {
      className = (proto as { constructor?: { name?: unknown } }).constructor?.name;
    } catch {
      className = undefined;
    }
    return typeof className === 'string' ? { proto: 'other', className: className.slice(0, 100) } : { proto: 'other' };
  }
}

/** What a thrown value becomes: an Error's name and message, or the value itself. */
export function encodeThrown(thrown: unknown): string {
  try {
    if (thrown instanceof ErrorClass) {
      return `{"error":{"name":${encode((thrown as Error).name)},"message":${encode((thrown as Error).message)}}}`;
    }
  } catch {
    return '{"unreadable":true}';
  }
  return `{"value":${encode(thrown)}}`;
}

// ---- decoding, in the grader (and in the oracle, for the grader's own arguments) ----

export class DecodeError extends Error {
  override name = 'DecodeError';
}

/** The value an encoding stands for, or an Unexaminable marker; throws DecodeError on anything malformed. */
export function decodeAnswer(encoded: unknown): { value: unknown } | { unexaminable: Unexaminable } {
  if (isRecord(encoded) && (encoded.$ === 'too-big' || encoded.$ === 'too-deep' || encoded.$ === 'unreadable')) {
    const length = encoded.stringLength;
    if (length !== undefined && !(Number.isSafeInteger(length) && (length as number) >= 0)) throw new DecodeError('a too-big marker with a bad length');
    return { unexaminable: { $: encoded.$, ...(length !== undefined && { stringLength: length as number }) } };
  }
  return { value: decode(encoded) };
}

export function decode(encoded: unknown): unknown {
  try {
    return new Decoder().value(encoded, 0);
  } catch (error) {
    if (error instanceof DecodeError) throw error;
    throw new DecodeError(`it could not be rebuilt (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** A thrown value as encodeThrown wrote it: an Error with the same name and message, or the value. */
export function decodeThrown(encoded: unknown): { thrown: unknown } | { unexaminable: Unexaminable } {
  if (!isRecord(encoded)) throw new DecodeError('a throw that is not an object');
  if (encoded.unreadable === true) return { unexaminable: { $: 'unreadable' } };
  if (hasOwn(encoded, 'value')) {
    const part = decodeAnswer(encoded.value);
    return 'unexaminable' in part ? part : { thrown: part.value };
  }
  const error = encoded.error;
  if (!isRecord(error)) throw new DecodeError('a throw that is neither an error nor a value');
  const rebuilt = new Error();
  for (const field of ['name', 'message'] as const) {
    const part = decodeAnswer(error[field]);
    if ('unexaminable' in part) return part;
    defineProperty(rebuilt, field, { value: part.value, writable: true, configurable: true, enumerable: false });
  }
  return { thrown: rebuilt };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !isArray(value);
}

class Decoder {
  /** The containers on the path from the root, for cycles. */
  private readonly path: object[] = [];
  private readonly prototypes = new Map<string, object>();

  /** JSON.parse's arrays and objects are the values themselves: only their tagged parts are replaced. */
  value(encoded: unknown, depth: number): unknown {
    if (typeof encoded !== 'object' || encoded === null) {
      if (typeof encoded === 'string' || typeof encoded === 'number' || typeof encoded === 'boolean' || encoded === null) return encoded;
      throw new DecodeError(`a ${typeof encoded} where a value was expected`);
    }
    if (depth > MAX_DEPTH) throw new DecodeError(`nested more than ${MAX_DEPTH} levels deep`);
    if (isArray(encoded)) {
      return this.fill(encoded, (array) => {
        for (let index = 0; index < array.length; index += 1) {
          const item: unknown = array[index];
          if (typeof item === 'object' && item !== null) array[index] = this.value(item, depth + 1);
        }
      });
    }
    const record = encoded as Record<string, unknown>;
    if (hasOwn(record, '$')) return this.tagged(record, depth);
    if (getPrototypeOf(record) !== ObjectPrototype) throw new DecodeError('an object that JSON.parse did not make');
    return this.fill(record, () => {
      for (const key of keys(record)) {
        const item = record[key];
        if (typeof item !== 'object' || item === null) continue;
        const decoded = this.value(item, depth + 1);
        if (decoded !== item) defineProperty(record, key, { value: decoded, writable: true, enumerable: true, configurable: true });
      }
    });
  }

  private tagged(encoded: Record<string, unknown>, depth: number): unknown {
    const child = (item: unknown) => this.value(item, depth + 1);
    switch (encoded.$) {
      case 'undefined':
        return undefined;
      case 'number': {
        const numbers: Record<string, number> = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
        const text = encoded.v;
        if (typeof text !== 'string' || !hasOwn(numbers, text)) throw new DecodeError('a number tag without a known value');
        return numbers[text];
      }
      case 'bigint':
        if (typeof encoded.v !== 'string' || !/^-?\d{1,100000}$/.test(encoded.v)) throw new DecodeError('a bigint tag without digits');
        return BigInt(encoded.v);
      case 'symbol':
        return decodeSymbol(encoded);
      case 'function': {
        const source = text(encoded.source, 'function source');
        const stand = () => {};
        // fast-check prints a function by its toString: the student's source, as in-process
        defineProperty(stand, 'toString', { value: () => source });
        return stand;
      }
      case 'promise':
        return new Promise(() => {});
      case 'cycle': {
        const up = encoded.up;
        if (!Number.isSafeInteger(up) || (up as number) < 1 || (up as number) > this.path.length) throw new DecodeError('a cycle to no ancestor');
        return this.path[this.path.length - (up as number)];
      }
      case 'error':
        return this.fill(new Error(), (error) => {
          defineProperty(error, 'name', { value: child(encoded.name), writable: true, configurable: true, enumerable: false });
          defineProperty(error, 'message', { value: child(encoded.message), writable: true, configurable: true, enumerable: false });
        });
      case 'date': {
        const time = child(encoded.time);
        if (typeof time !== 'number') throw new DecodeError('a date without a time');
        return new Date(time);
      }
      case 'regexp':
        return new RegExp(text(encoded.source, 'regexp source'), text(encoded.flags, 'regexp flags'));
      case 'map':
        return this.fill(new Map(), (map) =>
          list(encoded.entries, 'map entries').forEach((entry) => {
            const pair = list(entry, 'map entry');
            if (pair.length !== 2) throw new DecodeError('a map entry that is not a pair');
            map.set(child(pair[0]), child(pair[1]));
          }),
        );
      case 'set':
        return this.fill(new Set(), (set) => list(encoded.values, 'set values').forEach((item) => set.add(child(item))));
      case 'bytes': {
        const kind = text(encoded.kind, 'typed array kind');
        if (!hasOwn(TYPED_ARRAYS, kind)) throw new DecodeError(`an unknown typed array ${kind}`);
        return TYPED_ARRAYS[kind]!(list(encoded.values, 'typed array values').map(child));
      }
      case 'boxed': {
        const inner = child(encoded.value);
        if (inner === null || inner === undefined || typeof inner === 'object' || typeof inner === 'function')
          throw new DecodeError('a boxed value that is not a primitive');
        return Object(inner);
      }
      case 'array': {
        const length = encoded.length;
        if (!Number.isSafeInteger(length) || (length as number) < 0 || (length as number) > 2 ** 32 - 1) throw new DecodeError('an array with a bad length');
        const array = this.fill(new Array(length as number), (target) => this.assign(target, list(encoded.entries, 'array entries'), depth));
        return this.withPrototype(array, encoded, ArrayPrototype);
      }
      case 'object': {
        const record = this.fill({}, (target) => this.assign(target, list(encoded.entries, 'object entries'), depth));
        return this.withPrototype(record, encoded, ObjectPrototype);
      }
      default:
        throw new DecodeError(`an unknown tag ${stringify(encoded.$)?.slice(0, 40)}`);
    }
  }

  /** Makes the container first, so that a cycle inside it can point back at it. */
  private fill<T extends object>(container: T, add: (container: T) => void): T {
    this.path.push(container);
    add(container);
    this.path.pop();
    return container;
  }

  /** Own data properties, as JSON.parse makes them: a "__proto__" key is a key, never the prototype. */
  private assign(target: object, entries: unknown[], depth: number): void {
    for (const entry of entries) {
      const pair = isArray(entry) ? entry : undefined;
      if (pair === undefined || pair.length !== 2 || typeof pair[0] !== 'string') throw new DecodeError('an entry that is not a [key, value] pair');
      if (isArray(target) && pair[0] === 'length') throw new DecodeError('an array entry named length');
      defineProperty(target, pair[0], { value: this.value(pair[1], depth + 1), writable: true, enumerable: true, configurable: true });
    }
  }

  private withPrototype<T extends object>(value: T, encoded: Record<string, unknown>, usual: object): T {
    if (encoded.proto === undefined) return value;
    if (encoded.proto === 'null') return setPrototypeOf(value, null);
    if (encoded.proto !== 'other') throw new DecodeError('an unknown prototype');
    const className = encoded.className === undefined ? '' : text(encoded.className, 'class name');
    const cacheKey = `${usual === ArrayPrototype ? 'array' : 'object'}:${className}`;
    let proto = this.prototypes.get(cacheKey);
    if (proto === undefined) {
      // a stand-in class: not the usual prototype, as the student's was not, so deep equality says no as it would have
      proto = create(usual) as object;
      this.prototypes.set(cacheKey, proto);
    }
    return setPrototypeOf(value, proto);
  }
}

function decodeSymbol(encoded: Record<string, unknown>): symbol {
  if (encoded.key !== undefined) return Symbol.for(text(encoded.key, 'symbol key'));
  if (encoded.wellKnown !== undefined) {
    const name = text(encoded.wellKnown, 'symbol name');
    const symbol = (Symbol as unknown as Record<string, unknown>)[name];
    if (typeof symbol !== 'symbol') throw new DecodeError(`no well-known symbol ${name.slice(0, 40)}`);
    return symbol;
  }
  return encoded.description === undefined ? Symbol() : Symbol(text(encoded.description, 'symbol description'));
}

function text(value: unknown, what: string): string {
  if (typeof value !== 'string') throw new DecodeError(`a ${what} that is not a string`);
  return value;
}

function list(value: unknown, what: string): unknown[] {
  if (!isArray(value)) throw new DecodeError(`${what} that are not a list`);
  return value;
}
