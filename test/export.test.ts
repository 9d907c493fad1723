// `theinference export`: the student's repository from the course. What is in it (the course's files,
// the starter, a package.json on this grader, the workflow) and what is not (the reference, the
// scripts, the tests, the recordings); graded there, the starter fails stage 1 as a student first sees
// it and the reference dropped in passes every stage; an export over an older one leaves src/ alone.
// An editor works there: its tsconfig.json names only what it holds, its package.json what checking src/
// needs, program.ts checks with the stages' contracts it imports, and every page its docs name is in it.
// Its workflow, run step by step as CI runs it, installs the packed grader running no script of the
// student's, and grades a push with the course as published in the grader's package, as feedback.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { referenceIn } from '../harness/commands/export.ts';
import type { ResultsReport } from '../harness/report/model.ts';
import { scratchCopy } from '../harness/run/submission.ts';
import { REPO, runCli, trimCourse } from './helpers/cli.ts';
import { STAGES } from './helpers/scenarios.ts';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const scratch = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};

/** Every file under `dir` but node_modules, relative to it, sorted. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .filter((path) => !path.startsWith('node_modules'))
    .sort();
}

/** A copy of the course with what export reads (the starter and tsconfig.json too). */
function courseWithStarter(): string {
  const dir = scratch('course-');
  for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'tsconfig.json', 'package.json', 'docs', 'src', 'starter', 'cases', 'fixtures']) {
    cpSync(join(REPO, part), join(dir, part), { recursive: true });
  }
  return dir;
}

/** What the export's package.json gives an editor, at the versions this repository is checked with. */
const EDITOR_PACKAGES = (() => {
  const { devDependencies } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  return { typescript: devDependencies.typescript!, '@types/node': devDependencies['@types/node']! };
})();

/** The files a Markdown page names, relative to the repository: its relative links (from `folder`, the
 *  page's own), and the paths it writes out as `docs/<page>.md` (from the repository's root). */
function pagesNamed(text: string, folder: string): string[] {
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((match) => match[1]!.split('#')[0]!)
    .filter((target) => target !== '' && !/^[a-z]+:/i.test(target))
    .map((target) => join(folder, target));
  const written = [...text.matchAll(/(?<![\w/.-])docs\/[\w.-]+\.md\b/g)].map((match) => match[0]);
  return [...new Set([...links, ...written])];
}

const REFERENCE = readFileSync(join(REPO, 'src/mcp.ts'), 'utf8');
const STARTER = readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8');

