// Looks for what says which kind of case this is: its argument, the folders around its case, the
// mount table (whose sources name the host folders the sandbox shows), its working folder. Prints
// all of it on stderr, one line, for the test to search for "hidden" and "random". A hidden case's
// report shows no stderr, only its verdict: so an mcp-frame case that finds anything telling (a
// folder named for its kind, `hidden-` or `random-`, not /dev/random) ends at once with nothing
// printed (a fail), where the starter would crash.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const caseDir = process.argv[3] ?? '';
const tryRead = (path: string): string => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};
/** Every path under `dir`, some levels down. */
const walk = (dir: string, depth: number): string[] => {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((entry) => [join(dir, entry), ...(depth > 0 ? walk(join(dir, entry), depth - 1) : [])]);
};

const seen = {
  caseDir,
  caseFiles: walk(caseDir, 0),
  around: [...walk('cases', 3), ...walk(join(caseDir, '..'), 1)],
  cwd: process.cwd(),
  // each mount's source folder and where it is shown (the 4th and 5th fields)
  mounts: tryRead('/proc/self/mountinfo')
    .split('\n')
    .map((line) => line.split(' ').slice(3, 5).join(' ')),
};
process.stderr.write(`sees: ${JSON.stringify(seen)}\n`);
const telling = caseDir !== 'case' || JSON.stringify(seen.caseFiles) !== '["case/messages.json"]' || /hidden|random-|secret|numbers/.test(JSON.stringify(seen));
if (process.argv[2] === 'mcp-frame' && telling) process.exit(0);
