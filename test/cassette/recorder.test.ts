// The recorder as a process between a client and a real server process: byte-for-byte forwarding,
// redaction, normalisation, and every way a session can go wrong leaving the target untouched.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format.ts';
import type { ServerFrame } from '../../harness/cassette/model.ts';
import { cassetteCommand, EVERYTHING, NODE, ROOT, runSession } from './sdk-session.ts';

/** A small real server whose misbehaviour is chosen by argv: noise, random, bytes, die. */
const SERVER = `
const mode = process.argv[2];
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (mode === 'noise') process.stdout.write('debug: got ' + message.method + '\\n');
  if (mode === 'bytes') return process.stdout.write('{"result":{"text":"caf\\\\u00e9"},"jsonrpc":"2.0","id":' + JSON.stringify(message.id) + '}\\r\\n');
  const text = mode === 'random' ? 'task ' + require('node:crypto').randomUUID() + ' at ' + new Date(Date.now() - Math.random() * 1e9).toISOString() : 'ok';
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } }) + '\\n');
  if (mode === 'die') process.exit(3);
});
`;

const dir = mkdtempSync(join(tmpdir(), 'cassette-recorder-'));
const serverFile = join(dir, 'server.cjs');
writeFileSync(serverFile, SERVER);

const request = (id: number, method = 'tools/call', params: object = { name: 'x' }) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';

/** Runs a command with `stdin` written; `keepOpen` leaves stdin open (a client still connected). */
function run(command: string[], stdin: string, keepOpen = false): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('latin1')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (keepOpen) child.stdin.write(stdin);
  else child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function freshDir(name: string): string {
  return mkdtempSync(join(dir, name));
}

describe('theinference record', () => {
  it('forwards bytes unchanged, keeps them in the cassette, and replay gives them back', async () => {
    const out = join(dir, 'bytes.yaml');
    const recorded = await run(cassetteCommand('record', '--out', out, '--', NODE, serverFile, 'bytes'), request(1));
    expect(recorded.code).toBe(0);
    const bytes = '{"result":{"text":"caf\\u00e9"},"jsonrpc":"2.0","id":1}\r\n';
    expect(recorded.stdout).toBe(bytes);
    const frame = loadCassette(out).frames.find((f) => f.from === 'server') as ServerFrame;
    expect(frame.raw).toBe(bytes);
    expect(frame.message).toEqual({ result: { text: 'café' }, jsonrpc: '2.0', id: 1 });
    const replayed = await run(cassetteCommand('replay', out), request(1));
    expect(replayed.stdout).toBe(bytes);
  });

  it('replaces credential-looking and named environment values wherever they appear', async () => {
    const out = join(dir, 'env.yaml');
    const env = { COURSE_API_TOKEN: 'tok-5ecret-value-123', PLAIN_SETTING: 'visible-but-named' };
    await runSession(
      cassetteCommand('record', '--out', out, '--redact-env', 'PLAIN_SETTING', '--', ...EVERYTHING),
      [(client) => client.callTool({ name: 'get-env', arguments: {} })],
      { env },
    );
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('get-env');
    expect(text).not.toContain('tok-5ecret-value-123');
    expect(text).not.toContain('visible-but-named');
    expect(text).toContain('<redacted:COURSE_API_TOKEN>');
    expect(text).toContain('<redacted:PLAIN_SETTING>');
  });

  it('marks nondeterministic values free, and a re-recording shows no change where only they changed', async () => {
    const out = join(dir, 'random.yaml');
    const command = cassetteCommand('record', '--out', out, '--force', '--', NODE, serverFile, 'random');
    expect((await run(command, request(1) + request(2))).code).toBe(0);
    const first = readFileSync(out, 'utf8');
    expect((loadCassette(out).frames.find((frame) => frame.from === 'server') as ServerFrame).free).toEqual(['result.content[0].text']);
    expect((await run(command, request(1) + request(2))).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(first);
    // a real change still shows
    expect((await run(command, request(1) + request(3))).code).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toBe(first);
  });

  it('refuses a server command that does not exist, and writes nothing', async () => {
    const folder = freshDir('missing-');
    const result = await run(cassetteCommand('record', '--out', join(folder, 'c.yaml'), '--', 'no-such-mcp-server-anywhere'), request(1));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot start the server command "no-such-mcp-server-anywhere": no such command; no cassette written');
    expect(readdirSync(folder)).toEqual([]);
  });

  it('refuses a server that writes non-JSON to stdout, naming the line, and writes nothing', async () => {
    const folder = freshDir('noise-');
    const result = await run(cassetteCommand('record', '--out', join(folder, 'c.yaml'), '--', NODE, serverFile, 'noise'), request(1));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('the server wrote non-JSON to stdout (line 1 of its output): "debug: got tools/call\\n"');
    expect(result.stdout).toContain('debug: got tools/call\n'); // still transparent to the client
    expect(readdirSync(folder)).toEqual([]);
  });

  it('leaves only a .partial beside the target when the server dies mid-session', async () => {
    const folder = freshDir('die-');
    const target = join(folder, 'c.yaml');
    const result = await run(cassetteCommand('record', '--out', target, '--', NODE, serverFile, 'die'), request(1), true);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the server exited mid-session (exit code 3)');
    expect(readdirSync(folder)).toEqual(['c.yaml.partial']);
    expect(loadCassette(`${target}.partial`).frames.filter((frame) => frame.from !== 'stderr')).toHaveLength(2);
  });

  it('does not overwrite an existing cassette without --force', async () => {
    const target = join(dir, 'existing.yaml');
    writeFileSync(target, 'precious');
    const refused = await run(cassetteCommand('record', '--out', target, '--', NODE, serverFile, 'ok'), request(1));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('exists; pass --force to replace it');
    expect(readFileSync(target, 'utf8')).toBe('precious');
    const forced = await run(cassetteCommand('record', '--out', target, '--force', '--', NODE, serverFile, 'ok'), request(1));
    expect(forced.code).toBe(0);
    expect(loadCassette(target).frames).toHaveLength(2);
    expect(existsSync(`${target}.partial`)).toBe(false);
  });
});

describe('bad input to replay and verify', () => {
  it('replay refuses a malformed cassette with one line naming file, line and field', async () => {
    const file = join(dir, 'malformed.yaml');
    writeFileSync(file, 'version: 1\ntransport: stdio\nprovenance: {command: [x], recorded: 2026-11-30}\nframes:\n  - client: {"id": 1}\n');
    const result = await run(cassetteCommand('replay', file), request(1));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`theinference replay: ${file}:5: frames[0].client.jsonrpc: expected "2.0"\n`);
    expect(result.stdout).toBe('');
  });

  it('verify refuses a server command that does not exist', async () => {
    const result = await run(cassetteCommand('verify', join(ROOT, 'cassettes', 'everything-handshake.yaml'), '--', 'no-such-mcp-server-anywhere'), '');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('theinference verify: cannot start the server command "no-such-mcp-server-anywhere": no such command\n');
  });
});
