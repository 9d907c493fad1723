// The oracle's value encoding: whatever a student's function returns comes back in the grader
// as the same value for the checks (deep equality, typeof, describeType, how fast-check prints
// it); anything too big, too deep or unreadable becomes a marker; and decoding refuses anything
// malformed with a DecodeError, never another exception.
import deepEqual from 'deep-equal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonRpcMessage } from '../../harness/props/arbitraries.ts';
import { equalsJson } from '../../harness/props/equality.ts';
import { decode, decodeAnswer, decodeThrown, DecodeError, encode, encodeThrown, MAX_DEPTH, VALUE_BUDGET_BYTES } from '../../harness/props/values.ts';

/** Through the wire and back, as the grader sees an answer. */
function roundTrip(value: unknown): unknown {
  const answer = decodeAnswer(JSON.parse(encode(value)));
  if (!('value' in answer)) throw new Error(`not examinable: ${JSON.stringify(answer)}`);
  return answer.value;
}

class Frame {
  text = 'x';
}

function cyclic(): unknown {
  const node: Record<string, unknown> = { jsonrpc: '2.0', nested: [1, { deeper: true }] };
  node.self = node;
  (node.nested as unknown[]).push(node);
  return node;
}

const EXOTIC: Record<string, () => unknown> = {
  'a string with a lone surrogate': () => 'a\ud800b\udc00',
  undefined: () => undefined,
  null: () => null,
  NaN: () => NaN,
  '-0': () => -0,
  Infinity: () => -Infinity,
  bigint: () => -12345678901234567890n,
  symbol: () => Symbol('frame'),
  'registered symbol': () => Symbol.for('frame'),
  'well-known symbol': () => Symbol.iterator,
  function: () =>
    function frame(msg: object) {
      return String(msg);
    },
  'arrow function': () => (x: number) => x + 1,
  promise: () => Promise.resolve('{}\n'),
  // biome-ignore lint/suspicious/noSparseArray: the hole is the value under test
  'array with holes': () => [1, , 3],
  'sparse array of 100': () => Object.assign(new Array(100), { 7: 'x' }),
  'array with an extra key': () => Object.assign([1, 2], { extra: 'x' }),
  'object with a null prototype': () => Object.assign(Object.create(null), { a: 1, __proto__x: 2 }),
  'class instance': () => new Frame(),
  'object with a "$" key': () => ({ $: 'number', v: 'NaN' }),
  'object with an own "__proto__" key': () => JSON.parse('{"__proto__":{"a":1},"b":[-0]}'),
  'cyclic object': cyclic,
  'shared but not cyclic': () => {
    const shared = { a: 1 };
    return [shared, shared];
  },
  date: () => new Date(0),
  'invalid date': () => new Date(NaN),
  regexp: () => /a+\//gi,
  map: () =>
    new Map<unknown, unknown>([
      ['a', 1],
      [{ k: 1 }, [undefined]],
    ]),
  set: () => new Set([1, 'two', NaN]),
  error: () => new TypeError('as a value'),
  buffer: () => Buffer.from('{}\n'),
  'typed array': () => new Float64Array([1.5, -0, NaN]),
  'bigint typed array': () => new BigInt64Array([1n, -2n]),
  'boxed string': () => new String('x'),
  'boxed number': () => new Number(3),
  'a generated message': () => fc.sample(jsonRpcMessage, { seed: 3, numRuns: 1 })[0],
};

