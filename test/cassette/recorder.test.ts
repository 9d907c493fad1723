// The recorder as a process between a client and a real server process: byte-for-byte forwarding,
// redaction, normalisation, and every way a session can go wrong leaving the target untouched.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { saveCassette } from '../../harness/cassette/format/save.ts';
import type { ServerFrame } from '../../harness/cassette/format/model.ts';
import { argumentSecrets, redactCommand, Redactor, secretsFromCommand } from '../../harness/cassette/recording/redact.ts';
import { cassetteCommand, EVERYTHING, NODE, ROOT, runSession } from './sdk-session.ts';

/** A small real server whose misbehaviour is chosen by argv: noise, random, bytes, die, cut, silent, stubborn. */
const SERVER = `
const mode = process.argv[2];
if (mode === 'cut' || mode === 'silent' || mode === 'stubborn') process.stderr.write('pid ' + process.pid + '\\n');
if (mode === 'stubborn') {
  // ignores stdin closing and SIGTERM, and so does a process it started
  process.on('SIGTERM', () => {});
  setInterval(() => {}, 1000);
  const helper = require('node:child_process').spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  process.stderr.write('pid ' + helper.pid + '\\n');
}
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (mode === 'noise') process.stdout.write('debug: got ' + message.method + '\\n');
  if (mode === 'bytes') return process.stdout.write('{"result":{"text":"caf\\\\u00e9"},"jsonrpc":"2.0","id":' + JSON.stringify(message.id) + '}\\r\\n');
  if (mode === 'silent' && message.id !== 1) return;
  if (mode === 'cut' && message.id === 2) {
    process.stdout.write('{"jsonrpc":"2.0","id":2,"result":{"con');
    process.exit(1);
  }
  const text = mode === 'random' ? 'task ' + require('node:crypto').randomUUID() + ' at ' + new Date(Date.now() - Math.random() * 1e9).toISOString() : 'ok';
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } }) + '\\n');
  if (mode === 'die') process.exit(3);
});
`;

/** A server that repeats its secrets everywhere it can: its arguments and its token in results, an
 *  error's data, a notification, a stdout log line and stderr (with colour codes and a CR). */
const LEAKY = `
const args = process.argv.slice(2);
const token = process.env.LEAKY_SERVICE_TOKEN;
process.stderr.write('starting with ' + args.join(' ') + ' token=' + token + ' \\x1b[31mred\\x1b[0m 50%\\r100%\\r\\n');
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\r\\n');
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  if (message.method === 'exit') process.exit(4);
  process.stdout.write('debug: key=' + args[0] + '\\n');
  send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: { args, password: args[2] } } });
  if (message.method === 'resources/read') send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: 'bad key ' + args[0], data: { args, token } } });
  else {
    // whether the client sent the real key (as typed), not a placeholder
    const key = message.params?.arguments?.key === args[0].split('=')[1] ? 'right' : 'wrong';
    send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text: 'token ' + token + ' args ' + JSON.stringify(args) + ' key ' + key }] } });
  }
});
`;

