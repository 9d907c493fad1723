// Looks everywhere a grader's secrets were once found: the course's fixtures through the real path
// of node_modules, the generated expected outputs in /tmp, the cassettes in replay's parse cache,
// the hidden cases' folder and the token on the grader's command line and environment
// (/proc/$PPID and every other process). Prints the
// expected output of the case if it finds it, and whatever secret it finds on stdout and stderr.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative } from 'node:path';

const found: string[] = [];
const caseDir = process.argv[3];
const tryRead = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

const own = new Set(Object.entries(process.env).map(([name, value]) => `${name}=${value}`));
const courseRoots = new Set<string>();
try {
  courseRoots.add(join(realpathSync('node_modules'), '..'));
} catch {
  // no node_modules
}
for (const pid of ['self', String(process.ppid), ...safeList('/proc')]) {
  const cmdline = tryRead(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
  const cases = cmdline.indexOf('--cases');
  if (cases > 0) found.push(`hidden cases folder: ${cmdline[cases + 1]}`);
  for (const arg of cmdline) if (arg.startsWith('/') && existsSync(join(arg, 'fixtures'))) courseRoots.add(arg);
  const environ = tryRead(`/proc/${pid}/environ`)?.split('\0') ?? [];
  // its own variables are no find (an HTTP case's gate token is given to it): another process's would be
  for (const variable of environ) if (/TOKEN|SECRET/.test(variable) && !own.has(variable)) found.push(`environment of ${pid}: ${variable}`);
}
for (const entry of safeList('/tmp')) if (entry.startsWith('theinference-expected-')) found.push(`generated expected outputs: /tmp/${entry}`);
// the parse cache of `replay` holds whole cassettes, the server's side of cases included
for (const entry of safeList('node_modules/.cache/theinference/cassettes')) found.push(`a cached cassette: ${entry}`);

let expected: string | undefined;
if (caseDir !== undefined) {
  for (const root of courseRoots) expected ??= tryRead(join(root, 'fixtures', relative('cases', caseDir), 'expected.json'));
}
if (found.length > 0) process.stderr.write(`found: ${found.join('; ')}\n`);
process.stdout.write(expected ?? `${JSON.stringify({ found })}\n`);
process.exit(0);

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
