// Shards must grade the same generated cases to be merged. classroom makes its seed from the course and
// the roster when none is given, so shards run without --seed merge; `test --shard` has no roster to make
// one from, so without --seed it stops at once rather than after every shard has graded.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Gradebook } from '../../harness/classroom/gradebook.ts';
import { cleanUp, folder, REFERENCE } from '../ci/helpers.ts';
import { courseCopy, runCli, trimCourse } from '../helpers/cli.ts';
import { repository, roster, url } from './helpers.ts';

const COURSE = courseCopy();
trimCourse(COURSE);
afterAll(() => {
  cleanUp();
  rmSync(COURSE, { recursive: true, force: true });
});

const QUICK = ['--stage', 'config-and-framing', '--runs', '20', '--random', '0'];
const reference = url(repository([{ files: { 'src/mcp.ts': REFERENCE } }]));

describe('the seed of a sharded run', () => {
  it('classroom: shards without --seed agree on one, and merge', async () => {
    const list = join(
      roster([
        { id: 'ada', repo: reference },
        { id: 'bea', repo: reference },
      ]),
      'roster.csv',
    );
    const parts = [1, 2].map((index) => join(folder({}), `shard-${index}`));
    const seeds: number[] = [];
    for (const [index, part] of parts.entries()) {
      const shard = await runCli(['classroom', '--roster', list, '--out', part, '--shard', `${index + 1}/2`, ...QUICK], { cwd: COURSE });
      expect(shard.code, shard.stderr).toBe(0);
      seeds.push((JSON.parse(readFileSync(join(part, 'gradebook.json'), 'utf8')) as Gradebook).seed);
    }
    expect(seeds[1]).toBe(seeds[0]);
    const merged = await runCli(['merge-reports', '--gradebook', join(folder({}), 'merged'), ...parts], { cwd: COURSE });
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
  });

  it('test: a shard without --seed stops at once, saying to give one', async () => {
    const out = folder({});
    const run = await runCli(['test', '--all', '--shard', '1/2', '--report', join(out, 'results.json'), ...QUICK], { cwd: COURSE });
    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')[0]).toBe(
      'theinference test: --shard 1/2 needs --seed <n>, the same for every shard (merge-reports refuses shards of different seeds)',
    );
    // nothing was graded: the report says why it stopped
    expect(readFileSync(join(out, 'results.json'), 'utf8')).toContain('needs --seed');
  });
});