describe('encode then decode', () => {
  for (const [name, make] of Object.entries(EXOTIC)) {
    test(`${name}: the same to the checks`, () => {
      const original = make();
      const copy = roundTrip(original);
      expect(typeof copy).toBe(typeof original);
      expect(fc.stringify(copy)).toBe(fc.stringify(original));
      expect(copy instanceof Promise).toBe(original instanceof Promise);
      expect(Array.isArray(copy)).toBe(Array.isArray(original));
      expect(copy === null).toBe(original === null);
      if (typeof original === 'object' && original !== null) {
        expect(Object.getPrototypeOf(copy) === null).toBe(Object.getPrototypeOf(original) === null);
        expect(Object.getPrototypeOf(copy) === Object.prototype).toBe(Object.getPrototypeOf(original) === Object.prototype);
      }
      // equal to itself as it was, and to a generated message exactly when the original was
      const message = fc.sample(jsonRpcMessage, { seed: 3, numRuns: 1 })[0];
      expect(equalsJson(copy, message)).toBe(equalsJson(original, message));
      // as deep-equal to the original as another copy of it would be; but a class of the student's
      // cannot cross (its stand-in differs from it, as it differed from anything a check compares it to)
      if (!(original instanceof Frame) && !(original instanceof Error)) {
        expect(deepEqual(copy, original, { strict: true }), name).toBe(deepEqual(make(), original, { strict: true }));
      }
    });
  }

  test('generated messages are their own encoding, and come back deep-equal', () => {
    for (const message of fc.sample(jsonRpcMessage, { seed: 11, numRuns: 300 })) {
      expect(encode(message)).toBe(JSON.stringify(message));
      expect(equalsJson(roundTrip(message), message)).toBe(true);
    }
  });

  test('a cycle comes back as a cycle to the same ancestor', () => {
    const copy = roundTrip(cyclic()) as Record<string, unknown>;
    expect(copy.self).toBe(copy);
    expect((copy.nested as unknown[])[2]).toBe(copy);
  });

  test('an own "__proto__" key stays a key and never becomes the prototype', () => {
    const copy = roundTrip(JSON.parse('{"__proto__":{"polluted":true}}')) as object;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test('thrown values: an Error keeps its name and message, anything else is the value', () => {
    const rebuilt = (thrown: unknown) => {
      const decoded = decodeThrown(JSON.parse(encodeThrown(thrown)));
      if (!('thrown' in decoded)) throw new Error('not examinable');
      return decoded.thrown;
    };
    class CustomError extends Error {
      override name = 'CustomError';
    }
    const error = rebuilt(new CustomError('bad frame')) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(`${error.name}: ${error.message}`).toBe('CustomError: bad frame');
    expect(rebuilt(new RangeError('Maximum call stack size exceeded'))).toMatchObject({ name: 'RangeError', message: 'Maximum call stack size exceeded' });
    expect(rebuilt('oops')).toBe('oops');
    expect(rebuilt(undefined)).toBeUndefined();
    expect(rebuilt({ code: 42 })).toStrictEqual({ code: 42 });
    const unreadable = new Proxy(new Error('x'), {
      get() {
        throw new Error('no reading me');
      },
    });
    expect(decodeThrown(JSON.parse(encodeThrown(unreadable)))).toStrictEqual({ unexaminable: { $: 'unreadable' } });
  });
});

describe('bounds', () => {
  test('a string past the budget is a marker with its length, not the string', () => {
    const huge = 'x'.repeat(VALUE_BUDGET_BYTES + 1);
    expect(JSON.parse(encode(huge))).toStrictEqual({ $: 'too-big', stringLength: huge.length });
    // non-ASCII costs its UTF-8 bytes
    const wide = '日'.repeat(Math.ceil(VALUE_BUDGET_BYTES / 3) + 1);
    expect(JSON.parse(encode(wide))).toStrictEqual({ $: 'too-big', stringLength: wide.length });
  });

  test('a string within the budget comes back whole', () => {
    const big = 'x'.repeat(1_000_000) + '\n';
    expect(roundTrip(big)).toBe(big);
  });

  test('a value too big, too deep, or exponentially shared is a marker, quickly', { timeout: 30_000 }, () => {
    expect(JSON.parse(encode(Array.from({ length: 1_000_000 }, (_, index) => index)))).toStrictEqual({ $: 'too-big' });
    let deep: unknown = [];
    for (let level = 0; level < MAX_DEPTH + 10; level += 1) deep = [deep];
    expect(JSON.parse(encode(deep))).toStrictEqual({ $: 'too-deep' });
    let shared: unknown[] = [];
    for (let level = 0; level < 60; level += 1) shared = [shared, shared];
    // 2^60 paths: without the budget this would not end; the test's timeout is the bound.
    expect(JSON.parse(encode(shared))).toStrictEqual({ $: 'too-big' });
  });

  test('a getter or proxy that throws makes the value unreadable, never an exception', () => {
    const getter = Object.defineProperty({}, 'x', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });
    expect(JSON.parse(encode(getter))).toStrictEqual({ $: 'unreadable' });
    const proxy = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('no');
        },
      },
    ); // prettier-ignore
    expect(JSON.parse(encode(proxy))).toStrictEqual({ $: 'unreadable' });
  });
});

describe('decode refuses what an encoder never writes', () => {
  const bad: Record<string, unknown> = {
    'an unknown tag': { $: 'outcome', passed: true },
    'a cycle to no ancestor': { $: 'cycle', up: 1 },
    'a cycle too far up': [{ $: 'cycle', up: 3 }],
    'a number tag for no number': { $: 'number', v: '42' },
    'a bigint with letters': { $: 'bigint', v: '12abc' },
    'an array entry named length': { $: 'array', length: 2, entries: [['length', 1e9]] },
    'an array with a bad length': { $: 'array', length: -1, entries: [] },
    'entries that are not pairs': { $: 'object', entries: [['a']] },
    'an unknown prototype': { $: 'object', entries: [], proto: 'Array' },
    'an unknown typed array': { $: 'bytes', kind: 'SharedArrayBuffer', values: [] },
    'a bigint typed array of numbers': { $: 'bytes', kind: 'BigInt64Array', values: [1.5] },
    'an invalid regexp': { $: 'regexp', source: '(', flags: '' },
    'a marker inside a value': [{ $: 'too-big' }],
    'a boxed object': { $: 'boxed', value: [] },
    'a date without a time': { $: 'date', time: 'now' },
  };
  for (const [name, encoded] of Object.entries(bad)) {
    test(name, () => {
      expect(() => decode(structuredClone(encoded))).toThrow(DecodeError);
    });
  }

  test('nesting past the limit', () => {
    let deep: unknown = 1;
    for (let level = 0; level < MAX_DEPTH + 5; level += 1) deep = [deep];
    expect(() => decode(deep)).toThrow(DecodeError);
    let deepTags: unknown = 1;
    for (let level = 0; level < 100_000; level += 1) deepTags = { $: 'set', values: [deepTags] };
    expect(() => decode(deepTags)).toThrow(DecodeError);
  });

  test('a throw that is neither an error nor a value', () => {
    expect(() => decodeThrown(5)).toThrow(DecodeError);
    expect(() => decodeThrown({ error: 'x' })).toThrow(DecodeError);
  });
});
