// `theinference export <dir>`: the student's repository made from the course: the course's files
// (course.yaml, program.ts, your_program.sh, docs/course.md and the pages it names, the public cases/ and
// fixtures/), a tsconfig.json made for it, the starter as src/, a package.json that depends on this grader
// (and on what an editor needs to check src/: typescript, @types/node), a .gitignore, a README made
// from course.yaml and a workflow that grades every push as feedback (the grade of record is the
// teacher's). Never the reference solution: the export refuses to write a file that holds its text.
// Over an earlier export it updates the course's files, leaves src/ alone, and says what changed. A
// grader given as a tarball is copied in.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Course } from '../course.ts';
import { defineCommand, type Options, type Parsed } from './command.ts';
import { courseHere } from './course.ts';
import { CourseError, InputError, UsageError } from '../errors.ts';
import { PROGRAM } from '../run/launcher.ts';
import { forStudents, PUBLISHED, publishedFiles } from '../run/submission.ts';
import { graderDevDependencies } from '../grader-package.ts';
import { graderVersion } from '../report/version.ts';

/** The course's own files, copied as they are (your_program.sh executable) but tsconfig.json, which is made
 *  for the repository (forStudents); docs/course.md is what each stage asks of src/mcp.ts, which the
 *  starter's comments point to, with the pages it points to; the stages' contracts, which program.ts
 *  imports (publishedFiles). The course's folders are made again on every export (files gone from the
 *  course go). `test --feedback` compares the same files. */
const { folders: COURSE_FOLDERS } = PUBLISHED;
/** What a student's editor needs to check src/ as the course's tsconfig.json asks (`types: ["node"]`), at
 *  the versions this grader is checked with. */
const EDITOR_PACKAGES = ['typescript', '@types/node'] as const;
/** A run of this many lines of the reference, none of them the starter's, is its code. */
const REFERENCE_RUN = 6;

const OPTIONS = {
  grader: {
    type: 'string',
    value: '<spec>',
    help: 'the npm spec package.json depends on the grader by (default: ^ this version); a tarball\n(npm pack) is copied into the export and depended on there',
  },
} as const satisfies Options;

export const command = defineCommand({
  name: 'export',
  synopsis: '<dir>',
  summary:
    "the student's repository: the course's files, the starter as src/, a package.json that depends on\nthis grader, a workflow that grades each push as feedback",
  options: OPTIONS,
  positionals: true,
  run: ({ values, positionals }, output) => exportCourse(values, positionals, (text) => output.out(text)),
});

async function exportCourse(values: Parsed<typeof OPTIONS>['values'], positionals: string[], out: (text: string) => void): Promise<number> {
  if (positionals.length !== 1)
    throw new UsageError('export takes the folder to write the student repository to: theinference export <dir> [--grader <npm spec>]');
  const course = courseHere();
  const target = resolve(positionals[0]!);
  const files = studentFiles(course, graderDependency(values.grader));
  refuseReference(course, files);

  const earlier = existsSync(join(target, 'course.yaml'));
  if (!earlier && existsSync(target) && readdirSync(target).length > 0) {
    throw new UsageError(`export: ${target} is not empty and holds no earlier export (no course.yaml): give an empty or new folder`);
  }
  const changes: string[] = [];
  if (earlier) {
    for (const folder of COURSE_FOLDERS) {
      for (const path of listFiles(join(target, folder))) {
        const name = join(folder, path);
        if (!files.has(name)) {
          rmSync(join(target, name));
          changes.push(`removed ${name}`);
        }
      }
      pruneEmpty(join(target, folder));
    }
  }
  for (const [name, file] of files) {
    // src/ is the student's once it exists; package.json keeps what they added
    if (earlier && name.startsWith('src/') && existsSync(join(target, name))) continue;
    const content = name === 'package.json' && earlier ? mergedPackage(join(target, name), String(file.content)) : file.content;
    const path = join(target, name);
    const before = existsSync(path) ? readFileSync(path) : undefined;
    if (before?.equals(Buffer.from(content))) continue;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content, { mode: file.mode ?? 0o644 });
    if (earlier) changes.push(`${before === undefined ? 'added' : 'changed'} ${name}`);
  }
  if (!earlier)
    out(
      `export: wrote ${files.size} files to ${target}: the starter in src/, the grader ${JSON.parse(String(files.get('package.json')!.content)).devDependencies.theinference}\n`,
    );
  else if (changes.length === 0) out(`export: ${target} is up to date (src/ left as it is)\n`);
  else out(`export: updated ${target} (src/ left as it is):\n${changes.map((line) => `  ${line}\n`).join('')}`);
  return 0;
}

interface StudentFile {
  /** Text, or the bytes of the grader's tarball. */
  content: string | Buffer;
  mode?: number;
}

/** How package.json depends on the grader, and the grader's tarball where it is one to copy in. */
interface GraderDependency {
  spec: string;
  tarball?: { name: string; content: Buffer };
}

