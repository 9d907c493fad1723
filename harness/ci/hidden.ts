// Hidden cases (`--cases <dir>`): cases kept outside the course repo, laid out as the course's
// own are: <dir>/cases/<folder>/<case>/ (what the program is given) and
// <dir>/fixtures/<folder>/<case>/expected.json (and a recording per endpoint of its command),
// where <folder> is a case folder of course.yaml (e.g. config-and-framing/mcp-frame, handshake). Their inputs are copied into the scratch copy; their
// expected output is read from <dir>, never from where the program runs.
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { caseEndpoints, CourseError, type Case, type CaseFolder, type Course } from '../course.ts';

/** Where a hidden case's input goes in the scratch copy; its name in reports is `hidden-<command folder>/<case>`. */
export function hiddenCasePath(folder: string, name: string): string {
  return join('cases', dirname(folder), `hidden-${basename(folder)}`, name);
}

export interface HiddenCases {
  /** Per stage slug, in casePath order. */
  byStage: Map<string, Case[]>;
  /** Each case's input folder under <dir>/cases/. */
  sources: Map<Case, string>;
}

/** The hidden cases under `dir`; throws a CourseError naming the first problem. `allowMissingExpected`:
 *  a case without its expected.json yet is one (bless makes it). */
export function loadHiddenCases(dir: string, course: Course, { allowMissingExpected = false } = {}): HiddenCases {
  const folders = caseFolders(course);
  const root = resolve(dir);
  const fail = (message: string): never => {
    throw new CourseError(`--cases ${dir}: ${message}`);
  };
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) fail('no such folder');
  const casesRoot = join(root, 'cases');
  if (!statSync(casesRoot, { throwIfNoEntry: false })?.isDirectory())
    fail('no cases/ folder (expected cases/<case folder of course.yaml>/<case>/ and fixtures/ beside it)');

  const byStage = new Map<string, Case[]>();
  const sources = new Map<Case, string>();
  const known = [...folders.keys()].join(', ');
  // Down from cases/ to the case folders course.yaml names (one level deep or more), then their cases.
  const walk = (folder: string) => {
    const owner = folders.get(folder);
    if (owner === undefined) {
      if (folder !== '' && ![...folders.keys()].some((known) => known.startsWith(`${folder}/`)))
        fail(`cases/${folder} is not a case folder of course.yaml (known: ${known})`);
      for (const name of subfolders(join(casesRoot, folder))) walk(folder === '' ? name : `${folder}/${name}`);
      return;
    }
    for (const name of subfolders(join(casesRoot, folder))) {
      const fixtureDir = join(root, 'fixtures', folder, name);
      const expectedPath = join(fixtureDir, 'expected.json');
      const where = `fixtures/${folder}/${name}`;
      const expected = existsSync(expectedPath);
      if (!expected && !allowMissingExpected) fail(`case ${folder}/${name} has no ${where}/expected.json`);
      if (expected && !readFileSync(expectedPath, 'utf8').endsWith('\n'))
        fail(`${where}/expected.json does not end with a newline (program.ts always prints one)`);
      const endpoints = caseEndpoints(owner.command, fixtureDir, (endpoint) =>
        fail(`case ${folder}/${name} has no ${where}/${endpoint.cassette} (its command's endpoint ${endpoint.name} is played from one)`),
      );
      const testCase: Case = {
        name,
        stage: owner.stage,
        command: owner.command.name,
        casePath: hiddenCasePath(folder, name),
        fixtureDir,
        expectedPath,
        endpoints,
        hidden: true,
      };
      byStage.set(owner.stage, [...(byStage.get(owner.stage) ?? []), testCase]);
      sources.set(testCase, join(casesRoot, folder, name));
    }
  };
  walk('');
  if (sources.size === 0) fail('holds no cases (expected cases/<case folder of course.yaml>/<case>/)');
  for (const cases of byStage.values()) cases.sort((a, b) => a.casePath.localeCompare(b.casePath));
  return { byStage, sources };
}

/** Copies each hidden case's input folder into the scratch copy, at its casePath. */
export function copyHiddenInputs(hidden: HiddenCases, scratchRoot: string): void {
  for (const [testCase, source] of hidden.sources) cpSync(source, join(scratchRoot, testCase.casePath), { recursive: true });
}

/** course.yaml's case folders, each with the stage and command it belongs to. */
export function caseFolders(course: Course): Map<string, Omit<CaseFolder, 'folder'>> {
  const folders = new Map<string, Omit<CaseFolder, 'folder'>>();
  for (const stage of course.stages) {
    for (const testCase of stage.cases) {
      const command = course.commands.find((one) => one.name === testCase.command)!;
      folders.set(dirname(testCase.casePath).slice('cases/'.length), { stage: stage.slug, command });
    }
  }
  return folders;
}

function subfolders(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}
