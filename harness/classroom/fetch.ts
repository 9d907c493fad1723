// One student's submission, from their repository: git fetches the commit to grade (the newest, the one
// the roster pins, or the last before the deadline) into a bare repository of the grader's, and only the
// regular files of its src/ are written out, read from git's objects: nothing of the student's is checked
// out, run or configured (no hook, attribute, filter, submodule, link or package.json of theirs takes
// effect). Links and submodules under src/ are left out and named, as the scratch copy does.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface Fetched {
  commit: string;
  /** When the commit says it was made (its committer date, as git records it: the student's clock). */
  committedAt: string;
  /** Commits on the default branch's first-parent line after the one graded (by history, not by date);
   *  null where only the commit the roster pins was fetched. */
  laterCommits: number | null;
  /** A folder holding only the commit's src/. */
  folder: string;
  /** What under src/ was not written: links, submodules, files too large, too many. */
  left: string[];
}

export interface FetchOptions {
  /** Sent to GitHub as the reader of private repositories (the teacher's token); never to a program. */
  token?: string;
  /** A bound on each git command's wall time (a server that never answers). */
  timeoutMs?: number;
}

/** Why a student's submission could not be had: one line, for their row of the gradebook. */
export class FetchProblem {
  constructor(readonly reason: string) {}
}

/** A file under src/ larger than this is left out (as the scratch copy leaves it out); and the files written
 *  are no more than this together, as many as the bundler reads (run/confine.ts). Git's objects compress:
 *  60 KiB of them held 773 MiB of files, all written out, then copied again, before this bound. */
const MAX_FILE_BYTES = 16 * 1024 * 1024;
const MAX_TOTAL_BYTES = 16 * 1024 * 1024;
/** Nor are more files than this written. */
const MAX_FILES = 1000;
const FULL_COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/i;

export async function fetchSubmission(
  student: { repository: string; commit?: string; deadline?: Date },
  into: string,
  options: FetchOptions = {},
): Promise<Fetched | FetchProblem> {
  if (student.repository === '') return new FetchProblem('the roster gives no repository');
  const git = gitIn(join(into, 'repository.git'), options);
  try {
    await git(['init', '--quiet', '--bare']);
    const chosen = await chosenCommit(git, student);
    if (chosen instanceof FetchProblem) return chosen;
    const { commit, laterCommits } = chosen;
    const committedAt = (await text(git, ['show', '--no-patch', '--format=%cI', commit])).trim();
    const folder = join(into, 'submission');
    mkdirSync(folder, { recursive: true });
    const left = await writeSrc(git, commit, folder);
    return { commit, committedAt, laterCommits, folder, left };
  } catch (error) {
    return new FetchProblem(error instanceof GitError ? error.message : `git: ${(error as Error).message}`);
  }
}

/** A git command's stdout, as bytes. */
type Git = (args: string[]) => Promise<Buffer>;

/** Its stdout as text. */
async function text(git: Git, args: string[]): Promise<string> {
  return (await git(args)).toString('utf8');
}

class GitError extends Error {}

/** The commit to grade, fetched: the roster's, the last before the deadline, or the newest of the default
 *  branch; and how many commits came after it. */
