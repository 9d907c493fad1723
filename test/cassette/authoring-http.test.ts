// docs/authoring.md's Streamable HTTP path, walked as an author would, on a scratch copy of the
// course: `record --http --script` starting the real everything server, lint, verify (which starts it
// again from the provenance), replay to the SDK client, then a streamable-http case of the
// recording, blessed and graded.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { saveCassette } from '../../harness/cassette/format/save.ts';
import { EVERYTHING_ENTRY, type HttpStep, runHttpSession, waitForOutput } from '../../scripts/record-http-cassettes.ts';
import { courseCopy, runCli, trimCourse } from '../helpers/cli.ts';
import { BIN } from './sdk-session.ts';

/** A case of each command (and the new one, once made): what is under test is the path from recording
 *  to a graded case, not the course's other cases, which grader.test.ts grades. */
const course = courseCopy();
trimCourse(course);
afterAll(() => rmSync(course, { recursive: true, force: true }));

/** A name no course case has, so that the walk works on this course grown too. */
const NAME = 'authored-echo-http';
const CALLS = [
  { name: 'echo', arguments: { message: 'hello from a script' } },
  { name: 'get-sum', arguments: { a: 2, b: 3 } },
];

describe('adding a streamable-http case, as docs/authoring.md says', () => {
  it('records the server it starts from a script, lints, verifies, replays, makes the case, blesses and grades it', async () => {
    const cli = (args: string[]) => runCli(args, { cwd: course });
    const out = `cassettes/${NAME}.yaml`;
    mkdirSync(join(course, 'cassettes'), { recursive: true });
    // 2. the session, as program.ts's http command will make it
    writeFileSync(join(course, 'session.yaml'), ['steps:', '  - tools/list', ...CALLS.map((call) => `  - tools/call: ${JSON.stringify(call)}`), ''].join('\n'));
    // 3. record
    const server = ['node', EVERYTHING_ENTRY, 'streamableHttp'];
    const recorded = await cli(['record', '--out', out, '--http', 'http://127.0.0.1:0/mcp', '--script', 'session.yaml', '--', ...server]);
    expect(recorded.code).toBe(0);
    expect(recorded.stderr).toContain(`theinference record: wrote ${out}: 5 client and 4 server messages`);
    expect(loadCassette(join(course, out)).provenance).toMatchObject({ command: server, package: '@modelcontextprotocol/server-everything' });
    // 4. lint, verify
    expect((await cli(['lint', out])).code).toBe(0);
    const verified = await cli(['verify', out]);
    expect({ code: verified.code, stdout: verified.stdout }).toEqual({ code: 0, stdout: `${out}: no drift\n` });
    // 5. replay, to the SDK client: it ends by itself at the client's DELETE
    const replay = spawn(process.execPath, [BIN, 'replay', out], { cwd: course, stdio: ['ignore', 'pipe', 'pipe'] });
    const ended = once(replay, 'close');
    const [url] = await waitForOutput(replay, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m, 'replay');
    const session = await runHttpSession(url, [
      (client) => client.listTools(),
      ...CALLS.map(
        (call): HttpStep =>
          (client) =>
            client.callTool(call),
      ),
    ]);
    expect((session.results[2] as { content: { text: string }[] }).content[0]!.text).toBe('The sum of 2 and 3 is 5.');
    expect((await ended)[0]).toBe(0);

    // 6. the case
    mkdirSync(join(course, `cases/streamable-http/${NAME}`), { recursive: true });
    writeFileSync(join(course, `cases/streamable-http/${NAME}/calls.json`), `${JSON.stringify(CALLS, null, 2)}\n`);
    writeFileSync(
      join(course, `cases/streamable-http/${NAME}/case.md`),
      'Two calls to the real everything server over Streamable HTTP, recorded from a script.\n',
    );
    const cassette = loadCassette(join(course, out));
    cassette.free = [...(cassette.free ?? []), 'params.capabilities'];
    delete cassette.file;
    mkdirSync(join(course, `fixtures/streamable-http/${NAME}`), { recursive: true });
    saveCassette(
      { ...cassette, frames: cassette.frames.map(({ line: _line, ...frame }) => frame) },
      join(course, `fixtures/streamable-http/${NAME}/cassette.yaml`),
    );
    const blessed = await cli(['bless', '--stage', 'streamable-http']);
    expect(blessed.code).toBe(0);
    expect(blessed.stdout).toContain(`new      streamable-http/${NAME}`);
    expect(readFileSync(join(course, `fixtures/streamable-http/${NAME}/expected.json`), 'utf8')).toContain('Echo: hello from a script');
    const graded = await cli(['test', '--stage', 'streamable-http', '--seed', '7']);
    expect(graded.code).toBe(0);
    expect(graded.stdout).toMatch(new RegExp(`✓ ${NAME}\\b`));
  });
});