/** `--grader`: a path to a tarball (`file:`, `./`, `../`, `/`, or a name ending in .tgz) is copied to the
 *  export's root and depended on there (`file:<its name>`), so that it resolves wherever the repository is
 *  cloned; any other npm spec (a version range, a git URL) is written as it is; none, ^ this version. */
function graderDependency(spec: string | undefined): GraderDependency {
  if (spec === undefined) return { spec: `^${graderVersion()}` };
  const isPath = spec.startsWith('file:') || (!spec.includes('://') && /^(\.{1,2}\/|\/)|\.t(ar\.)?gz$/.test(spec));
  if (!isPath) return { spec };
  const path = spec.replace(/^file:/, '');
  const stat = statSync(path, { throwIfNoEntry: false });
  const wrong = !stat ? 'no such file' : !stat.isFile() ? 'not a file' : /\.t(ar\.)?gz$/.test(path) ? undefined : 'not a tarball (.tgz)';
  if (wrong)
    throw new InputError(`export: --grader ${spec}: ${wrong}: give a tarball from npm pack (it is copied into the export) or an npm spec (^1.2.0, a git URL)`);
  const name = basename(path);
  return { spec: `file:${name}`, tarball: { name, content: readFileSync(path) } };
}

/** Every file of the export, by its path in the student's repository. */
function studentFiles(course: Course, grader: GraderDependency): Map<string, StudentFile> {
  const files = new Map<string, StudentFile>();
  for (const name of publishedFiles(course.root))
    files.set(name, { content: forStudents(name, readCourseFile(course.root, name)), ...(name === PROGRAM && { mode: 0o755 }) });
  for (const folder of COURSE_FOLDERS)
    for (const path of listFiles(join(course.root, folder), course.root))
      files.set(join(folder, path), { content: readCourseFile(course.root, join(folder, path)) });
  for (const path of listFiles(join(course.root, 'starter', 'src'), course.root))
    files.set(join('src', path), { content: readCourseFile(course.root, join('starter', 'src', path)) });
  files.set('package.json', { content: packageJson(basename(course.root), grader.spec) });
  if (grader.tarball) files.set(grader.tarball.name, { content: grader.tarball.content });
  files.set('.gitignore', { content: 'node_modules/\n.theinference/\nresults.json\nreport.html\n' });
  files.set('README.md', { content: studentReadme(course) });
  files.set('.github/workflows/grade.yml', { content: WORKFLOW });
  return files;
}

function readCourseFile(root: string, name: string): string {
  const path = join(root, name);
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile())
    throw new CourseError(`export: ${name} is ${stat ? 'not a regular file (a link?)' : 'missing'}: the export copies only the course's own files`);
  return readFileSync(path, 'utf8');
}

/** The regular files under `dir`, relative to it, sorted; a link or anything else is refused (it could name a file outside the course). */
function listFiles(dir: string, root?: string): string[] {
  if (!existsSync(dir)) return [];
  const names: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) continue;
    if (!entry.isFile()) {
      if (root !== undefined)
        throw new CourseError(`export: ${relative(root, path)} is not a regular file (a link?): the export copies only the course's own files`);
      continue;
    }
    names.push(relative(dir, path));
  }
  return names.sort();
}

/** Removes the folders under `dir` that hold nothing any more (a case gone from the course). */
function pruneEmpty(dir: string): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) pruneEmpty(join(dir, entry.name));
  if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true });
}

/** Nothing the export writes holds the reference's code: not the starter, nor a run of its lines in any file. */
function refuseReference(course: Course, files: Map<string, StudentFile>): void {
  const referencePath = join(course.root, 'src', 'mcp.ts');
  if (!existsSync(referencePath)) return;
  const reference = readFileSync(referencePath, 'utf8');
  const starter = String(files.get('src/mcp.ts')?.content ?? '');
  for (const [name, file] of files) {
    if (file.content === reference) throw new CourseError(`export: ${name} would be the reference solution (src/mcp.ts): nothing was written`);
    const line = referenceIn(textOf(name, file), reference, starter);
    if (line !== undefined) throw new CourseError(`export: ${name} holds the reference solution's code (src/mcp.ts near line ${line}): nothing was written`);
  }
}

/** A file's text as the reference check reads it: a tarball's, what it unpacks to (each file's bytes after its header). */
function textOf(name: string, file: StudentFile): string {
  if (typeof file.content === 'string') return file.content;
  try {
    return gunzipSync(file.content).toString('utf8');
  } catch {
    throw new InputError(`export: --grader: ${name} is not a gzipped tarball (npm pack makes one): nothing was written`);
  }
}

/** Where `text` holds the reference's code: a run of REFERENCE_RUN of the reference's own lines (not
 *  blank, not a brace, not one the starter has too), as the line of the reference it reaches; undefined
 *  where it holds none. */
export function referenceIn(text: string, reference: string, starter: string): number | undefined {
  const starterLines = new Set(starter.split('\n').map((line) => line.trim()));
  const own = reference.split('\n').map((line) => line.trim());
  const isOwn = own.map((line) => line.length > 3 && !starterLines.has(line));
  const lines = new Set(text.split('\n').map((line) => line.trim()));
  let run = 0;
  for (let i = 0; i < own.length; i++) {
    run = isOwn[i] && lines.has(own[i]!) ? run + 1 : isOwn[i] ? 0 : run;
    if (run >= REFERENCE_RUN) return i + 1;
  }
  return undefined;
}

