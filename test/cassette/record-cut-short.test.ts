// A recording cut short is not a cassette: a scripted client that stopped (here, at a server that
// refuses it 401 invalid_token and names no authorization, so that the client's search for one is
// refused too) leaves `<out>.partial` only, and record exits 1 saying why; lint refuses a cassette
// in which nothing answered the client.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import { runCli } from '../helpers/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'cut-short-'));
let server: Server;
let url: string;

beforeAll(async () => {
  // an MCP endpoint that wants a bearer token it never gets
  server = createServer((request, response) => {
    request.resume();
    response
      .writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' })
      .end(JSON.stringify({ error: 'invalid_token', error_description: 'a bearer token is required' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('a recording cut short', () => {
  it('writes only <out>.partial and exits 1, saying the script stopped', async () => {
    writeFileSync(join(dir, 'session.yaml'), 'steps:\n  - tools/list\n');
    const out = join(dir, 'refused.yaml');
    const run = await runCli(['record', '--http', url, '--out', out, '--script', join(dir, 'session.yaml')]);
    expect(run.stderr).toContain('the script stopped');
    expect(run.stderr).toContain('refused.yaml.partial');
    expect(run.code).toBe(1);
    expect(existsSync(out)).toBe(false);
    expect(existsSync(`${out}.partial`)).toBe(true);
    // and the partial, were it renamed to a cassette, lint refuses: nothing answered the client
    const problems = lintCassette(loadCassette(`${out}.partial`, { diskCache: false }));
    expect(problems.map((problem) => problem.message)).toContain(
      'the session has no server message (nor an exchange of an authorization that was not refused): nothing answered the client; a recording cut short is not a cassette',
    );
  });
});
