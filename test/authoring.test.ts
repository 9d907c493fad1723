// docs/authoring.md, walked as a new author would, on a scratch copy of the course: record the real
// filesystem server over a committed folder with a secret in the environment, lint, make a tools
// case of it, bless, grade; and nothing written or printed holds the secret or a machine path.
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../harness/cassette/format/format.ts';
import { saveCassette } from '../harness/cassette/format/save.ts';
import { asGoldenSees, courseCopy, normalise, REPO, runCli } from './helpers/cli.ts';

const course = courseCopy();
afterAll(() => rmSync(course, { recursive: true, force: true }));

const SECRET = 'tok-author-5ecret-42';
/** The new case: a name no course case has, so that the walk works on any course, this one grown too. */
const FILESYSTEM = ['node', 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '<setup>'];

/** Every file of the scratch course but its dependencies, with its text. */
function filesWritten(): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (name === 'node_modules') continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(course, path), readFileSync(path, 'latin1'));
    }
  };
  walk(course);
  return files;
}

describe('adding a case, as docs/authoring.md says', () => {
  it('records, lints, makes a tools case, blesses and grades it, leaking nothing', async () => {
    const said: string[] = [];
    const cli = async (args: string[]) => {
      const run = await runCli(args, { cwd: course, env: { FILES_API_TOKEN: SECRET } });
      said.push(run.stdout, run.stderr);
      return run;
    };
    cpSync(join(REPO, 'test/fixtures/notes'), join(course, 'test/fixtures/notes'), { recursive: true });
    mkdirSync(join(course, 'cassettes'), { recursive: true });
    const calls = [
      { name: 'list_directory', arguments: { path: '<setup>' } },
      { name: 'read_text_file', arguments: { path: '<setup>/café.md' } },
    ];
    // 1. the session, as program.ts's tools command will make it
    writeFileSync(
      join(course, 'notes-session.yaml'),
      ['steps:', '  - tools/list', ...calls.map((call) => `  - tools/call: ${JSON.stringify(call)}`), ''].join('\n'),
    );
    // an --env that looks like a secret is refused before anything starts: it would be written
    const refused = await cli(['record', '--out', 'cassettes/authored-notes.yaml', '--env', `FILES_API_TOKEN=${SECRET}`, '--', ...FILESYSTEM]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('looks like a secret');

    // 2. record
    const recorded = await cli([
      'record',
      '--out',
      'cassettes/authored-notes.yaml',
      '--script',
      'notes-session.yaml',
      '--setup',
      'test/fixtures/notes',
      '--',
      ...FILESYSTEM,
    ]);
    expect(recorded.code).toBe(0);
    // 3. lint: no machine path anywhere
    expect((await cli(['lint', 'cassettes/authored-notes.yaml'])).code).toBe(0);
    expect((await cli(['verify', 'cassettes/authored-notes.yaml'])).stdout).toContain('no drift');

    // 4. the case
    mkdirSync(join(course, 'cases/tools/authored-notes'), { recursive: true });
    writeFileSync(join(course, 'cases/tools/authored-notes/calls.json'), `${JSON.stringify(calls, null, 2)}\n`);
    writeFileSync(
      join(course, 'cases/tools/authored-notes/case.md'),
      'A folder listed and a file with a non-ASCII name read, from the real filesystem server.\n',
    );
    const cassette = loadCassette(join(course, 'cassettes/authored-notes.yaml'));
    cassette.free = [...(cassette.free ?? []), 'params.capabilities'];
    delete cassette.file;
    mkdirSync(join(course, 'fixtures/tools/authored-notes'), { recursive: true });
    saveCassette(
      { ...cassette, frames: cassette.frames.map(({ line: _line, ...frame }) => frame) },
      join(course, 'fixtures/tools/authored-notes/cassette.yaml'),
    );

    // 5. bless, grade
    const blessed = await cli(['bless', '--stage', 'tools']);
    expect(blessed.code).toBe(0);
    expect(blessed.stdout).toContain('new      tools/authored-notes');
    const expected = readFileSync(join(course, 'fixtures/tools/authored-notes/expected.json'), 'utf8');
    expect(expected).toContain('Café au lait, two sugars.');
    expect(expected).toContain('[FILE] café.md');
    // the case's stage and those before it: the stages after it have nothing of the new case
    const graded = await cli(['test', '--stage', 'tools', '--seed', '7']);
    expect(graded.code).toBe(0);
    expect(graded.stdout).toMatch(/✓ authored-notes\b/);
    // 6. the suite needs no edit: its recorded output of the reference still holds for each stage graded, the new case aside
    const output = stageBlocks(normalise(graded.stdout));
    const golden = stageBlocks(readFileSync(join(REPO, 'test/golden/reference.txt'), 'utf8'));
    expect([...output.keys()]).toEqual(['tools · tools', 'handshake · the handshake', 'config-and-framing · .mcp.json + framing']);
    for (const [heading, block] of output) {
      const [seen, recorded] = asGoldenSees(block, golden.get(heading)!);
      expect(seen).toBe(recorded);
      expect(seen).not.toContain('authored-notes');
    }
    // ...while a check it has that now says otherwise still fails it
    const tools = golden.get('tools · tools')!;
    const [changed] = asGoldenSees(output.get('tools · tools')!.replace('✓ everything-server', '✗ everything-server'), tools);
    expect(changed).not.toBe(tools);

    // nothing holds the secret, nor the temporary folder a setup was copied to
    for (const [file, text] of filesWritten()) {
      expect(text.includes(SECRET), file).toBe(false);
      expect(/theinference-setup-/.test(text), file).toBe(false);
    }
    for (const text of said) expect(text.includes(SECRET)).toBe(false);
  });
});

/** The grader's output by stage: each heading with its lines, up to the blank line that ends them. */
function stageBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const block of text.split('\n\n')) {
    const heading = block.split('\n')[0]!;
    if (/^\S.* · /.test(heading)) blocks.set(heading, block);
  }
  return blocks;
}