const dir = mkdtempSync(join(tmpdir(), 'cassette-recorder-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const serverFile = join(dir, 'server.cjs');
writeFileSync(serverFile, SERVER);
const leakyFile = join(dir, 'leaky.cjs');
writeFileSync(leakyFile, LEAKY);
/** The real command line, as a client would start it. */
const CLI = [NODE, join(ROOT, 'bin', 'theinference.js')];

const request = (id: number, method = 'tools/call', params: object = { name: 'x' }) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command with `stdin` written; `keepOpen` leaves stdin open (a client still connected). */
function run(command: string[], stdin: string, options: { keepOpen?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...options.env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('latin1')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  if (options.keepOpen) child.stdin.write(stdin);
  else child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

function freshDir(name: string): string {
  return mkdtempSync(join(dir, name));
}

/** The processes a test server said it was (`pid <n>` lines on its stderr), none of which may outlive the recorder. */
function serverPids(stderr: string): number[] {
  return [...stderr.matchAll(/^pid (\d+)$/gm)].map((match) => Number(match[1]));
}

/** Running: signalled processes take a moment to go, and a zombie (state Z) is gone already. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/s.test(stat);
}

/** The pids still running a second after the recorder exited. */
async function survivors(pids: number[]): Promise<number[]> {
  for (let waited = 0; waited < 1000 && pids.some(alive); waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
  return pids.filter(alive);
}

/** The recorder's own lines on stderr (the server's are relayed without the prefix). */
function recorderLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.startsWith('theinference record: '));
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

  it('keeps hand edits on a re-recording where their messages still are, and says what it could not keep', async () => {
    const out = join(freshDir('hand-'), 'hand.yaml');
    const command = (mode: string) => cassetteCommand('record', '--out', out, '--force', '--', NODE, serverFile, mode);
    expect((await run(command('ok'), request(1) + request(2))).code).toBe(0);
    // the edits an author makes: free paths, a cut into reads, flush: false, a note, comments
    const edited = loadCassette(out);
    edited.free = [...(edited.free ?? []), 'params.name'];
    edited.provenance.note = 'the second call stands for any call';
    edited.comment = ' recorded from the test server in ok mode';
    const [first, second] = edited.frames.filter((frame): frame is ServerFrame => frame.from === 'server');
    first!.cuts = [5];
    first!.flush = false;
    first!.comment = ' the first answer, cut';
    second!.free = ['result.content'];
    saveCassette(edited, out, { overwrite: true });
    // and a comment at the end of a line, which record does not keep; a # inside a string is no comment
    writeFileSync(out, readFileSync(out, 'utf8').replace('recorder: theinference record', 'recorder: "theinference record # by hand" # by hand'));

    const again = await run(command('ok'), request(1) + request(2));
    expect(again.code).toBe(0);
    const kept = loadCassette(out);
    expect(kept.free).toContain('params.name');
    expect(kept.provenance.note).toBe('the second call stands for any call');
    expect(kept.comment).toBe(' recorded from the test server in ok mode');
    expect(kept.frames.filter((frame) => frame.from === 'server').map((frame) => frame.comment)).toEqual([' the first answer, cut', undefined]);
    const servers = kept.frames.filter((frame): frame is ServerFrame => frame.from === 'server');
    expect(servers.map(({ cuts, flush, free }) => ({ cuts, flush, free }))).toEqual([
      { cuts: [5], flush: false, free: undefined },
      { cuts: undefined, flush: undefined, free: ['result.content'] },
    ]);
    expect(recorderLines(again.stderr).filter((line) => line.includes('not kept'))).toEqual([
      'theinference record: not kept from the earlier recording: 1 comment line inside a frame, at the end of a line or above a stdout or stderr line (record keeps those at the top and above a message): copy them back from the old file',
    ]);

    // the server now says other things (the cut no longer fits), and the second call is gone
    const changed = await run(command('random'), request(1));
    expect(changed.code).toBe(0);
    expect(recorderLines(changed.stderr).filter((line) => line.includes('not kept'))).toEqual([
      expect.stringMatching(
        /not kept from the earlier recording: the frame at line \d+ \(response 1\): its cut into reads \(cuts\), since the server now sends other bytes$/,
      ),
      expect.stringMatching(
        /not kept from the earlier recording: the frame at line \d+ \(response 2\): it is no longer in the session, and its hand edits went with it$/,
      ),
    ]);
    expect(loadCassette(out).free).toContain('params.name');
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
    const result = await run(cassetteCommand('record', '--out', target, '--', NODE, serverFile, 'die'), request(1), { keepOpen: true });
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

describe('secrets in a recording', () => {
  const SECRETS = ['sk-secret123', 'hunter22', 'tok-env-5ecret', 'u:pw@'];
  const ARGS = ['--api-key=sk-secret123', '--password', 'hunter22', 'postgres://u:pw@localhost/db'];
  const REDACTED_ARGS = ['--api-key=<redacted:--api-key>', '--password', '<redacted:--password>', 'postgres://u:<redacted:url-password>@localhost/db'];

  it('are replaced wherever the server repeats them: arguments, environment, URL passwords, in every frame and on stderr', async () => {
    const out = join(freshDir('leaky-'), 'leaky.yaml');
    const input = request(1, 'tools/call', { name: 'x', arguments: { key: 'sk-secret123' } }) + request(2, 'resources/read', { uri: 'secret://x' });
    const result = await run([...CLI, 'record', '--out', out, '--allow-noise', '--', NODE, leakyFile, ...ARGS], input, {
      env: { LEAKY_SERVICE_TOKEN: 'tok-env-5ecret' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('sk-secret123'); // the client still gets what the server said
    // how many values, of which secret, where: the key is in the command, the call, stderr, 2 log lines, 2 notices, a result, an error twice
    // place by place in a fixed order, whatever order stderr and the frames came in
    expect(result.stderr).toContain(
      'theinference record: redacted 27 values: --api-key (1 in the command, 1 in client messages, 5 in server messages, 2 in stdout lines, 1 in stderr lines); ' +
        '--password (1 in the command, 6 in server messages, 1 in stderr lines); url-password (1 in the command, 4 in server messages, 1 in stderr lines); ' +
        'LEAKY_SERVICE_TOKEN (2 in server messages, 1 in stderr lines)\n',
    );
    const bytes = readFileSync(out);
    for (const secret of SECRETS) expect(bytes.includes(secret), secret).toBe(false);
    for (const secret of SECRETS) expect(result.stderr.includes(secret), secret).toBe(false);

    const cassette = loadCassette(out);
    expect(cassette.provenance.command!.slice(2)).toEqual(REDACTED_ARGS);
    const frames = cassette.frames.map(({ line: _line, ...frame }) => frame);
    const started = `starting with ${REDACTED_ARGS.join(' ')} token=<redacted:LEAKY_SERVICE_TOKEN> \x1b[31mred\x1b[0m 50%\r100%`;
    expect(frames).toContainEqual({ from: 'stderr', text: started });
    expect(frames).toContainEqual({ from: 'client', message: JSON.parse(request(1, 'tools/call', { name: 'x', arguments: { key: '<redacted:--api-key>' } })) });
    expect(frames).toContainEqual({ from: 'stdout', text: 'debug: key=--api-key=<redacted:--api-key>\n' });
    const result1 = { content: [{ type: 'text', text: `token <redacted:LEAKY_SERVICE_TOKEN> args ${JSON.stringify(REDACTED_ARGS)} key right` }] };
    const answer = { jsonrpc: '2.0', id: 1, result: result1 };
    // the exact bytes (CRLF) are kept, redacted like the message
    expect(frames).toContainEqual({ from: 'server', message: answer, raw: JSON.stringify(answer) + '\r\n' });
    const notice = {
      jsonrpc: '2.0',
      method: 'notifications/message',
      params: { level: 'info', data: { args: REDACTED_ARGS, password: '<redacted:--password>' } },
    };
    expect(frames).toContainEqual({ from: 'server', message: notice, raw: JSON.stringify(notice) + '\r\n' });
    const error = { code: -32000, message: 'bad key --api-key=<redacted:--api-key>', data: { args: REDACTED_ARGS, token: '<redacted:LEAKY_SERVICE_TOKEN>' } };
    expect(frames).toContainEqual({
      from: 'server',
      message: { jsonrpc: '2.0', id: 2, error },
      raw: JSON.stringify({ jsonrpc: '2.0', id: 2, error }) + '\r\n',
    });

    // what the server wrote on stderr reaches the terminal redacted and with its control characters escaped
    const shown = started.replaceAll('\x1b', '\\x1b').replace('\r', '\\r');
    expect(result.stderr).toContain(shown + '\n');
    expect(result.stderr).not.toMatch(/[\x1b\r]/);
    const replayed = await run([...CLI, 'replay', out, '--no-validate'], input.replace('sk-secret123', '<redacted:--api-key>'));
    expect(replayed.code).toBe(0);
    expect(replayed.stderr).toBe(`[server] ${shown}\n`);
  });

  it('are never printed by verify, which sends the server the real values and compares what it says redacted', async () => {
    const out = join(freshDir('leaky-verify-'), 'leaky.yaml');
    const input = request(1, 'tools/call', { name: 'x', arguments: { key: 'sk-secret123' } }) + request(2, 'resources/read', { uri: 'secret://x' });
    const env = { LEAKY_SERVICE_TOKEN: 'tok-env-5ecret' };
    expect((await run([...CLI, 'record', '--out', out, '--allow-noise', '--', NODE, leakyFile, ...ARGS], input, { env })).code).toBe(0);
    const verified = await run([...CLI, 'verify', out, '--', NODE, leakyFile, ...ARGS], '', { env });
    for (const secret of SECRETS) expect(verified.stdout.includes(secret) || verified.stderr.includes(secret), secret).toBe(false);
    // every message is as recorded once redacted (the key came back "right"); what is left is its log lines on stdout
    expect(verified.stderr).not.toContain('changed at');
    expect(verified.stderr).toContain('the server wrote non-JSON to stdout: "debug: key=--api-key=<redacted:--api-key>');
    // another token now: redacted alike, so still no drift, and still never printed
    const rotated = await run([...CLI, 'verify', out, '--', NODE, leakyFile, ...ARGS], '', { env: { LEAKY_SERVICE_TOKEN: 'tok-rotated-9999' } });
    expect(rotated.stderr).not.toContain('changed at');
    expect(rotated.stderr).not.toContain('tok-rotated-9999');
  });

  it('are replaced in a .partial too', async () => {
    const folder = freshDir('leaky-partial-');
    const target = join(folder, 'c.yaml');
    const input = request(1, 'tools/call', { name: 'x', arguments: { key: 'sk-secret123' } }) + request(2, 'exit', {});
    const result = await run([...CLI, 'record', '--out', target, '--allow-noise', '--', NODE, leakyFile, ...ARGS], input, {
      keepOpen: true,
      env: { LEAKY_SERVICE_TOKEN: 'tok-env-5ecret' },
    });
    expect(result.code).toBe(1);
    expect(recorderLines(result.stderr)).toEqual([
      `theinference record: the server exited mid-session (exit code 4), leaving exit (id 2) unanswered; ${target} not written, what was recorded (2 client and 2 server messages) is in ${target}.partial`,
      expect.stringMatching(/^theinference record: redacted \d+ values: --api-key \(1 in the command, /),
    ]);
    expect(readdirSync(folder)).toEqual(['c.yaml.partial']);
    const bytes = readFileSync(`${target}.partial`);
    expect(bytes.includes('<redacted:LEAKY_SERVICE_TOKEN>')).toBe(true);
    for (const secret of SECRETS) expect(bytes.includes(secret), secret).toBe(false);
  });

  it('come from credential-looking flags and headers; short ones are replaced where they stand, not searched for', () => {
    const args = ['--api-key=sk-1', '--password', 'hunter22', '--apiKey', 'k1234', '--client_secret=abcd', '--auth', '--port', '80'];
    args.push(
      'Authorization: Bearer tok-1234',
      '--header=X-API-Key: xyz12',
      '--key-file',
      'key.pem',
      '--session-timeout',
      '3000',
      '--no-auth',
      'stdio',
      '--token',
      '--next',
    );
    expect(argumentSecrets(args).map(({ name, value }) => [name, value])).toEqual([
      ['--api-key', 'sk-1'],
      ['--password', 'hunter22'],
      ['--apiKey', 'k1234'],
      ['--client_secret', 'abcd'],
      ['Authorization', 'tok-1234'],
      ['X-API-Key', 'xyz12'],
    ]);
    const command = ['server', '--token', 'abc', 'mysql://root:p%40ss@db/x'];
    const redactor = new Redactor(secretsFromCommand(command));
    expect(redactCommand(command, redactor)).toEqual(['server', '--token', '<redacted:--token>', 'mysql://root:<redacted:url-password>@db/x']);
    // "abc" is too short to search for: "cabbage" stays; the URL password is known, decoded too, and any URL's is replaced
    expect(redactor.text('abc cabbage p@ss p%40ss https://me:other@example.com')).toBe(
      'abc cabbage <redacted:url-password> <redacted:url-password> https://me:<redacted:url-password>@example.com',
    );
  });
});

describe('a session that is not clean', () => {
  it('keeps every complete message in .partial when the server dies in the middle of a line', async () => {
    const folder = freshDir('cut-');
    const target = join(folder, 'c.yaml');
    const result = await run([...CLI, 'record', '--out', target, '--', NODE, serverFile, 'cut'], request(1) + request(2), { keepOpen: true });
    expect(result.code).toBe(1);
    expect(recorderLines(result.stderr)).toEqual([
      `theinference record: the server exited mid-session (exit code 1) in the middle of a line (38 bytes after its last complete line), leaving tools/call "x" (id 2) unanswered; ${target} not written, what was recorded (2 client and 1 server messages) is in ${target}.partial`,
    ]);
    expect(readdirSync(folder)).toEqual(['c.yaml.partial']);
    const frames = loadCassette(`${target}.partial`).frames.filter((frame) => frame.from !== 'stderr');
    expect(frames.map((frame) => frame.from)).toEqual(['client', 'client', 'server']); // both requests were sent at once
    expect(await survivors(serverPids(result.stderr))).toEqual([]);
  });

  it('names the requests a server exited without answering, not counting one the client cancelled', async () => {
    const folder = freshDir('silent-');
    const target = join(folder, 'c.yaml');
    const cancel = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } }) + '\n';
    const result = await run([...CLI, 'record', '--out', target, '--', NODE, serverFile, 'silent'], request(1) + request(2) + request(3, 'ping', {}) + cancel);
    expect(result.code).toBe(1);
    expect(recorderLines(result.stderr)).toEqual([
      `theinference record: the server exited (exit code 0), leaving tools/call "x" (id 2) unanswered; ${target} not written, what was recorded (4 client and 1 server messages) is in ${target}.partial`,
    ]);
    expect(readdirSync(folder)).toEqual(['c.yaml.partial']);
    expect(await survivors(serverPids(result.stderr))).toEqual([]);
  });

  it('stops a server that ignores SIGTERM with SIGKILL, with whatever it started, and keeps the clean recording', async () => {
    const target = join(freshDir('stubborn-'), 'c.yaml');
    const started = Date.now();
    const result = await run([...CLI, 'record', '--out', target, '--', NODE, serverFile, 'stubborn'], request(1));
    expect(Date.now() - started).toBeGreaterThanOrEqual(3000); // 2 s for stdin, 1 s for SIGTERM
    expect(result.code).toBe(0);
    expect(recorderLines(result.stderr)).toEqual([
      'theinference record: the server did not exit within 1 s of SIGTERM; stopped it with SIGKILL',
      `theinference record: wrote ${target}: 1 client and 1 server messages`,
    ]);
    const pids = serverPids(result.stderr);
    expect(pids).toHaveLength(2);
    expect(await survivors(pids)).toEqual([]);
  });

  it('stops at once at a second Ctrl-C: the server is killed, .partial written, exit 130', async () => {
    const folder = freshDir('interrupt-');
    const target = join(folder, 'c.yaml');
    const child = spawn(CLI[0]!, [...CLI.slice(1), 'record', '--out', target, '--', NODE, serverFile, 'stubborn'], { cwd: ROOT });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    child.stdin.write(request(1));
    await new Promise((resolve) => child.stdout.once('data', resolve)); // the answer: the session is under way
    child.kill('SIGINT');
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGINT');
    expect(await closed).toBe(130);
    expect(recorderLines(stderr)).toEqual([
      `theinference record: interrupted by a second SIGINT: the server was stopped with SIGKILL; ${target} not written, what was recorded (1 client and 1 server messages) is in ${target}.partial`,
    ]);
    expect(readdirSync(folder)).toEqual(['c.yaml.partial']);
    expect(loadCassette(`${target}.partial`).frames.filter((frame) => frame.from !== 'stderr')).toHaveLength(2);
    const pids = serverPids(stderr);
    expect(pids).toHaveLength(2);
    expect(await survivors(pids)).toEqual([]);
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

  it('replay refuses a --report in a folder that does not exist, in one line, before playing anything', async () => {
    const report = join(dir, 'no-such-folder', 'report.json');
    const result = await run([...CLI, 'replay', join(ROOT, 'cassettes', 'everything-handshake.yaml'), '--report', report], request(1, 'ping', {}));
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`theinference replay: --report ${report}: cannot write it, the folder ${dirname(report)} does not exist\n`);
    expect(result.stdout).toBe('');
  });

  it('verify refuses a server command that does not exist', async () => {
    const result = await run(cassetteCommand('verify', join(ROOT, 'cassettes', 'everything-handshake.yaml'), '--', 'no-such-mcp-server-anywhere'), '');
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('theinference verify: cannot start the server command "no-such-mcp-server-anywhere": no such command\n');
  });
});

describe('what verify says of a changed value', () => {
  it('cuts two long strings around where they first differ, not at their start', async () => {
    const { sideBySide } = await import('../../harness/cassette/recording/verify.ts');
    const before = `${'Lorem ipsum dolor sit amet. '.repeat(10)}The answer is 41. ${'Consectetur adipiscing elit. '.repeat(10)}`;
    const said = sideBySide(before, before.replace('41', '42'));
    expect(said).toMatch(/^recorded "…[^"]*The answer is 41\.[^"]*…", now "…[^"]*The answer is 42\.[^"]*…" \(they differ from character 295 on\)$/);
    expect(sideBySide('The sum is 41.', 'The sum is 42.')).toBe('recorded "The sum is 41.", now "The sum is 42."');
    expect(sideBySide({ a: 1 }, undefined)).toBe('recorded {"a":1}, now nothing');
  });
});
