// The committed cassettes are sound and current: they load and lint clean, the installed servers
// show no drift against them, and the SDK client replays the handshake variants.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import { verifyCassette } from '../../harness/cassette/recording/verify.ts';
import { verifyHttpCassette } from '../../harness/transports/http/verify-link.ts';
import { OIDC_GATEWAY_ENTRY, SDK_OAUTH_ENTRY, startOidcGateway, startSdkOAuthServer } from '../../scripts/oauth-session.ts';
import { RESUMABLE_ENTRY, startEverythingHttp, startResumableHttp } from '../../scripts/record-http-cassettes.ts';
import { cassetteCommand, ROOT, runSession } from './sdk-session.ts';

const folder = join(ROOT, 'cassettes');
// stateless-*.yaml come from the SDK v2 servers of scripts/stateless-servers/: test/cassette/stateless.test.ts checks them
const files = readdirSync(folder).filter((file) => file.endsWith('.yaml') && !file.startsWith('stateless-'));
const stdioFiles = files.filter((file) => loadCassette(join(folder, file)).transport === 'stdio');
const httpFiles = files.filter((file) => loadCassette(join(folder, file)).transport === 'http');

describe('committed cassettes', () => {
  it('are there, load, lint clean and say where they come from without machine paths', () => {
    expect(files).toEqual(expect.arrayContaining(['everything-handshake.yaml', 'everything-tools.yaml', 'memory-tools.yaml']));
    for (const file of files) {
      const cassette = loadCassette(join(folder, file));
      expect(lintCassette(cassette), file).toEqual([]);
      // a reference server, or one of scripts/ built on the official SDK
      expect(cassette.provenance.package, file).toMatch(/^@modelcontextprotocol\/(server-|sdk$)/);
      // a command as typed in the project folder, or a server's URL: never a machine path
      if (cassette.transport === 'stdio') expect(cassette.provenance.command!.join(' '), file).not.toMatch(/^\/|\s\//);
      else expect(cassette.provenance.url, file).toMatch(/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?\//);
    }
  });

  // Each is verified against the command its provenance names, with its setup and env: no server list here.
  it.each(stdioFiles)('%s shows no drift against the installed server its provenance names', async (file) => {
    const cassette = loadCassette(join(folder, file));
    expect(await verifyCassette(cassette, cassette.provenance.command!, { cwd: ROOT })).toEqual([]);
  });

  // An HTTP one against the server its provenance names, started here on a free port, as it was recorded.
  // A drift planted in the first of each kind of server is found: the same comparison for the others of
  // its kind (a whole verification again: 8 to 12 s each behind the OIDC gateway).
  const kinds = new Set<string>();
  const cases = httpFiles.map((file) => {
    const kind = serverKind(loadCassette(join(folder, file)));
    const plant = !kinds.has(kind);
    kinds.add(kind);
    return [file, plant ? '; a planted one is found' : '', plant] as const;
  });
  it.each(cases)('%s shows no drift against the installed server, over Streamable HTTP%s', async (file, _title, plant) => {
    const cassette = loadCassette(join(folder, file));
    const kind = serverKind(cassette);
    const resumable = kind === 'resumable';
    // behind OAuth: verify runs the recorded authorization again against the live authorization server
    const oauth = kind === 'sdk-oauth';
    const oidc = kind === 'oidc';
    // the gateway's options as its command gives them (`env STEP_UP_TOOL=echo node ...`)
    const options = Object.fromEntries(
      (cassette.provenance.command ?? []).flatMap((word) => (/^[A-Z_]+=/.test(word) ? [word.split('=', 2) as [string, string]] : [])),
    );
    const server = await (resumable ? startResumableHttp() : oauth ? startSdkOAuthServer() : oidc ? startOidcGateway(options) : startEverythingHttp());
    try {
      expect(await verifyHttpCassette(cassette, server.url)).toEqual([]);
      if (!plant) return;
      const planted = structuredClone(cassette);
      const answer = planted.frames.find((frame) => frame.from === 'server' && frame.message.id === 0 && 'result' in frame.message)!;
      if (answer.from === 'server') (answer.message.result as { serverInfo: { name: string } }).serverInfo.name = 'another server';
      expect((await verifyHttpCassette(planted, server.url)).map((drift) => drift.message)).toEqual([
        `a response to request 0 changed at result.serverInfo.name: recorded "another server", now "${resumable ? 'resumable-server' : oauth ? 'simple-streamable-http-server' : 'mcp-servers/everything'}"`,
      ]);
    } finally {
      await server.stop();
    }
  });

  it('the handshake with a notification before the initialize result is one the SDK client completes', async () => {
    const session = await runSession(cassetteCommand('replay', join(folder, 'everything-handshake-notice-first.yaml')), [(client) => client.ping()]);
    expect(session.results).toEqual([{}]);
    expect((session.server as { version: { name: string } }).version.name).toBe('mcp-servers/everything');
  });
});

/** The server an HTTP cassette was recorded from, by its provenance's command. */
function serverKind(cassette: ReturnType<typeof loadCassette>): 'resumable' | 'sdk-oauth' | 'oidc' | 'everything' {
  const command = cassette.provenance.command ?? [];
  return command.includes(RESUMABLE_ENTRY)
    ? 'resumable'
    : command.includes(SDK_OAUTH_ENTRY)
      ? 'sdk-oauth'
      : command.includes(OIDC_GATEWAY_ENTRY)
        ? 'oidc'
        : 'everything';
}
