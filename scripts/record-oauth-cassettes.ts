// Records the committed authorization cassette (cassettes/sdk-oauth-http.yaml): the TypeScript SDK's
// example server with OAuth (its own auth router on a port of its own) on free ports, `record --http`
// in front of it, and the official SDK client with an OAuth client provider driving the whole flow
// (401, discovery, registration, authorize, token) and tools/list through the recorder.
// `node --import tsx scripts/record-oauth-cassettes.ts`
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runOAuthSession, SDK_OAUTH_ENTRY, startSdkOAuthServer } from './oauth-session.ts';
import { ROOT, startRecorder } from './record-http-cassettes.ts';

export const OAUTH_CASSETTE = 'sdk-oauth-http.yaml';

async function main(): Promise<void> {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { name: string; version: string };
  const server = await startSdkOAuthServer();
  const out = join('cassettes', OAUTH_CASSETTE);
  try {
    const recorder = await startRecorder(['--out', out, '--http', server.url, '--force']);
    if (recorder.url === '') throw new Error((await recorder.exited).stderr.trim());
    await runOAuthSession(recorder.url);
    const { code, stderr } = await recorder.exited;
    process.stdout.write(`${OAUTH_CASSETTE}: ${stderr.trim().split('\n').at(-1)}\n`);
    if (code !== 0) throw new Error(`the recorder exited ${code}`);
  } finally {
    await server.stop();
  }
  const { loadCassette } = await import('../harness/cassette/format.ts');
  const { saveCassette } = await import('../harness/cassette/save.ts');
  const file = join(ROOT, out);
  const cassette = loadCassette(file, { diskCache: false });
  delete cassette.file;
  cassette.frames = cassette.frames.map(({ line: _line, ...frame }) => frame);
  cassette.provenance = {
    command: ['node', SDK_OAUTH_ENTRY, '--oauth', '--oauth-strict'],
    url: 'http://localhost/mcp',
    package: manifest.name,
    packageVersion: manifest.version,
    recorded: cassette.provenance.recorded,
    recorder: cassette.provenance.recorder,
    note: "the SDK's example server with OAuth (its auth router, the authorization server, on a port of its own: env MCP_PORT, MCP_AUTH_PORT), the official SDK client with an OAuth client provider through theinference record --http: 401, resource metadata, authorization server metadata, registration, authorize (PKCE S256), token, then initialize with the token, tools/list, DELETE (scripts/record-oauth-cassettes.ts)",
  };
  saveCassette(cassette, file, { overwrite: true });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
