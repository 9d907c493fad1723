// Numbers on the command line, checked before anything starts: a seed the report can keep, a
// timeout a Node timer can hold, a number of runs that is not a typo.
import { describe, expect, it } from 'vitest';
import { MAX_RUNS, MAX_TIMEOUT_SECONDS, count, positive, runs, seconds, seed } from '../../harness/commands/args.ts';
import { UsageError } from '../../harness/errors.ts';

describe('command-line numbers', () => {
  it('--seed: a whole number from 0 to 2^32 - 1', () => {
    expect(seed('--seed', '0')).toBe(0);
    expect(seed('--seed', '4294967295')).toBe(2 ** 32 - 1);
    for (const bad of ['-1', '4294967296', '1.5', '1e3', '', ' 7', '0x10', '99999999999999999999']) {
      expect(() => seed('--seed', bad), bad).toThrow(new UsageError(`--seed takes a whole number from 0 to 4294967295, not "${bad}"`));
    }
  });

  it('--timeout: positive seconds, no more than a timer holds with the wall-time backstop on top', () => {
    expect(seconds('--timeout', '2')).toBe(2);
    expect(seconds('--timeout', '0.5')).toBe(0.5);
    expect(seconds('--timeout', String(MAX_TIMEOUT_SECONDS))).toBe(MAX_TIMEOUT_SECONDS);
    expect(MAX_TIMEOUT_SECONDS * 1000 * 3).toBeLessThanOrEqual(2 ** 31 - 1);
    for (const bad of ['0', '-1', 'Infinity', 'NaN', '1e10', String(MAX_TIMEOUT_SECONDS + 1), '2147484', '', 'ten']) {
      expect(() => seconds('--timeout', bad), bad).toThrow(
        new UsageError(`--timeout takes a positive number of seconds up to ${MAX_TIMEOUT_SECONDS}, not "${bad}"`),
      );
    }
  });

  it('--runs: from 1 to a million', () => {
    expect(runs('--runs', '1')).toBe(1);
    expect(runs('--runs', String(MAX_RUNS))).toBe(MAX_RUNS);
    for (const bad of ['0', '-5', '1000001', '1e9', '2.5']) {
      expect(() => runs('--runs', bad), bad).toThrow(new UsageError(`--runs takes a whole number from 1 to 1000000, not "${bad}"`));
    }
  });

  it('counts and positive numbers refuse what never ends', () => {
    expect(() => positive('--memory', 'Infinity', 'MiB')).toThrow(UsageError);
    expect(() => positive('--memory', '1e400', 'MiB')).toThrow(UsageError);
    expect(count('--random', '3')).toBe(3);
    expect(() => count('--random', '1001', 1000)).toThrow(new UsageError('--random takes a whole number from 0 to 1000, not "1001"'));
  });
});
