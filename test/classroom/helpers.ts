// A class made on the fly: local git repositories (file URLs) with the commits a test gives, and a
// roster as GitHub Classroom exports an assignment's grades.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { folder } from '../ci/helpers.ts';

/** A git repository at `dir` whose commits hold `commits` in turn (each a set of files), dated when given. */
export function repository(commits: { files: Record<string, string>; date?: string; links?: Record<string, string> }[]): string {
  const dir = folder({});
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe', env: { ...process.env, ...dateEnv } });
  let dateEnv: Record<string, string> = {};
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'student@example.com');
  git('config', 'user.name', 'student');
  for (const { files, date, links } of commits) {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    for (const [path, target] of Object.entries(links ?? {})) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      symlinkSync(target, join(dir, path));
    }
    dateEnv = date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {};
    git('add', '-A');
    git('commit', '-q', '--allow-empty', '-m', 'work');
  }
  return dir;
}

export const head = (dir: string) => execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
export const url = (dir: string) => `file://${dir}`;

/** A roster as GitHub Classroom exports an assignment's grades (a quoted field with a comma among them):
 *  `id` is the row's roster_identifier, `username` its github_username (the same, unless given), `submitted`
 *  its submission_timestamp. */
export function roster(rows: { id: string; repo: string; commit?: string; deadline?: string; username?: string; submitted?: string }[]): string {
  const header =
    'assignment_name,assignment_url,starter_code_url,github_username,roster_identifier,student_repository_name,student_repository_url,submission_timestamp,points_awarded,points_available,commit,deadline';
  const quoted = (text: string) => (/[",]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const lines = rows.map(({ id, repo, commit, deadline, username, submitted }) =>
    [
      'MCP client, part 1',
      'https://classroom.github.com/a/x',
      '',
      username ?? id,
      id,
      `mcp-${username ?? id}`,
      repo,
      submitted ?? '',
      '',
      '',
      commit ?? '',
      deadline ?? '',
    ]
      .map(quoted)
      .join(','),
  );
  return folder({ 'roster.csv': `${[header, ...lines].join('\n')}\n` });
}
