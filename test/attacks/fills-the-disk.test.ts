// A repository whose src/ is small in git (zeros compress to almost nothing) and large on disk: three
// files of 10 MiB. classroom writes out no more of a student's src/ than the bundler would read (16 MiB
// together), settled from git's listing before a file is written; the files past it are named.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fetchSubmission, type Fetched } from '../../harness/classroom/fetch.ts';
import { cleanUp, folder } from '../ci/helpers.ts';
import { repository, url } from '../classroom/helpers.ts';

afterAll(cleanUp);

const TEN_MIB = '\0'.repeat(10 * 1024 * 1024);

describe('fills-the-disk: a student src/ is written out up to 16 MiB together', () => {
  it('writes the files that fit, in order, and names the one left out', async () => {
    const repo = repository([{ files: { 'src/a.ts': 'export {};\n', 'src/b.bin': TEN_MIB, 'src/c.bin': TEN_MIB, 'src/d.ts': 'export {};\n' } }]);
    const into = folder({});
    const fetched = (await fetchSubmission({ repository: url(repo) }, into)) as Fetched;
    expect(fetched.left).toEqual(['src/c.bin (with it, the files of src/ would be more than 16 MiB together)']);
    const src = join(fetched.folder, 'src');
    expect(readdirSync(src).sort()).toEqual(['a.ts', 'b.bin', 'd.ts']);
    const written = readdirSync(src).reduce((sum, file) => sum + statSync(join(src, file)).size, 0);
    expect(written).toBeLessThanOrEqual(16 * 1024 * 1024);
  });
});
