// The gradebooks of a class's shards as one: their rows in roster order, each student's folders (theirs
// and the teacher's) beside them. Shards of one class share the course, the roster and the seed; a shard missing is named, never
// taken for a class with fewer students.
import { cpSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.ts';
import { MergeError } from '../report/merge.ts';
import { readGradebook, writeGradebook, type Gradebook } from './gradebook.ts';

/** Joins the gradebooks in `folders` (each a shard's `--out`) into `out`; the merged gradebook. */
export function mergeGradebookFolders(folders: readonly string[], out: string): Gradebook {
  if (existsSync(out) && readdirSync(out).length > 0) throw new UsageError(`merge-reports: ${out} is not empty: give a new or empty folder for the gradebook`);
  const books = folders.map((folder) => ({ path: join(folder, 'gradebook.json'), book: readGradebook(join(folder, 'gradebook.json')) }));
  const merged = mergeGradebooks(books);
  for (const part of ['students', 'teacher']) {
    mkdirSync(join(out, part), { recursive: true });
    for (const folder of folders) {
      const from = join(folder, part);
      if (existsSync(from)) cpSync(from, join(out, part), { recursive: true, errorOnExist: true, force: false });
    }
  }
  writeGradebook(out, merged);
  return merged;
}

export function mergeGradebooks(books: readonly { path: string; book: Gradebook }[]): Gradebook {
  const [first, ...others] = books;
  if (first === undefined) throw new UsageError("merge-reports --gradebook needs the shards' gradebook folders");
  for (const other of others) {
    const [a, b] = [first.book, other.book];
    const differ = (what: string, why: string) => new MergeError(`${other.path}: ${what} differs from ${first.path}'s (${why})`);
    if (b.course.digest !== a.course.digest) throw differ('the course', 'graded with another course.yaml or other case folders');
    if (b.roster.digest !== a.roster.digest) throw differ('the roster', 'every shard must grade the same roster');
    if (b.seed !== a.seed) throw differ('the seed', 'every shard must be given the same --seed');
    if ((b.shard?.count ?? 1) !== (a.shard?.count ?? 1)) throw differ('the shard count', 'every shard must split the roster alike');
  }
  const count = first.book.shard?.count ?? 1;
  const seen = new Map<number, string>();
  for (const { path, book } of books) {
    const index = book.shard?.index ?? 1;
    const earlier = seen.get(index);
    if (earlier !== undefined) throw new MergeError(`${path}: shard ${index}/${count} is ${earlier} too`);
    seen.set(index, path);
  }
  const problems = books.flatMap(({ book }) => book.problems);
  for (let index = 1; index <= count; index += 1) if (!seen.has(index)) problems.push(`shard ${index}/${count} is missing from the merge`);
  const rows = books.flatMap(({ book }) => book.rows).sort((a, b) => a.position - b.position);
  return {
    ...first.book,
    shard: count === 1 ? null : { index: 0, count },
    mergedShards: [...seen.keys()].sort((a, b) => a - b),
    startedAt: books.map(({ book }) => book.startedAt).sort()[0]!,
    rows,
    problems,
  };
}