function packageJson(name: string, grader: string): string {
  const pkg = {
    name: `${name.toLowerCase().replace(/[^a-z0-9-]+/g, '-')}-student`,
    private: true,
    type: 'module',
    scripts: { test: 'theinference test', watch: 'theinference test --watch' },
    devDependencies: { theinference: grader, ...graderDevDependencies(EDITOR_PACKAGES) },
  };
  return `${JSON.stringify(pkg, null, 2)}\n`;
}

/** An earlier export's package.json with the grader's version set, and the editor's packages where it has
 *  none (an export older than them): what the student added or changed stays. */
function mergedPackage(path: string, fresh: string): string {
  try {
    const old = JSON.parse(readFileSync(path, 'utf8')) as { devDependencies?: Record<string, string> };
    const { theinference: grader, ...editor } = (JSON.parse(fresh) as { devDependencies: Record<string, string> }).devDependencies;
    return `${JSON.stringify({ ...old, devDependencies: { ...editor, ...old.devDependencies, theinference: grader } }, null, 2)}\n`;
  } catch {
    return fresh;
  }
}

function studentReadme(course: Course): string {
  const stages = course.stages.map((stage, i) => `${i + 1}. \`${stage.slug}\`: ${stage.title}`).join('\n');
  return `# The MCP client course

You build a Model Context Protocol client in TypeScript, in \`src/mcp.ts\`, one stage at a time:

${stages}

What each stage asks of \`src/mcp.ts\` (its API, its cases, and what each case catches) is in
\`docs/course.md\`.

## Grading

\`\`\`sh
npm install
npx theinference test --stage ${course.stages[0]?.slug ?? '<slug>'} --watch
\`\`\`

Every save under \`src/\` grades the stage again, and the stages before it. Each check is a line:
\`✓\` passes; \`✗\` names what failed (\`fail\`: the output differs from \`fixtures/.../expected.json\`, shown
byte by byte; \`error\`: the output was right but the client broke the protocol; \`timeout\`, \`crash\`),
with a hint and what your program wrote on stderr. \`advice:\` is a SHOULD of the spec your client did
not follow: shown, and the check still passes. \`npx theinference list\` shows which stages pass.

One case by hand: \`./your_program.sh <command> cases/<stage>/<case>\` (the line \`run it yourself:\`
under a failure names it); it prints what is compared with that case's \`expected.json\`. One case graded:
\`npx theinference test --stage <n> --case <name>\`; every option: \`npx theinference test --help\`.

Your editor checks \`src/\` with \`tsconfig.json\` once \`npm install\` has put TypeScript beside the grader
(\`npx tsc --noEmit\` checks it in the terminal).

Every push is graded again by \`.github/workflows/grade.yml\`, as feedback: your \`src/\` with the course as
published in the grader's package (your copies of \`course.yaml\`, \`program.ts\`, \`cases/\` and \`fixtures/\`
are not used, and any you changed are named), each case in a sandbox. The job's summary shows the verdict,
and its \`results\` artifact every check. It is not your grade: every file of this repository, the workflow
too, is yours to change, so nothing here is trusted. The grade of record comes from your teacher's
repository, which takes only your \`src/\`, with cases you have not seen.
`;
}

const WORKFLOW = `# Feedback on every push: grades src/ with the course as published in the grader's package (this
# repository's copies of course.yaml, program.ts, cases/ and fixtures/ are not used; those that differ
# are named), each case in a sandbox, with no hidden or generated case. Every file of this repository,
# this one too, is the student's to change, so it holds no secret and nothing here is trusted: the
# grade of record comes from the teacher's repository, which takes only src/ (the grader's docs/ci.md,
# "Grading a class"). The verdict goes to the job's summary; results.json is kept as an artifact.
name: feedback

on:
  push:
  workflow_dispatch:

permissions:
  contents: read

jobs:
  feedback:
    runs-on: ubuntu-24.04
    timeout-minutes: 20
    steps:
      - uses: actions/checkout@v4
        with:
          persist-credentials: false
      - uses: actions/setup-node@v4
        with:
          node-version: 20
      - name: install the grader (no install script runs, this repository's or a package's)
        run: npm install --ignore-scripts --no-audit --no-fund
      - name: the sandbox (bubblewrap; Ubuntu 24.04 allows user namespaces only to programs with an AppArmor profile)
        run: |
          sudo apt-get install -y bubblewrap
          sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0
      - name: grade, as feedback (the grade of record is your teacher's)
        run: npx theinference test --feedback --all --no-network --report results.json --summary "$GITHUB_STEP_SUMMARY"
      - name: keep the report
        if: \${{ !cancelled() }}
        uses: actions/upload-artifact@v4
        with:
          name: results
          path: results.json
`;