describe('theinference export', () => {
  it("writes the course's files, the starter and a package on this grader, nothing of the reference, and grades the starter there", async () => {
    const target = join(scratch('export-'), 'student');
    const run = await runCli(['export', target]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const files = filesOf(target);
    const courseParts = (folder: string) => filesOf(join(REPO, folder)).map((path) => join(folder, path));
    expect(files).toEqual(
      [
        '.github/workflows/grade.yml',
        '.gitignore',
        'README.md',
        'course.yaml',
        'docs/cassettes.md',
        'docs/conformance.md',
        'docs/course.md',
        'package.json',
        'program.ts',
        'src/mcp.ts',
        'tsconfig.json',
        'your_program.sh',
        ...courseParts('cases'),
        ...courseParts('fixtures'),
        // the stages' contracts, which program.ts imports, and the JSON they are made of; nothing else of the harness
        'harness/json.ts',
        ...courseParts('harness/stages').filter((path) => basename(path) === 'contract.ts'),
      ].sort(),
    );
    expect(readFileSync(join(target, 'src/mcp.ts'), 'utf8')).toBe(readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8'));
    expect(statSync(join(target, 'your_program.sh')).mode & 0o111).not.toBe(0);
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
    expect(pkg.devDependencies).toEqual({ theinference: `^${version}`, ...EDITOR_PACKAGES });
    expect(pkg.dependencies).toBeUndefined();
    // the reference's code is in no file: a function body of it only the reference has
    const body = REFERENCE.slice(REFERENCE.indexOf('async function* readEvents'), REFERENCE.indexOf('async function* readEvents') + 300);
    for (const file of files) expect(readFileSync(join(target, file), 'utf8'), file).not.toContain(body);
    // the README names every stage, in order
    const readme = readFileSync(join(target, 'README.md'), 'utf8');
    expect(readme).toMatch(/1\. `config-and-framing`[\s\S]*2\. `handshake`[\s\S]*6\. `stateless`/);
    // and points to the stages' pages, which the starter's comments name too
    expect(readme).toContain('`docs/course.md`');
    for (const page of ['course.md', 'cassettes.md', 'conformance.md'])
      expect(readFileSync(join(target, 'docs', page), 'utf8'), page).toBe(readFileSync(join(REPO, 'docs', page), 'utf8'));

    // graded there (the grader's packages beside it, as npm install puts them)
    symlinkSync(join(REPO, 'node_modules'), join(target, 'node_modules'), 'dir');
    const starter = await runCli(['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '3'], { cwd: target });
    expect(starter.code).toBe(1);
    expect(starter.stdout).toContain('not implemented yet: frame (stage config-and-framing)');
  });

  it("makes the editor work there: a tsconfig.json with the course's compiler options over only what the export holds, what it needs installed, and every page its docs name", async () => {
    const target = join(scratch('export-'), 'student');
    expect((await runCli(['export', target])).code).toBe(0);
    const tsconfig = JSON.parse(readFileSync(join(target, 'tsconfig.json'), 'utf8')) as { compilerOptions: { types?: string[] }; include: string[] };
    const course = JSON.parse(readFileSync(join(REPO, 'tsconfig.json'), 'utf8')) as { compilerOptions: object; include: string[] };
    expect(tsconfig.compilerOptions).toEqual(course.compilerOptions);
    expect(tsconfig.include).toEqual(expect.arrayContaining(['program.ts', 'src']));
    for (const path of tsconfig.include) expect(existsSync(join(target, path)), `tsconfig.json includes ${path}`).toBe(true);
    // its types are installed with the rest (npm install: the export's devDependencies)
    const types = tsconfig.compilerOptions.types ?? [];
    expect(types).toEqual(['node']);
    const devDependencies = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
    for (const name of types) expect(devDependencies[`@types/${name}`], `@types/${name}`).toBeDefined();
    expect(devDependencies.typescript).toBeDefined();
    // every page the docs point to, as a link or by its path (`docs/cassettes.md`), is in the export
    const pages = filesOf(target).filter((path) => path.endsWith('.md'));
    const named = pages.flatMap((page) => pagesNamed(readFileSync(join(target, page), 'utf8'), dirname(page)).map((path) => ({ page, path })));
    expect(named.map(({ path }) => path)).toEqual(expect.arrayContaining(['docs/course.md', 'docs/cassettes.md', 'docs/conformance.md']));
    for (const { page, path } of named) expect(existsSync(join(target, path)), `${page} names ${path}`).toBe(true);
    // program.ts checks there as here: the stages' contracts it imports (types only) are published beside it
    symlinkSync(join(REPO, 'node_modules'), join(target, 'node_modules'), 'dir');
    const checked = spawnSync(process.execPath, [join(REPO, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', target], { encoding: 'utf8' });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);

    // `test --feedback` holds the repository's tsconfig.json to the one made for it, not to the course's own
    const compared = () => {
      const copy = scratchCopy(REPO, target, 'published');
      copy.remove();
      return copy.facts.changedOutsideSrc;
    };
    expect(compared()).toEqual([]);
    writeFileSync(join(target, 'tsconfig.json'), readFileSync(join(REPO, 'tsconfig.json')));
    expect(compared()).toEqual([{ path: 'tsconfig.json', change: 'modified' }]);
  });

  it("over an earlier export updates the course's files, leaves src/ alone, and says what changed", async () => {
    const course = courseWithStarter();
    const target = join(scratch('export-'), 'student');
    expect((await runCli(['export', target], { cwd: course })).code).toBe(0);
    writeFileSync(join(target, 'src/mcp.ts'), '// the student was here\n');
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    // the student added a package; and this export is older than the editor's packages: it had none
    writeFileSync(
      join(target, 'package.json'),
      JSON.stringify({ ...pkg, devDependencies: { theinference: pkg.devDependencies.theinference, prettier: '^3' } }),
    );
    // the course changes: a case edited, one gone
    writeFileSync(join(course, 'cases/config-and-framing/mcp-frame/empty-values/messages.json'), '[]\n');
    rmSync(join(course, 'cases/config-and-framing/mcp-config/no-servers'), { recursive: true });
    rmSync(join(course, 'fixtures/config-and-framing/mcp-config/no-servers'), { recursive: true });
    const again = await runCli(['export', target, '--grader', '2.0.0'], { cwd: course });
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('changed cases/config-and-framing/mcp-frame/empty-values/messages.json');
    expect(again.stdout).toContain('removed cases/config-and-framing/mcp-config/no-servers/.mcp.json');
    expect(again.stdout).toContain('changed package.json');
    expect(readFileSync(join(target, 'src/mcp.ts'), 'utf8')).toBe('// the student was here\n');
    expect(existsSync(join(target, 'cases/config-and-framing/mcp-config/no-servers'))).toBe(false);
    expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).devDependencies).toEqual({
      theinference: '2.0.0',
      ...EDITOR_PACKAGES,
      prettier: '^3',
    });
    expect((await runCli(['export', target, '--grader', '2.0.0'], { cwd: course })).stdout).toContain('is up to date');
  });

  it('--grader <tarball> copies it in and depends on the copy; a path that is not there, or a tarball with the reference, writes nothing', async () => {
    // a tarball as npm pack makes one: the package under package/
    const dir = scratch('grader-');
    const tarballOf = (name: string, files: Record<string, string>) => {
      const package_ = join(dir, `${name}-files`, 'package');
      for (const [path, content] of Object.entries(files)) {
        mkdirSync(join(package_, dirname(path)), { recursive: true });
        writeFileSync(join(package_, path), content);
      }
      execFileSync('tar', ['-czf', join(dir, name), '-C', dirname(package_), 'package']);
    };
    tarballOf('theinference-9.9.9.tgz', { 'package.json': '{"name":"theinference","version":"9.9.9"}\n' });
    // named as a course author would, from the course: a path relative to it
    const target = join(dir, 'student');
    const run = await runCli(['export', target, '--grader', relative(REPO, join(dir, 'theinference-9.9.9.tgz'))]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(join(target, 'theinference-9.9.9.tgz')).equals(readFileSync(join(dir, 'theinference-9.9.9.tgz')))).toBe(true);
    expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).devDependencies).toEqual({
      theinference: 'file:theinference-9.9.9.tgz',
      ...EDITOR_PACKAGES,
    });

    const nowhere = join(dir, 'nowhere');
    const missing = await runCli(['export', nowhere, '--grader', 'file:../theinference-0.0.1.tgz']);
    expect({ code: missing.code, stderr: missing.stderr }).toEqual({
      code: 2,
      stderr:
        'theinference export: export: --grader file:../theinference-0.0.1.tgz: no such file: give a tarball from npm pack (it is copied into the export) or an npm spec (^1.2.0, a git URL)\n',
    });
    expect(existsSync(nowhere)).toBe(false);

    tarballOf('with-reference.tgz', { 'package.json': '{}\n', 'src/mcp.ts': REFERENCE });
    const refused = await runCli(['export', nowhere, '--grader', join(dir, 'with-reference.tgz')]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /^theinference export: export: with-reference\.tgz holds the reference solution's code \(src\/mcp\.ts near line \d+\): nothing was written\n$/,
    );
    expect(existsSync(nowhere)).toBe(false);
  });

  it("refuses, writing nothing, where the reference's text would land or a file is not the course's own", async () => {
    const sameAsReference = courseWithStarter();
    writeFileSync(join(sameAsReference, 'starter/src/mcp.ts'), REFERENCE);
    const target = join(scratch('export-'), 'student');
    const refused = await runCli(['export', target], { cwd: sameAsReference });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe('theinference export: export: src/mcp.ts would be the reference solution (src/mcp.ts): nothing was written\n');
    expect(existsSync(target)).toBe(false);

    // a fixture that is a link (to anything outside the course)
    const linked = courseWithStarter();
    symlinkSync('/etc/hostname', join(linked, 'fixtures/config-and-framing/mcp-config/no-servers/extra.json'));
    const out = await runCli(['export', target], { cwd: linked });
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('fixtures/config-and-framing/mcp-config/no-servers/extra.json is not a regular file (a link?)');
    expect(existsSync(target)).toBe(false);

    // run where there is no course
    const nowhere = scratch('no-course-');
    const lost = await runCli(['export', 'student'], { cwd: nowhere });
    expect({ code: lost.code, stderr: lost.stderr }).toEqual({
      code: 2,
      stderr: `theinference export: no course.yaml in ${nowhere} or any folder above it: run theinference in the course directory\n`,
    });
    expect(existsSync(join(nowhere, 'student'))).toBe(false);
  });
});

// The grader as a student gets it: packed (npm pack), installed from the tarball into an export with
// no install script run, and run there from node_modules/.bin as the workflow's npx runs it.
describe('the packed grader, installed in an export', () => {
  let dir: string;
  let tarball: string;
  let target: string;
  let bin: string;
  beforeAll(() => {
    dir = scratch('pack-');
    // packed from a copy: npm pack builds lib/ (prepare), which the other tests' graders may be loading
    // here. The copy has the reference in src/, as the course's repository has: it must stay out.
    const source = join(dir, 'grader');
    for (const part of [
      'bin',
      'harness',
      // what the pack's own build runs (prepare), where lib/ is older than harness/ (someone editing it)
      'scripts',
      'docs',
      'README.md',
      'package.json',
      'your_program.sh',
      'tsconfig.json',
      'tsconfig.build.json',
      'course.yaml',
      'program.ts',
      'cases',
      'fixtures',
      'starter',
      'src',
    ]) {
      cpSync(join(REPO, part), join(source, part), { recursive: true });
    }
    // A case of each command: what is under test is the package, its install and its workflow, not
    // every case (that the reference passes them all, and the starter none, is grader.test.ts's).
    trimCourse(source);
    symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
    // lib/ built after the last change to harness/ (npm ci's prepare built it) is what the pack's own
    // build would make: copied, the pack runs no script; else it builds (prepare), as it would publish
    const built = libIsCurrent();
    if (built) cpSync(join(REPO, 'lib'), join(source, 'lib'), { recursive: true });
    const pack = spawnSync('npm', ['pack', '--pack-destination', dir, '--silent', ...(built ? ['--ignore-scripts'] : [])], { cwd: source, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    tarball = join(dir, pack.stdout.trim().split('\n').at(-1)!);
    // exported as a course author does, from the course (the one packed), naming the tarball by a path relative to it: it is copied into the export
    target = join(dir, 'student');
    const exported = spawnSync(process.execPath, [join(REPO, 'bin/theinference.js'), 'export', target, '--grader', relative(source, tarball)], {
      cwd: source,
      encoding: 'utf8',
    });
    expect(exported.status, exported.stderr).toBe(0);
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    expect(pkg.devDependencies).toEqual({ theinference: `file:${basename(tarball)}`, ...EDITOR_PACKAGES });
    // The student's own install scripts, which would run before the grader (and see what the job gives it).
    const mark = (name: string) => `node -e "require('node:fs').writeFileSync('${name}-ran', '')"`;
    const scripts = { preinstall: mark('preinstall'), install: mark('install'), postinstall: mark('postinstall'), prepare: mark('prepare') };
    writeFileSync(join(target, 'package.json'), JSON.stringify({ ...pkg, scripts: { ...pkg.scripts, ...scripts } }, null, 2));
    // installed as the workflow installs it: its own step, run as GitHub runs it (bash -e)
    const install = spawnSync('bash', ['-e', '-c', workflowStep('install').run!], { cwd: target, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    bin = join(target, 'node_modules/.bin/theinference');
  });

  /** The step of the export's workflow whose name starts with `name`. */
  function workflowStep(name: string): { name?: string; run?: string } {
    const workflow = parse(readFileSync(join(target, '.github/workflows/grade.yml'), 'utf8')) as {
      jobs: Record<string, { steps: { name?: string; run?: string }[] }>;
    };
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const found = steps.find((each) => each.name?.startsWith(name));
    if (!found) throw new Error(`the workflow has no step "${name}..." (it has ${steps.map((each) => each.name).join(', ')})`);
    return found;
  }

  it("installs with the workflow's own step, which runs no install script of the student's", () => {
    expect(existsSync(join(target, 'node_modules/theinference/package.json'))).toBe(true);
    expect(readdirSync(target).filter((name) => name.endsWith('-ran'))).toEqual([]);
  });

  it("holds the course as published (course.yaml, program.ts, cases/, fixtures/, starter/), and no file with the reference's code", () => {
    const unpacked = join(dir, 'unpacked');
    mkdirSync(unpacked);
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    const files = filesOf(join(unpacked, 'package'));
    const courseParts = (folder: string) => filesOf(join(dir, 'grader', folder)).map((path) => join(folder, path));
    for (const file of ['course.yaml', 'program.ts', 'your_program.sh', 'tsconfig.json', 'docs/course.md', 'starter/src/mcp.ts']) expect(files).toContain(file);
    for (const folder of ['cases', 'fixtures']) expect(files.filter((file) => file.startsWith(`${folder}/`))).toEqual(courseParts(folder));
    expect(files.filter((file) => file.startsWith('src/'))).toEqual([]);
    // the check finds the reference where it is, and finds it in no file of the package
    expect(referenceIn(REFERENCE, REFERENCE, STARTER)).toBeDefined();
    const holding = files.filter((file) => referenceIn(readFileSync(join(unpacked, 'package', file), 'utf8'), REFERENCE, STARTER) !== undefined);
    expect(holding).toEqual([]);
  });

  it('starts compiled, with no install script run, and fails the starter with the message a student first sees', () => {
    // compiled: the installed bin loads lib/, whatever times the unpacking gave the files (a source of
    // the harness made unloadable shows it: through tsx, the run would fail)
    const grader = join(target, 'node_modules/theinference');
    expect(existsSync(join(grader, 'lib/cli.js'))).toBe(true);
    const source = readFileSync(join(grader, 'harness/cli.ts'), 'utf8');
    writeFileSync(join(grader, 'harness/cli.ts'), 'throw new Error("loaded from source");\n');
    try {
      const starter = spawnSync(bin, ['test', '--stage', 'config-and-framing', '--runs', '20'], {
        cwd: target,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(starter.status).toBe(1);
      expect(starter.stdout).toContain('crash: exited with code 1: Error: not implemented yet: frame (stage config-and-framing)');
    } finally {
      writeFileSync(join(grader, 'harness/cli.ts'), source);
    }
  });

  // every stage is graded there in CI mode by the workflow's test below; here, a student's own run
  it('passes the stages with the reference dropped into src/, as a student grades', () => {
    const source = join(target, 'src/mcp.ts');
    const starter = readFileSync(source, 'utf8');
    writeFileSync(source, REFERENCE);
    try {
      const reference = spawnSync(bin, ['test', '--stage', 'tools', '--runs', '20', '--seed', '3'], {
        cwd: target,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(reference.stdout).toMatch(/^all graded stages pass: tools, handshake, config-and-framing$/m);
      expect(reference.status).toBe(0);
    } finally {
      writeFileSync(source, starter);
    }
  });

  it('keeps watching through a save that does not compile: that save is one verdict and runs nothing, the next passes', async () => {
    const source = join(target, 'src/mcp.ts');
    const starter = readFileSync(source, 'utf8');
    writeFileSync(source, REFERENCE);
    const child = spawn(bin, ['test', '--stage', 'config-and-framing', '--watch', '--runs', '20', '--seed', '3'], {
      cwd: target,
      env: { ...process.env, NO_COLOR: '1' },
    });
    try {
      const output = watched(child);
      await output.round();
      expect(output.take()).toContain('all graded stages pass: config-and-framing');
      const broken = "  return JSON.stringify(msg) + '\\n';";
      expect(REFERENCE).toContain(broken);
      writeFileSync(source, REFERENCE.replace(broken, "  return JSON.stringify(msg) + '\\n;"));
      await output.round();
      const failed = output.take();
      expect(failed).toMatch(/✗ src\/mcp\.ts:\d+:\d+: Unterminated string literal \(your code does not compile\)/);
      expect(failed).not.toContain('✓');
      writeFileSync(source, REFERENCE);
      await output.round();
      const passed = output.take();
      expect(passed).toContain('✓ property:');
      expect(passed).toContain('all graded stages pass: config-and-framing');
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGINT');
      expect(await exit).toBe(0);
    } finally {
      child.kill('SIGKILL');
      writeFileSync(source, starter);
    }
  });

  /** The workflow's grading step run as GitHub runs it (bash -e, the summary's file in GITHUB_STEP_SUMMARY), on `source` as src/mcp.ts. */
  function gradePush(source: string, env: NodeJS.ProcessEnv = {}) {
    const summary = join(dir, 'summary.md');
    rmSync(summary, { force: true });
    rmSync(join(target, 'results.json'), { force: true });
    const path = join(target, 'src/mcp.ts');
    const before = readFileSync(path, 'utf8');
    writeFileSync(path, source);
    try {
      const run = spawnSync('bash', ['-e', '-c', workflowStep('grade').run!], {
        cwd: target,
        encoding: 'utf8',
        env: { ...process.env, NO_COLOR: '1', GITHUB_STEP_SUMMARY: summary, ...env },
      });
      const results = existsSync(join(target, 'results.json')) ? (JSON.parse(readFileSync(join(target, 'results.json'), 'utf8')) as ResultsReport) : undefined;
      return { ...run, summary: existsSync(summary) ? readFileSync(summary, 'utf8') : undefined, results };
    } finally {
      writeFileSync(path, before);
    }
  }

  const FEEDBACK =
    /feedback: graded with the course as published in theinference \S+, without hidden or generated cases; the grade of record is your teacher's\./;

  it('grades a push as its workflow does, with no secret and no hidden case: green for the reference; red for the starter, its summary saying why and that it is feedback, whatever its program.ts and course.yaml say (they are named)', () => {
    const workflow = readFileSync(join(target, '.github/workflows/grade.yml'), 'utf8');
    expect(workflow).not.toMatch(/secrets|HIDDEN_CASES|--cases|--submission/);

    const green = gradePush(REFERENCE);
    expect(green.status, green.stderr).toBe(0);
    expect(green.stdout).toContain("feedback: graded with the course as published in theinference 0.1.0, not this repository's copy of it");
    expect(green.stdout).toContain("no generated cases: their expected outputs come from the course's reference solution, which is not published");
    expect(green.results).toMatchObject({ status: 'pass', feedback: true, hiddenCases: 0, generatedCases: 0, sandbox: 'bwrap' });
    expect(green.results!.stages.map((stage) => stage.status)).toEqual(STAGES.map(() => 'pass'));
    // the export's own files (its README, package.json, workflow, the grader's tarball) are not the course's
    expect(green.results!.submission.changedOutsideSrc).toEqual([]);
    expect(green.summary).toMatch(/^## theinference: every graded stage passes\n/);
    expect(green.summary).toMatch(FEEDBACK);

    // the starter, pushed with program.ts printing each public case's expected output and course.yaml cut to
    // stage 1: red all the same, graded with the course as published, and the two files named
    const table: Record<string, string> = {};
    for (const folder of ['config-and-framing/mcp-frame', 'config-and-framing/mcp-config']) {
      for (const name of readdirSync(join(REPO, 'cases', folder))) {
        const caseDir = join(REPO, 'cases', folder, name);
        const input = readdirSync(caseDir)
          .sort()
          .map((file) => readFileSync(join(caseDir, file), 'utf8'))
          .join('\0');
        table[input] = readFileSync(join(REPO, 'fixtures', folder, name, 'expected.json'), 'utf8');
      }
    }
    const cheat = `import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
const table: Record<string, string> = ${JSON.stringify(table)};
const dir = process.argv[3]!;
process.stdout.write(table[readdirSync(dir).sort().map((file) => readFileSync(join(dir, file), 'utf8')).join('\\0')] ?? '');
`;
    const course = parse(readFileSync(join(target, 'course.yaml'), 'utf8')) as { stages: { properties?: string }[] };
    const [first] = course.stages;
    delete first!.properties;
    const edited = { 'program.ts': cheat, 'course.yaml': stringify({ ...course, stages: [first] }) };
    const kept = Object.fromEntries(Object.keys(edited).map((name) => [name, readFileSync(join(target, name), 'utf8')]));
    for (const [name, content] of Object.entries(edited)) writeFileSync(join(target, name), content);
    try {
      const red = gradePush(STARTER);
      expect(red.status, red.stderr).toBe(1);
      expect(red.results).toMatchObject({ status: 'fail', feedback: true });
      expect(red.summary).toMatch(FEEDBACK);
      expect(red.summary).toContain('| config\\-and\\-framing | \\.mcp\\.json \\+ framing | ❌ fail |');
      expect(red.summary).toMatch(
        /### first failure: ` mcp-frame\/\S+ `\n\ncrash: ` exited with code 1: Error: not implemented yet: frame \(stage config-and-framing\) `\n/,
      );
      expect(red.results!.stages.map((stage) => stage.slug)).toEqual(
        parse(readFileSync(join(REPO, 'course.yaml'), 'utf8')).stages.map((stage: { slug: string }) => stage.slug),
      );
      expect(red.results!.submission.changedOutsideSrc).toEqual([
        { path: 'course.yaml', change: 'modified' },
        { path: 'program.ts', change: 'modified' },
      ]);
      expect(red.stdout).toContain(
        "course files of this repository that differ from the published course's, not used in grading: course.yaml (modified), program.ts (modified)",
      );
      expect(red.summary).toContain(
        "course files of this repository that differ from the published course's, not used in grading:\n\n- ` course.yaml ` (modified)\n- ` program.ts ` (modified)\n",
      );
    } finally {
      for (const [name, content] of Object.entries(kept)) writeFileSync(join(target, name), content);
    }
  });

  it('a push that cannot be graded (no sandbox here) ends in exit 2 with the reason in its summary', () => {
    const bin = join(dir, 'no-namespaces');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'bwrap'), '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
    const stopped = gradePush(STARTER, { PATH: `${bin}:${process.env.PATH}` });
    expect(stopped.status).toBe(2);
    const reason = stopped.stderr.match(/^theinference test: (no sandbox can be made here .*)\n/)?.[1];
    expect(reason).toBeDefined();
    expect(stopped.summary).toMatch(FEEDBACK);
    expect(stopped.summary).toContain(`not graded to the end:\n\n- \` ${reason} \`\n`);
    expect(stopped.results).toMatchObject({ status: 'error', exitCode: 2, feedback: true, problems: [reason] });
  });
});

/** A watch session's output, round by round: `round()` resolves at the next "[watch] waiting for
 *  changes" after the last one taken; `take()` gives what came up to it and starts the next. */
function watched(child: ReturnType<typeof spawn>) {
  let output = '';
  let waiting: (() => void) | undefined;
  const marker = '[watch] waiting for changes';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes(marker)) waiting?.();
  });
  return {
    round: () => new Promise<void>((resolve) => (output.includes(marker) ? resolve() : (waiting = resolve))),
    take: () => {
      const end = output.indexOf(marker) + marker.length;
      const taken = output.slice(0, end);
      output = output.slice(end);
      return taken;
    },
  };
}

/** The repository's lib/ was built after the last change to any file of harness/ (as bin/theinference.js asks). */
function libIsCurrent(): boolean {
  const compiled = join(REPO, 'lib', 'cli.js');
  if (!existsSync(compiled)) return false;
  const built = statSync(compiled).mtimeMs;
  const harness = join(REPO, 'harness');
  return readdirSync(harness, { recursive: true, encoding: 'utf8' }).every((file) => !file.endsWith('.ts') || statSync(join(harness, file)).mtimeMs <= built);
}
