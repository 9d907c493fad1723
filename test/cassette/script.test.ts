// `record --script`: an author records a session from a written list of steps, the official SDK
// client playing them against a real server; a script that cannot be read changes nothing.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format.ts';
import { cassetteCommand, EVERYTHING, ROOT } from './sdk-session.ts';

const dir = mkdtempSync(join(tmpdir(), 'cassette-script-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args: string[]) => {
  const [command, ...rest] = cassetteCommand(...args);
  return spawnSync(command!, rest, { cwd: ROOT, encoding: 'utf8' });
};

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
    const recorded = run('record', '--out', out, '--script', script, '--', ...EVERYTHING);
    expect(recorded.status).toBe(0);
    expect(recorded.stderr).toContain('wrote');
    const client = loadCassette(out).frames.flatMap((frame) => (frame.from === 'client' ? [frame.message] : []));
    expect(client.map((message) => message.method)).toEqual(['initialize', 'notifications/initialized', 'tools/list', 'tools/call', 'ping', 'tools/call']);
    expect(client[0]).toMatchObject({ params: { clientInfo: { name: 'course-author', version: '1.0.0' } } });
    expect(client[3]).toMatchObject({ params: { name: 'echo', arguments: { message: 'héllo 🌍' } } });
    // the unknown tool's error is the server's answer, recorded like any other
    const last = loadCassette(out).frames.at(-1)!;
    expect(last).toMatchObject({ from: 'server', message: { id: client[5]!.id } });
    const verified = run('verify', out, '--', ...EVERYTHING);
    expect(verified.stdout).toContain('no drift');
    expect(verified.status).toBe(0);
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
      const result = run('record', '--out', out, '--script', script, '--', ...EVERYTHING);
      expect(result.status, text).toBe(2);
      expect(result.stderr.trim().split('\n'), text).toHaveLength(1);
      expect(result.stderr, text).toMatch(says);
      expect(existsSync(out), text).toBe(false);
    }
  });
});
