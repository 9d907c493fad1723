// What `list` remembers between runs: each stage's last count, keyed by a digest of everything its
// grading read (the student's src/, the stage's cases and fixtures, the course's driver and table,
// the grader itself). A stage whose digest is unchanged is not graded again. Kept in
// node_modules/.cache, which a sandboxed program sees as an empty folder.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { COURSE_FILE, type Course, type Stage } from '../course.ts';
import { writeAtomically } from '../files.ts';

export interface StageCount {
  passed: number;
  total: number;
  /** When it was graded (ISO). */
  at: string;
}

/** One per course folder and stage: the count, and the digest of what it was graded from. */
type Entries = Record<string, StageCount & { digest: string }>;

const CACHE_FILE = join('node_modules', '.cache', 'theinference', 'list.json');
const HARNESS = join(import.meta.dirname, '..');

export class ListCache {
  private readonly path: string;
  private readonly entries: Entries;
  /** Each stage's digest, taken once, before it is graded: what its count is kept under. */
  private readonly digests = new Map<Stage, string>();
  /** The digest of what every stage reads (the course's table and driver, src/, the grader), taken once. */
  private shared: string | undefined;

  constructor(private readonly course: Course) {
    this.path = join(course.root, CACHE_FILE);
    this.entries = readEntries(this.path);
  }

  /** The stage's last count, if nothing it was graded from has changed since. */
  get(stage: Stage): StageCount | undefined {
    const entry = this.entries[this.key(stage)];
    return entry?.digest === this.digest(stage) ? entry : undefined;
  }

  set(stage: Stage, count: StageCount): void {
    this.entries[this.key(stage)] = { ...count, digest: this.digest(stage) };
    // node_modules may be shared by several course folders (copies of one course): forget the gone ones.
    for (const key of Object.keys(this.entries)) if (!existsSync(key.split('\0')[0]!)) delete this.entries[key];
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeAtomically(this.path, `${JSON.stringify(this.entries)}\n`, { overwrite: true });
    } catch {
      // a cache that cannot be written only costs a grading next time
    }
  }

  private digest(stage: Stage): string {
    this.shared ??= digestOf([
      join(this.course.root, COURSE_FILE),
      join(this.course.root, 'program.ts'),
      join(this.course.root, 'your_program.sh'),
      ...filesUnder(join(this.course.root, 'src')),
      ...filesUnder(HARNESS),
    ]);
    let digest = this.digests.get(stage);
    if (digest === undefined) {
      const own = stage.cases.flatMap((testCase) => [...filesUnder(join(this.course.root, testCase.casePath)), ...filesUnder(testCase.fixtureDir)]);
      digest = digestOf(own, `${stage.slug}\0${this.shared}`);
      this.digests.set(stage, digest);
    }
    return digest;
  }

  private key(stage: Stage): string {
    return `${this.course.root}\0${stage.slug}`;
  }
}

function readEntries(path: string): Entries {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Entries) : {};
  } catch {
    return {};
  }
}

/** sha256 of `prefix` and of each file's path and bytes, in the order given. */
function digestOf(files: string[], prefix = ''): string {
  const hash = createHash('sha256').update(prefix);
  for (const file of files) {
    hash.update(`\0${file}\0`);
    try {
      hash.update(readFileSync(file));
    } catch {
      hash.update('\0missing');
    }
  }
  return hash.digest('hex');
}

/** The files under `dir`, sorted; none when it does not exist. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((name) => join(dir, name))
      .filter((path) => statSync(path).isFile())
      .sort();
  } catch {
    return [];
  }
}
