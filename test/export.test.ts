// `theinference export`: the student's repository from the course. What is in it (the course's files,
// the starter, a package.json on this grader, the workflow) and what is not (the reference, the
// scripts, the tests, the recordings); graded there, the starter fails stage 1 as a student first sees
// it and the reference dropped in passes every stage; an export over an older one leaves src/ alone.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runCli } from './helpers/cli.ts';

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
  for (const part of ['course.yaml', 'program.ts', 'your_program.sh', 'tsconfig.json', 'package.json', 'src', 'starter', 'cases', 'fixtures']) {
    cpSync(join(REPO, part), join(dir, part), { recursive: true });
  }
  return dir;
}

const REFERENCE = readFileSync(join(REPO, 'src/mcp.ts'), 'utf8');

describe('theinference export', () => {
  it("writes the course's files, the starter and a package on this grader, nothing of the reference, and is graded there as a student is", async () => {
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
        'package.json',
        'program.ts',
        'src/mcp.ts',
        'tsconfig.json',
        'your_program.sh',
        ...courseParts('cases'),
        ...courseParts('fixtures'),
      ].sort(),
    );
    expect(readFileSync(join(target, 'src/mcp.ts'), 'utf8')).toBe(readFileSync(join(REPO, 'starter/src/mcp.ts'), 'utf8'));
    expect(statSync(join(target, 'your_program.sh')).mode & 0o111).not.toBe(0);
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    const version = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version;
    expect(pkg.devDependencies).toEqual({ theinference: `^${version}` });
    expect(pkg.dependencies).toBeUndefined();
    // the reference's code is in no file: a function body of it only the reference has
    const body = REFERENCE.slice(REFERENCE.indexOf('async function* readEvents'), REFERENCE.indexOf('async function* readEvents') + 300);
    for (const file of files) expect(readFileSync(join(target, file), 'utf8'), file).not.toContain(body);
    // the README names every stage, in order
    const readme = readFileSync(join(target, 'README.md'), 'utf8');
    expect(readme).toMatch(/1\. `config-and-framing`[\s\S]*2\. `handshake`[\s\S]*6\. `stateless`/);

    // graded there (the grader's packages beside it, as npm install puts them)
    symlinkSync(join(REPO, 'node_modules'), join(target, 'node_modules'), 'dir');
    const starter = await runCli(['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '3'], { cwd: target });
    expect(starter.code).toBe(1);
    expect(starter.stdout).toContain('not implemented yet: frame (stage config-and-framing)');
    // the workflow's grading command, as CI runs it: a summary of the stages
    const summary = join(target, 'summary.md');
    const ci = await runCli(
      ['test', '--all', '--submission', '.', '--random', '0', '--runs', '20', '--seed', '3', '--report', 'results.json', '--summary', summary],
      {
        cwd: target,
      },
    );
    expect(ci.code).toBe(1);
    expect(readFileSync(summary, 'utf8')).toMatch(/\| config-and-framing \| \.mcp\.json \+ framing \| ❌ (fail|crash) \|/);
    writeFileSync(join(target, 'src/mcp.ts'), REFERENCE);
    const reference = await runCli(['test', '--runs', '20', '--seed', '3'], { cwd: target });
    expect(reference.stdout).toMatch(/^all graded stages pass: config-and-framing, handshake, tools, streamable-http, translate, stateless$/m);
    expect(reference.code).toBe(0);
  });

  it('packs the grader (npm pack) into a tarball that installs in the export with no install script, and starts compiled', async () => {
    const dir = scratch('pack-');
    // packed from a copy: npm pack builds lib/ (prepare), which the other tests' graders may be loading here
    const source = join(dir, 'grader');
    for (const part of ['bin', 'harness', 'docs', 'README.md', 'package.json', 'your_program.sh', 'tsconfig.json', 'tsconfig.build.json']) {
      cpSync(join(REPO, part), join(source, part), { recursive: true });
    }
    symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
    const pack = spawnSync('npm', ['pack', '--pack-destination', dir, '--silent'], { cwd: source, encoding: 'utf8' });
    expect(pack.status, pack.stderr).toBe(0);
    const tarball = join(dir, pack.stdout.trim().split('\n').at(-1)!);
    const target = join(dir, 'student');
    expect((await runCli(['export', target, '--grader', `file:${tarball}`])).code).toBe(0);
    const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: target, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    // compiled: the installed bin loads lib/, whatever times the unpacking gave the files (a source of
    // the harness made unloadable shows it: through tsx, the run would fail)
    const grader = join(target, 'node_modules/theinference');
    expect(existsSync(join(grader, 'lib/cli.js'))).toBe(true);
    writeFileSync(join(grader, 'harness/cli.ts'), 'throw new Error("loaded from source");\n');
    const starter = spawnSync(join(target, 'node_modules/.bin/theinference'), ['test', '--stage', 'config-and-framing', '--runs', '20'], {
      cwd: target,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(starter.status).toBe(1);
    expect(starter.stdout).toContain('crash: exited with code 1: Error: not implemented yet: frame (stage config-and-framing)');
  });

  it("over an earlier export updates the course's files, leaves src/ alone, and says what changed", async () => {
    const course = courseWithStarter();
    const target = join(scratch('export-'), 'student');
    expect((await runCli(['export', target], { cwd: course })).code).toBe(0);
    writeFileSync(join(target, 'src/mcp.ts'), '// the student was here\n');
    const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
    writeFileSync(join(target, 'package.json'), JSON.stringify({ ...pkg, devDependencies: { ...pkg.devDependencies, prettier: '^3' } }));
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
    expect(JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).devDependencies).toEqual({ theinference: '2.0.0', prettier: '^3' });
    expect((await runCli(['export', target, '--grader', '2.0.0'], { cwd: course })).stdout).toContain('is up to date');
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
  });
});
