// `record --script`: an author records a session from a written list of steps, the official SDK
// client playing them against a real server; a script that cannot be read changes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import { cassetteCommand, EVERYTHING, ROOT } from './sdk-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'cassette-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], env: NodeJS.ProcessEnv = {}) => {
  const [command, ...rest] = cassetteCommand(...args);
  return spawnSync(command!, rest, { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env } });
};

/** The temporary folder of the runs that make setups: their own, so that other tests' setups are not seen. */
const runsTmp = mkdtempSync(join(dir, 'tmp-'));
const leftSetups = () => readdirSync(runsTmp).filter((name) => name.startsWith('theinference-setup-'));

describe('record --script', () => {
  it('records the handshake and each step, in order, from the real server; verify then finds no drift', () => {
    const script = join(dir, 'session.yaml');
    writeFileSync(
      script,
      `client: {name: course-author, version: 1.0.0}
steps:
  - tools/list
  - tools/call: {name: echo, arguments: {message: "héllo 🌍"}}
  - ping
  - tools/call: {name: no-such-tool}
`,
    );
    const out = join(dir, 'scripted.yaml');
    const recorded = run(['record', '--out', out, '--script', script, '--', ...EVERYTHING]);
    expect(recorded.status).toBe(0);
    expect(recorded.stderr).toContain('wrote');
    const client = loadCassette(out).frames.flatMap((frame) => (frame.from === 'client' ? [frame.message] : []));
    expect(client.map((message) => message.method)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'ping', 'tools/call']);
    expect(client[0]).toMatchObject({ params: { clientInfo: { name: 'course-author', version: '1.0.0' } } });
    expect(client[3]).toMatchObject({ params: { name: 'echo', arguments: { message: 'héllo 🌍' } } });
    // the unknown tool's error is the server's answer, recorded like any other
    const last = loadCassette(out).frames.at(-1)!;
    expect(last).toMatchObject({ from: 'server', message: { id: client[5]!.id } });
    const verified = run(['verify', out, '--', ...EVERYTHING]);
    expect(verified.stdout).toContain('no drift');
    expect(verified.status).toBe(0);
  });

  it('records a server over a committed folder as <setup>: no machine path, no secret, and verify makes the folder afresh', () => {
    const script = join(dir, 'files.yaml');
    writeFileSync(
      script,
      `steps:
  - tools/call: {name: list_directory, arguments: {path: "<setup>"}}
  - tools/call: {name: read_text_file, arguments: {path: "<setup>/café.md"}}
`,
    );
    const out = join(dir, 'files.yaml.cassette');
    const secret = { FILES_API_TOKEN: 'tok-files-5ecret', TMPDIR: runsTmp };
    const server = ['node', 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', '<setup>'];
    const recorded = run(['record', '--out', out, '--script', script, '--setup', 'test/fixtures/notes', '--', ...server], secret);
    expect(recorded.status).toBe(0);
    const text = readFileSync(out, 'utf8');
    const cassette = loadCassette(out);
    expect(cassette.provenance).toMatchObject({ command: server, setup: 'test/fixtures/notes' });
    expect(lintCassette(cassette)).toEqual([]); // no temporary folder's path anywhere
    expect(text).toContain('path: <setup>/café.md');
    expect(text).toContain('Café au lait, two sugars.');
    expect(text).toContain('[FILE] café.md');
    for (const said of [text, recorded.stdout, recorded.stderr]) expect(said).not.toContain('tok-files-5ecret');
    expect(leftSetups()).toEqual([]);
    const verified = run(['verify', out, '--', ...server], secret);
    expect(verified.stdout).toContain('no drift');
    expect(leftSetups()).toEqual([]);
  });

  // the SDK client would otherwise wait out its 60 s request timeout: the test's timeout bounds a hang
  it('ends the script at once when the recorder refuses to start (its folder does not exist): one line, no wait', { timeout: 30_000 }, () => {
    const script = join(dir, 'ping.yaml');
    writeFileSync(script, 'steps: [ping]\n');
    const result = run(['record', '--out', join(dir, 'nowhere', 'x.yaml'), '--script', script, '--', ...EVERYTHING]);
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining('the folder')]);
  });

  it('refuses a script it cannot read with one line naming the file, the line and what was expected, and writes nothing', () => {
    const cases: [string, RegExp][] = [
      ['steps:\n  - tools/list\n  - [not, a, step]\n', /bad\.yaml:3: steps\[1\]: expected a method \(tools\/list\) or one method with its params/],
      ['client: {name: x}\nsteps: [ping]\n', /bad\.yaml:1: client: expected \{name: <string>, version: <string>\}/],
      ['stepz: [ping]\n', /bad\.yaml:1: stepz: unknown field \(expected one of client, capabilities, roots, steps\)/],
      ['steps: [ping\n', /bad\.yaml:\d+: \(yaml\): /],
    ];
    for (const [text, says] of cases) {
      const script = join(dir, 'bad.yaml');
      writeFileSync(script, text);
      const out = join(dir, 'never.yaml');
      const result = run(['record', '--out', out, '--script', script, '--', ...EVERYTHING]);
      expect(result.status, text).toBe(2);
      expect(result.stderr.trim().split('\n'), text).toHaveLength(1);
      expect(result.stderr, text).toMatch(says);
      expect(existsSync(out), text).toBe(false);
    }
  });
});