async function chosenCommit(
  git: Git,
  student: { repository: string; commit?: string; deadline?: Date },
): Promise<{ commit: string; laterCommits: number | null } | FetchProblem> {
  const url = student.repository;
  const fetch = (ref: string, shallow: boolean) => git(['fetch', '--quiet', '--no-tags', ...(shallow ? ['--depth', '1'] : []), '--', url, ref]);
  if (student.commit !== undefined && FULL_COMMIT.test(student.commit)) {
    await fetch(student.commit, true);
    return { commit: (await text(git, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}'])).trim(), laterCommits: null };
  }
  await fetch('HEAD', student.commit === undefined && student.deadline === undefined);
  if (student.commit !== undefined) {
    try {
      return { commit: (await text(git, ['rev-parse', '--verify', '--quiet', `${student.commit}^{commit}`])).trim(), laterCommits: null };
    } catch {
      return new FetchProblem(`commit ${student.commit} is not on the repository's default branch`);
    }
  }
  if (student.deadline !== undefined) {
    // --before reads each commit's committer date: what the student's git wrote (GIT_COMMITTER_DATE sets it), as the author date is
    const before = (await text(git, ['rev-list', '-1', '--first-parent', `--before=${student.deadline.toISOString()}`, 'FETCH_HEAD'])).trim();
    if (before === '') return new FetchProblem(`no commit before the deadline (${student.deadline.toISOString()})`);
    const later = Number((await text(git, ['rev-list', '--count', '--first-parent', `${before}..FETCH_HEAD`])).trim());
    return { commit: before, laterCommits: later };
  }
  return { commit: (await text(git, ['rev-parse', '--verify', 'FETCH_HEAD^{commit}'])).trim(), laterCommits: 0 };
}

/** The commit's src/ as regular files under `folder`; what was left out, named. Which files are written is
 *  settled from the tree's listing (with each blob's size) before any is. */
async function writeSrc(git: Git, commit: string, folder: string): Promise<string[]> {
  const listing = await text(git, ['ls-tree', '-r', '-z', '--long', '--full-tree', commit, '--', 'src']);
  const left: string[] = [];
  const chosen: { path: string; object: string }[] = [];
  let total = 0;
  for (const entry of listing.split('\0')) {
    const match = /^(\d{6}) (\w+) ([0-9a-f]+) +(-|\d+)\t(.+)$/s.exec(entry);
    if (!match) continue;
    const [, mode, type, object, size, path] = match as unknown as [string, string, string, string, string, string];
    if (!path.startsWith('src/') || path.split('/').some((part) => part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git')) {
      left.push(`${path} (not a path under src/)`);
      continue;
    }
    if (type !== 'blob' || (mode !== '100644' && mode !== '100755')) {
      left.push(`${path} (${mode === '120000' ? 'a symbolic link' : type === 'commit' ? 'a submodule' : `git mode ${mode}`})`);
      continue;
    }
    if (Number(size) > MAX_FILE_BYTES) {
      left.push(`${path} (larger than 16 MiB)`);
      continue;
    }
    if (chosen.length >= MAX_FILES) {
      left.push(`${path} (more than ${MAX_FILES} files)`);
      continue;
    }
    if (total + Number(size) > MAX_TOTAL_BYTES) {
      left.push(`${path} (with it, the files of src/ would be more than ${MAX_TOTAL_BYTES / 1024 / 1024} MiB together)`);
      continue;
    }
    total += Number(size);
    chosen.push({ path, object });
  }
  for (const { path, object } of chosen) {
    const target = join(folder, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, await git(['cat-file', 'blob', object]), { flag: 'wx', mode: 0o644 });
  }
  return left;
}

/** git, in one bare repository of the grader's, never asking anyone anything, never running a
 *  transport that executes commands (ext::), never reading the student's configuration (there is none:
 *  only what was fetched, as objects). The teacher's token, where given, goes to GitHub as an HTTP header
 *  through git's environment, never on a command line. */
function gitIn(repository: string, options: FetchOptions): Git {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GIT_DIR: repository,
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: 'true',
    GIT_ALLOW_PROTOCOL: 'https:http:ssh:git:file',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
  };
  if (options.token) {
    env.GIT_CONFIG_COUNT = '1';
    env.GIT_CONFIG_KEY_0 = 'http.https://github.com/.extraHeader';
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(`x-access-token:${options.token}`).toString('base64')}`;
  }
  return (args) =>
    new Promise((resolve, reject) => {
      const first = args[0];
      execFile(
        'git',
        args,
        { env, encoding: 'buffer', maxBuffer: MAX_FILE_BYTES * 2, timeout: options.timeoutMs ?? 120_000, killSignal: 'SIGKILL' },
        (error, stdout, stderrBytes) => {
          if (!error) return resolve(stdout);
          const stderr = stderrBytes.toString('utf8');
          const said = stderr.split('\n').find((line) => /^(fatal|error):/.test(line)) ?? stderr.split('\n').find((line) => line.trim() !== '');
          reject(
            new GitError(`git ${first}: ${(said ?? (error.killed ? 'stopped: it took too long' : error.message)).replace(/^(fatal|error): /, '').trim()}`),
          );
        },
      );
    });
}
