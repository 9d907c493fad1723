// A request body of 17 MiB to the player's HTTP server: the authorization server served beside the MCP
// endpoint read a body whole, without a bound, into the grader's memory (a client may send gigabytes),
// where an MCP POST is refused past 16 MiB. Both are now refused alike: 413, and the mistake said.
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseCassette } from '../../harness/cassette/format/format.ts';
import { serveCassette } from '../../harness/transports/http/serve.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const AUTHORIZED = join(ROOT, 'fixtures', 'authorization', 'refresh', 'cassette.yaml');
const WORDS = 'with a body of more than 16 MiB, which the grader does not read';

/** A POST of `body` to `path` on the player's server; its status and body once answered. */
function post(url: string, path: string, body: Buffer, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((done, failed) => {
    const sent = request(new URL(path, url), { method: 'POST', headers: { 'content-length': body.length, ...headers } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => done({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
    });
    sent.on('error', failed);
    sent.end(body);
  });
}

/** A registration (RFC 7591) whose client_name makes it 17 MiB: one the authorization server takes, but for its size. */
const REGISTRATION = Buffer.from(
  JSON.stringify({ client_name: 'x'.repeat(17 * 1024 * 1024), redirect_uris: ['http://127.0.0.1:1/callback'], application_type: 'native' }),
);

describe('a body of 17 MiB', () => {
  it('to the authorization server: refused (413, an OAuth error), the mistake said', async () => {
    const player = await serveCassette(parseCassette(readFileSync(AUTHORIZED, 'utf8'), AUTHORIZED));
    onTestFinished(() => player.close());
    const answer = await post(player.url, '/authorization-server/reg', REGISTRATION, { 'content-type': 'application/json' });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.text)).toEqual({
      error: 'invalid_request',
      error_description: `the client sent POST /authorization-server/reg to the authorization server ${WORDS}`,
    });
    expect(player.diagnoses.map(({ kind, message }) => ({ kind, message }))).toEqual([
      { kind: 'body-too-large', message: `your client sent POST /authorization-server/reg to the authorization server ${WORDS}` },
    ]);
  });

  it('to the MCP endpoint: refused (413), the mistake said', async () => {
    const player = await serveCassette(parseCassette(readFileSync(AUTHORIZED, 'utf8'), AUTHORIZED));
    onTestFinished(() => player.close());
    const message = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(17 * 1024 * 1024) } }));
    const answer = await post(player.url, '/mcp', message, { 'content-type': 'application/json', accept: 'application/json, text/event-stream' });
    expect(answer.status).toBe(413);
    expect(player.diagnoses.map(({ kind, message }) => ({ kind, message }))).toEqual([
      { kind: 'body-too-large', message: `your client sent POST /mcp ${WORDS}` },
    ]);
  });
});
