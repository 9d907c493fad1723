// The generators really produce the hard cases, and only values that survive JSON.
import { isDeepStrictEqual } from 'node:util';
import deepEqual from 'deep-equal';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { jsonRpcMessage, jsonValue, type JsonRpcMessage } from '../../harness/props/arbitraries.ts';
import { equalsJson } from '../../harness/props/equality.ts';

const SAMPLE = fc.sample(jsonRpcMessage, { numRuns: 1000, seed: 20260728 });
const TEXTS = SAMPLE.map((message) => JSON.stringify(message));

function depth(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depth));
}

function* nodes(value: unknown): Generator<unknown> {
  yield value;
  if (value !== null && typeof value === 'object') for (const child of Object.values(value)) yield* nodes(child);
}

function* strings(value: unknown): Generator<string> {
  for (const node of nodes(value)) {
    if (typeof node === 'string') yield node;
    if (node !== null && typeof node === 'object' && !Array.isArray(node)) yield* Object.keys(node);
  }
}

function share(predicate: (message: JsonRpcMessage, text: string) => boolean): number {
  return SAMPLE.filter((message, index) => predicate(message, TEXTS[index]!)).length / SAMPLE.length;
}

describe('jsonRpcMessage', () => {
  test('generates every kind of message', () => {
    expect(share((m) => 'method' in m && 'id' in m)).toBeGreaterThan(0.1); // requests
    expect(share((m) => 'method' in m && !('id' in m))).toBeGreaterThan(0.1); // notifications
    expect(share((m) => 'result' in m)).toBeGreaterThan(0.1);
    expect(share((m) => 'error' in m)).toBeGreaterThan(0.1);
    expect(share((m) => 'error' in m && 'data' in m.error)).toBeGreaterThan(0.02);
    expect(share((m) => 'method' in m && !('params' in m))).toBeGreaterThan(0.02);
    expect(share((m) => 'id' in m && typeof m.id === 'string')).toBeGreaterThan(0.05);
    expect(share((m) => 'id' in m && typeof m.id === 'number' && m.id < 0)).toBeGreaterThan(0.02);
    expect(share((m) => 'id' in m && m.id === null)).toBeGreaterThan(0.01);
  });

  test('generates the hard text: line breaks, U+2028/9, emoji, astral, quotes, backslashes, controls', () => {
    const inStrings = (pattern: RegExp) => share((m) => [...strings(m)].some((text) => pattern.test(text)));
    expect(inStrings(/\u2028/)).toBeGreaterThan(0.05);
    expect(inStrings(/\u2029/)).toBeGreaterThan(0.05);
    expect(inStrings(/\n/)).toBeGreaterThan(0.05);
    expect(inStrings(/\r/)).toBeGreaterThan(0.05);
    expect(inStrings(/😀|👩🏽‍💻/u)).toBeGreaterThan(0.05);
    expect(inStrings(/[\u{10000}-\u{10ffff}]/u)).toBeGreaterThan(0.3);
    expect(inStrings(/"/)).toBeGreaterThan(0.05);
    expect(inStrings(/\\/)).toBeGreaterThan(0.05);
    expect(inStrings(/\//)).toBeGreaterThan(0.05);
    expect(inStrings(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/)).toBeGreaterThan(0.05);
  });

  test('generates deep, empty and odd structures and numbers', () => {
    expect(share((m) => depth(m) >= 3)).toBeGreaterThan(0.3);
    expect(share((m) => depth(m) >= 5)).toBeGreaterThan(0.1);
    expect(share((_m, text) => text.includes('{}'))).toBeGreaterThan(0.1);
    expect(share((_m, text) => text.includes('[]'))).toBeGreaterThan(0.05);
    expect(share((m) => [...nodes(m)].some((node) => typeof node === 'number' && Math.abs(node) > Number.MAX_SAFE_INTEGER))).toBeGreaterThan(0.05);
    expect(share((m) => [...nodes(m)].some((node) => typeof node === 'number' && node < 0))).toBeGreaterThan(0.2);
    expect(share((m) => [...nodes(m)].some((node) => typeof node === 'number' && !Number.isInteger(node)))).toBeGreaterThan(0.1);
    expect(share((m) => [...strings(m)].includes('__proto__'))).toBeGreaterThan(0.01);
    expect(share((_m, text) => !text.startsWith('{"jsonrpc"'))).toBeGreaterThan(0.2); // keys in other orders
  });

  test('generates only values that JSON gives back unchanged', () => {
    // what breaks the rule, by message: one expect for the sample, not one per value in it
    const broken: { message: number; why: string; value: unknown }[] = [];
    SAMPLE.forEach((message, index) => {
      const breaks = (why: string, value: unknown) => broken.push({ message: index, why, value });
      if (!isDeepStrictEqual(JSON.parse(TEXTS[index]!), message)) breaks('changed by a JSON round trip', message);
      for (const node of nodes(message)) {
        if (node === undefined || Object.is(node, -0) || Number.isNaN(node)) breaks('not JSON', node);
        if (typeof node === 'number' && !Number.isFinite(node)) breaks('not finite', node);
        if (typeof node === 'object' && node !== null && Object.getPrototypeOf(node) !== (Array.isArray(node) ? Array.prototype : Object.prototype)) {
          breaks('not a plain object or array', node);
        }
      }
      for (const text of strings(message)) if (/\p{Cs}/u.test(text)) breaks('a lone surrogate', text);
    });
    expect(broken).toEqual([]);
  });
});

describe('equalsJson', () => {
  test('agrees with deep-equal (strict) on plain JSON values', () => {
    fc.assert(
      fc.property(jsonValue, jsonValue, (a, b) => {
        expect(equalsJson(a, b)).toBe(deepEqual(a, b, { strict: true }));
        expect(equalsJson(JSON.parse(JSON.stringify(a)), a)).toBe(true);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  test('is not fooled by values JSON.stringify cannot tell apart', () => {
    class Message {
      jsonrpc = '2.0';
    }
    expect(equalsJson(new Message(), { jsonrpc: '2.0' })).toBe(false);
    expect(equalsJson({ id: 1, extra: undefined }, { id: 1 })).toBe(false);
    expect(equalsJson({ when: new Date(0) }, { when: '1970-01-01T00:00:00.000Z' })).toBe(false);
    // biome-ignore lint/suspicious/noSparseArray: a hole is not a null, and this is the hole
    expect(equalsJson([1, , 3], [1, null, 3])).toBe(false);
    expect(equalsJson({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
  });
});
