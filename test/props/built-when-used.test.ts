// builtWhenUsed defers the making of an arbitrary to its first value, and changes nothing of what it
// draws or how it shrinks: the recorded gradings' values depend on it.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { builtWhenUsed } from '../../harness/props/arbitraries.ts';

const made = () => fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/), fc.string({ unit: 'grapheme', maxLength: 12 }));

describe('builtWhenUsed', () => {
  it('makes its arbitrary at the first value drawn, once', () => {
    let builds = 0;
    const arbitrary = builtWhenUsed(() => {
      builds += 1;
      return made();
    });
    expect(builds).toBe(0);
    fc.sample(
      arbitrary.map(([word]) => word.length),
      { seed: 1, numRuns: 20 },
    );
    fc.sample(arbitrary, { seed: 2, numRuns: 20 });
    expect(builds).toBe(1);
  });

  it('draws the values of the arbitrary it wraps, for the same seed', () => {
    for (const seed of [1, 7, 42]) expect(fc.sample(builtWhenUsed(made), { seed, numRuns: 200 })).toEqual(fc.sample(made(), { seed, numRuns: 200 }));
  });

  it('shrinks a failure to the same counterexample, in as many steps', () => {
    const failing = (arbitrary: fc.Arbitrary<[string, string]>) =>
      fc.check(
        fc.property(arbitrary, ([word, text]) => word.length + text.length < 9),
        { seed: 7 },
      );
    const wrapped = failing(builtWhenUsed(made));
    const plain = failing(made());
    expect(wrapped.failed).toBe(true);
    expect(wrapped.counterexample).toEqual(plain.counterexample);
    expect(wrapped.numShrinks).toBe(plain.numShrinks);
    expect(wrapped.numShrinks).toBeGreaterThan(0);
  });
});
