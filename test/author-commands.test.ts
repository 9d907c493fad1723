// The course author's and the student's other commands, run as the real binary on a course copy:
// bless writes expected.json from the reference (and nothing when the reference or a cassette is unfit), watch
// grades again on every save and stops cleanly on Ctrl-C, list shows which stages pass.
import { spawn } from 'node:child_process';
import { appendFileSync, cpSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_RUNS, WATCH_RUNS } from '../harness/defaults.ts';
import { loadCourse } from '../harness/course.ts';
import { suiteNamed } from '../harness/stages/index.ts';
import { stillRunning } from './ci/helpers.ts';
import { answerTwice, courseCopy, REPO, runCli, trimCourse } from './helpers/cli.ts';

const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});
function copy(): string {
  const dir = courseCopy();
  copies.push(dir);
  return dir;
}

/** Every expected.json of a course, path -> bytes, to see what a command changed. */
function expectedFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'expected.json') files.set(path.slice(dir.length), readFileSync(path, 'utf8'));
    }
  };
  walk(join(dir, 'fixtures'));
  return files;
}

describe('bless', () => {
  it('writes the expected.json that changed, says how, and leaves the rest alone', async () => {
    // a case of each command besides the two changed: every case through your_program.sh (tsx) would take
    // 0.3 s of CPU each, and that the reference gives every committed expected.json is the reference golden's test
    const dir = copy();
    trimCourse(dir, ['mcp-frame/numbers', 'mcp-config/no-servers']);
    const numbers = join(dir, 'cases/config-and-framing/mcp-frame/numbers/messages.json');
    writeFileSync(numbers, readFileSync(numbers, 'utf8').replace('"negative": -42', '"negative": -43'));
    const missing = join(dir, 'fixtures/config-and-framing/mcp-config/no-servers/expected.json');
    rmSync(missing);
    const before = expectedFiles(dir);
    const run = await runCli(['bless', '--stage', 'config-and-framing'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('changed  config-and-framing/mcp-frame/numbers');
    expect(run.stdout).toContain('new      config-and-framing/mcp-config/no-servers');
    expect(run.stdout).toContain('bless: 1 new (config-and-framing/mcp-config/no-servers), 1 changed (config-and-framing/mcp-frame/numbers), 2 unchanged\n');
    const after = expectedFiles(dir);
    const changed = [...after.keys()].filter((path) => before.get(path) !== after.get(path));
    expect(changed.sort()).toEqual([
      '/fixtures/config-and-framing/mcp-config/no-servers/expected.json',
      '/fixtures/config-and-framing/mcp-frame/numbers/expected.json',
    ]);
    expect(after.get('/fixtures/config-and-framing/mcp-frame/numbers/expected.json')).toContain('-43');
    expect(after.get('/fixtures/config-and-framing/mcp-config/no-servers/expected.json')).toBe('{\n  "servers": []\n}\n');
  });

  // Each unfit reference is blessed at the stage its flaw shows in, one of whose expected.json is missing.
  const missing = { 'config-and-framing': 'config-and-framing/mcp-config/no-servers', handshake: 'handshake/everything-server' };
  // ... in a trimmed copy that keeps the cases the test needs: its flaw shows in the first (in numbers, its
  // -42), the second lacks its expected.json.
  const kept = { 'config-and-framing': ['mcp-frame/numbers', 'mcp-config/no-servers'], handshake: ['everything-server'] };
  for (const [unfit, stage, edit, says] of [
    [
      'crashes',
      'config-and-framing',
      (source: string) =>
        source.replace('  return JSON.parse(line.trim());', "  if (line.includes('-42')) process.exit(3);\n  return JSON.parse(line.trim());"),
      'the reference exited with code 3',
    ],
    [
      'times out',
      'config-and-framing',
      (source: string) => source.replace('  return JSON.parse(line.trim());', "  while (line.includes('-42')) {}\n  return JSON.parse(line.trim());"),
      'the reference timed out',
    ],
    [
      'fails its property tests',
      'config-and-framing',
      (source: string) => source.replace("  return JSON.stringify(msg) + '\\n';", "  return JSON.stringify(msg).replaceAll('\\u2028', '\\\\u2028') + '\\n';"),
      'property: frame(m) is exactly JSON.stringify(m)',
    ],
    [
      'breaks the protocol of a cassette',
      'handshake',
      (source: string) => source.replace("    await this.notify('notifications/initialized');\n", ''),
      'the reference broke the protocol of its cassette',
    ],
  ] as const) {
    it(`writes nothing when the reference ${unfit}`, async () => {
      const dir = copy();
      trimCourse(dir, kept[stage]);
      writeFileSync(join(dir, 'course.yaml'), readFileSync(join(dir, 'course.yaml'), 'utf8').replaceAll('timeout: 10', 'timeout: 2'));
      const source = join(dir, 'src/mcp.ts');
      const text = readFileSync(source, 'utf8');
      expect(edit(text)).not.toBe(text);
      writeFileSync(source, edit(text));
      rmSync(join(dir, 'fixtures', missing[stage], 'expected.json'));
      const before = expectedFiles(dir);
      const run = await runCli(['bless', '--stage', stage], { cwd: dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('the reference solution is not fit to bless; nothing was written');
      expect(run.stderr).toContain(says);
      // each file named from where the author stands
      expect(run.stderr).not.toContain(dir);
      expect(expectedFiles(dir)).toEqual(before);
    });
  }

  it("writes nothing where a case's cassette is not sound, naming what lint finds there", async () => {
    const dir = copy();
    trimCourse(dir, kept.handshake);
    rmSync(join(dir, 'fixtures', missing.handshake, 'expected.json'));
    // the initialize response said twice: a response to a request already answered
    const { first, second } = answerTwice(join(dir, 'fixtures', missing.handshake, 'cassette.yaml'));
    const before = expectedFiles(dir);
    const run = await runCli(['bless', '--stage', 'handshake'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the reference solution is not fit to bless; nothing was written');
    expect(run.stderr).toContain(
      `  ✗ ${missing.handshake}: its cassette is not sound (theinference lint)\n      fixtures/${missing.handshake}/cassette.yaml:${second}: server response to id 0, but request 0 was answered already (line ${first})\n`,
    );
    expect(expectedFiles(dir)).toEqual(before);
  });
});

describe('test --watch', () => {
  it('grades at start, again on each save, and stops cleanly on Ctrl-C', async () => {
    // a case or two of each command: what is under test is when watch grades, not the stage's every case
    const dir = copy();
    trimCourse(dir, ['mcp-config/no-servers']);
    const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), 'test', '--stage', 'config-and-framing', '--watch', '--seed', '3'], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    const waiters: { text: string; resolve: () => void }[] = [];
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const waiter of waiters.filter((candidate) => output.includes(candidate.text))) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
    const seen = (text: string) => new Promise<void>((resolve) => (output.includes(text) ? resolve() : waiters.push({ text, resolve })));

    await seen('[watch] waiting for changes');
    expect(output).toContain('all graded stages pass: config-and-framing');
    // no --runs: a save's properties make watch mode's number of runs, and say so
    expect(output).toContain(
      `property tests ran with --seed 3, ${WATCH_RUNS} runs each (a save in watch mode; a grading without --watch makes ${DEFAULT_RUNS})\n`,
    );
    output = '';
    const source = join(dir, 'src/mcp.ts');
    const reference = readFileSync(source, 'utf8');
    writeFileSync(source, reference.replace("  return JSON.stringify(msg) + '\\n';", "  return JSON.stringify(msg, null, 2) + '\\n';"));
    await seen('[watch] waiting for changes');
    expect(output).toContain('src/mcp.ts changed');
    expect(output).toContain('is pretty-printed');
    expect(output).toContain(`replay: npx theinference test --stage config-and-framing --seed 3 --runs ${WATCH_RUNS}\n`);
    expect(output).toContain('stage config-and-framing fails');
    // the fix saved as vim saves: a new file renamed over the old (the saves after it are heard too)
    output = '';
    writeFileSync(`${source}.new`, reference);
    renameSync(`${source}.new`, source);
    await seen('[watch] waiting for changes');
    expect(output).toContain('all graded stages pass: config-and-framing');

    // A save whose code is the same (a comment's words, at the end: no position moves) grades nothing,
    // and says so under the grading it leaves on the screen; a comment above code moves its positions,
    // which a crash would print: that save is graded.
    output = '';
    writeFileSync(source, `${reference}// a note\n`);
    await seen('[watch] waiting for changes');
    expect(output).toMatch(/^\[watch\] .* src\/mcp\.ts changed, but not the code that runs: the grading above stands \(save a change to grade again\)$/m);
    expect(output).not.toContain('✓');
    output = '';
    writeFileSync(source, `// a note\n${reference}`);
    await seen('[watch] waiting for changes');
    expect(output).toContain('all graded stages pass: config-and-framing');
    expect(output).not.toContain('the grading above stands');

    // A save that does not compile: nothing of it runs (not the programs started ahead on the last
    // build); where it breaks is said once, with the line and a caret, and the checks not run are
    // counted; the next save grades the new code, properties too.
    output = '';
    writeFileSync(source, reference.replace("  return JSON.stringify(msg) + '\\n';", "  return JSON.stringify(msg) + '\\n;"));
    // where it breaks: that line, at its end (an unterminated string runs to it)
    const line = reference.split('\n').indexOf("  return JSON.stringify(msg) + '\\n';") + 1;
    await seen('[watch] waiting for changes');
    expect(output).toContain(`✗ src/mcp.ts:${line}:36: Unterminated string literal (your code does not compile)\n`);
    expect(output).toContain(`  ${line} |   return JSON.stringify(msg) + '\\n;\n`);
    expect(output.match(/Unterminated string literal/g)).toHaveLength(1);
    expect(output).toMatch(/^ {6}\d+ checks not run; --verbose lists them$/m);
    expect(output).toContain('stage config-and-framing fails: none of its');
    expect(output).not.toContain('✓');
    output = '';
    writeFileSync(source, reference);
    await seen('[watch] waiting for changes');
    expect(output).toContain('✓ property:');
    expect(output).toContain('all graded stages pass: config-and-framing');

    // A case added on disk is graded in the next round (a change outside src/ has the stage table read
    // again), and in the rounds after a save to src/ (which grades with the table as last read).
    const added = 'config-and-framing/mcp-config/no-servers-again';
    cpSync(join(dir, 'fixtures/config-and-framing/mcp-config/no-servers'), join(dir, 'fixtures', added), { recursive: true });
    cpSync(join(dir, 'cases/config-and-framing/mcp-config/no-servers'), join(dir, 'cases', added), { recursive: true });
    await seen('✓ mcp-config/no-servers-again');
    // the end of the round that graded it, not that of a round before: what followed the line is kept,
    // since the round's last line may have come in the same read
    output = output.slice(output.indexOf('✓ mcp-config/no-servers-again'));
    await seen('[watch] waiting for changes');
    output = '';
    writeFileSync(source, `${reference}export const saved = 1;\n`);
    await seen('[watch] waiting for changes');
    expect(output).toContain('✓ mcp-config/no-servers-again');

    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
    expect(output).toContain('[watch] stopped');
    // The programs it had started ahead for the next save end with it.
    expect(await stillRunning((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(`${dir}/.theinference/warm-start.mjs`))).toEqual([]);
  });
});

describe('list', () => {
  it('shows every stage in course order and which pass, and grades again only what changed', async () => {
    // every stage, with a case or two of each command: what is under test is which stages list grades
    const dir = courseCopy();
    trimCourse(dir);
    /** How many checks a stage has, read from the course (its cases, and its properties). */
    const checks = (slug: string): number => {
      const stage = loadCourse(dir).stages.find((candidate) => candidate.slug === slug)!;
      return stage.cases.length + (stage.properties ? suiteNamed(stage.properties)!.properties.length : 0);
    };
    const [framing, handshake, tools] = ['config-and-framing', 'handshake', 'tools'].map(checks);
    try {
      const first = await runCli(['list'], { cwd: dir });
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(new RegExp(`1\\. ✓ config-and-framing .* ${framing}/${framing} checks pass\n`));
      expect(first.stdout).toMatch(new RegExp(`2\\. ✓ handshake .* ${handshake}/${handshake} checks pass\n`));
      expect(first.stdout).toMatch(new RegExp(`3\\. ✓ tools .* ${tools}/${tools} checks pass\n`));
      const again = await runCli(['list'], { cwd: dir });
      expect(again.stdout.match(/nothing changed since/g)).toHaveLength(loadCourse(REPO).stages.length);
      // A change to one stage's fixture grades that stage again (and fails it); one to src/ grades them all.
      const expected = join(dir, 'fixtures/tools/everything-server/expected.json');
      writeFileSync(expected, readFileSync(expected, 'utf8').replace('{', '{ '));
      const fixture = await runCli(['list'], { cwd: dir });
      expect(fixture.stdout).toMatch(new RegExp(`2\\. ✓ handshake .* ${handshake}/${handshake} checks pass {2}\\(nothing changed since`));
      expect(fixture.stdout).toMatch(new RegExp(`3\\. ✗ tools .* ${tools - 1}/${tools} checks pass\n`));
      appendFileSync(join(dir, 'src/mcp.ts'), '\n// a change\n');
      const source = await runCli(['list'], { cwd: dir });
      expect(source.stdout).not.toContain('nothing changed since');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
