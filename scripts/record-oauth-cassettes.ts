// Records the committed authorization cassettes: a real authorization server in front of an MCP
// server, on free ports, `record --http` in front of them, and the official SDK client with an
// OAuth client provider driving the whole flow (401, discovery, registration, authorize, token)
// and tools/list through the recorder.
//   sdk-oauth-http.yaml   the TypeScript SDK's example server with OAuth (its own auth router)
//   oidc-oauth-http.yaml  oidc-provider (OpenID Certified) in front of server-everything (scripts/oidc-gateway.ts)
//   oidc-step-up-http.yaml  the same, its echo tool taking the scope mcp:admin: a 403 insufficient_scope, a step-up
//   oidc-refresh-http.yaml  the same, an access token good for two requests: a 401 invalid_token, a refresh
//   oidc-client-metadata-http.yaml  the same, taking Client ID Metadata Documents: no registration
//   oidc-grant-ended-http.yaml  the same, the grant ending with the token: the refresh refused, a new authorization
//   oidc-registration-kept-http.yaml  the same, the client starting with its registration of an earlier run: no registration
//   oidc-openid-discovery-http.yaml  the same, its metadata at OpenID Connect discovery only (none at RFC 8414's well-known URI)
//   oidc-metadata-named-http.yaml  the same, the resource metadata only at the URL the 401 names, not a well-known one
//   oidc-metadata-at-root-http.yaml  the same, the resource metadata only at the root well-known URL, which no 401 names
//   oidc-no-refresh-http.yaml  the same, an access token good for two requests and no refresh token: a new authorization
//   oidc-refresh-rotated-http.yaml  the same, a public client and three calls: two refreshes, the refresh token rotated at each
// `node --import tsx scripts/record-oauth-cassettes.ts [file ...]`
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OIDC_GATEWAY_ENTRY, runOAuthSession, SDK_OAUTH_ENTRY, type SessionPlan, startOidcGateway, startSdkOAuthServer } from './oauth-session.ts';
import { CLIENT_METADATA_URL, KEPT_REGISTRATION } from './course-client.ts';
import { ROOT, startRecorder } from './record-http-cassettes.ts';

const version = (dir: string) => (JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string }).version;

const FLOW =
  '401, resource metadata, authorization server metadata, registration, authorize (PKCE S256), token, then initialize with the token, tools/list, DELETE';
/** The step-up recording's call: the gateway's STEP_UP_TOOL. */
export const STEP_UP_CALL = { name: 'echo', arguments: { message: 'with the scope it takes' } };
/** The refresh recording's call: the third request, made with a token good for two. */
export const REFRESH_CALL = { name: 'echo', arguments: { message: 'with a refreshed token' } };

/** The grant-ended recording's call: the third request, its token expired and its grant ended. */
export const GRANT_ENDED_CALL = { name: 'echo', arguments: { message: 'after the grant ended' } };

/** The no-refresh recording's call: the third request, its token expired, no refresh token given. */
export const NO_REFRESH_CALL = { name: 'echo', arguments: { message: 'without a refresh token' } };

/** The rotation recording's calls, each token good for two requests: the first and the third are
 *  each answered 401 (expired), so the client refreshes twice, the second time with the refresh
 *  token the first refresh gave. */
export const ROTATED_CALLS = [
  { name: 'echo', arguments: { message: 'after the first refresh' } },
  { name: 'echo', arguments: { message: 'with the token the first refresh gave' } },
  { name: 'echo', arguments: { message: 'after the second refresh' } },
];

/** Where the named-metadata recording's MCP server serves its resource metadata: no well-known URL. */
export const NAMED_METADATA_PATH = '/auth/resource-metadata';

export const OAUTH_CASSETTES: ({
  file: string;
  start(): ReturnType<typeof startOidcGateway>;
  command: string[];
  package: string;
  packageDir: string;
  note(): string;
} & SessionPlan)[] = [
  {
    file: 'sdk-oauth-http.yaml',
    start: startSdkOAuthServer,
    command: ['node', SDK_OAUTH_ENTRY, '--oauth', '--oauth-strict'],
    package: '@modelcontextprotocol/sdk',
    packageDir: 'node_modules/@modelcontextprotocol/sdk',
    note: () =>
      `the SDK's example server with OAuth (its auth router, the authorization server, on a port of its own: env MCP_PORT, MCP_AUTH_PORT), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW} (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-oauth-http.yaml',
    start: startOidcGateway,
    command: ['node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} (OpenID Certified; dynamic registration, resource indicators, introspection; the sign-in given at once, two interactions) in front of server-everything behind a resource server that introspects each token (scripts/oidc-gateway.ts; env MCP_PORT, MCP_AUTH_PORT), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW} (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-step-up-http.yaml',
    start: () => startOidcGateway({ STEP_UP_TOOL: STEP_UP_CALL.name }),
    command: ['env', `STEP_UP_TOOL=${STEP_UP_CALL.name}`, 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    calls: [STEP_UP_CALL],
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with STEP_UP_TOOL=${STEP_UP_CALL.name}: a call of ${STEP_UP_CALL.name} takes the scope mcp:admin), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW.replace(', DELETE', '')}, then tools/call ${STEP_UP_CALL.name} answered 403 insufficient_scope (scope="mcp:tools mcp:admin"), the authorization again for both scopes (no second registration), the call again with the new token, DELETE (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-refresh-http.yaml',
    start: () => startOidcGateway({ TOKEN_USES: '2' }),
    command: ['env', 'TOKEN_USES=2', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    calls: [REFRESH_CALL],
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with TOKEN_USES=2: an access token is good for two JSON-RPC requests, and every token response carries a refresh token), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW.replace(', DELETE', '')}, then tools/call ${REFRESH_CALL.name} answered 401 invalid_token (the token expired), a refresh (grant_type refresh_token), the call again with the new token, DELETE (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-client-metadata-http.yaml',
    start: () => startOidcGateway({ CLIENT_METADATA: '1' }),
    command: ['env', 'CLIENT_METADATA=1', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    clientMetadataUrl: CLIENT_METADATA_URL,
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with CLIENT_METADATA=1: it takes Client ID Metadata Documents, and fetches the course client's from ${CLIENT_METADATA_URL}, answered by the gateway), the official SDK client with an OAuth client provider whose clientMetadataUrl is that URL, through theinference record --http: ${FLOW.replace('registration, ', '')}, the URL as client_id (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-grant-ended-http.yaml',
    start: () => startOidcGateway({ TOKEN_USES: '2', GRANT_ENDS: '1' }),
    command: ['env', 'TOKEN_USES=2', 'GRANT_ENDS=1', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    calls: [GRANT_ENDED_CALL],
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with TOKEN_USES=2 and GRANT_ENDS=1: an access token is good for two JSON-RPC requests, and when it expires its grant ends, as when the user signs out), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW.replace(', DELETE', '')}, then tools/call ${GRANT_ENDED_CALL.name} answered 401 invalid_token, a refresh refused 400 invalid_grant, the authorization again (no second registration), the call again with the new token, DELETE (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-registration-kept-http.yaml',
    start: startOidcGateway,
    command: ['node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    registered: KEPT_REGISTRATION,
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts, which holds the course client's registration of an earlier run, ${KEPT_REGISTRATION.client_id}: a public client), the official SDK client with an OAuth client provider that starts with that registration, through theinference record --http: ${FLOW.replace('registration, ', '')}, the kept client_id in the authorization and token requests (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-openid-discovery-http.yaml',
    start: () => startOidcGateway({ OPENID_ONLY: '1' }),
    command: ['env', 'OPENID_ONLY=1', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with OPENID_ONLY=1: the authorization server's metadata only at OpenID Connect discovery, /.well-known/openid-configuration; the gateway answers 404 in front of oidc-provider's RFC 8414 route), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW.replace('authorization server metadata', 'authorization server metadata (RFC 8414 404, then OpenID Connect discovery)')} (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-metadata-named-http.yaml',
    start: () => startOidcGateway({ RESOURCE_METADATA: NAMED_METADATA_PATH }),
    command: ['env', `RESOURCE_METADATA=${NAMED_METADATA_PATH}`, 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with RESOURCE_METADATA=${NAMED_METADATA_PATH}: the protected resource metadata only at that path, which the 401's resource_metadata names; every well-known path of the MCP server answers 404), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW} (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-metadata-at-root-http.yaml',
    start: () => startOidcGateway({ RESOURCE_METADATA: 'root' }),
    command: ['env', 'RESOURCE_METADATA=root', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with RESOURCE_METADATA=root: the protected resource metadata only at the root, /.well-known/oauth-protected-resource, for the whole origin, its resource the origin; the 401 names no resource_metadata), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW.replace('resource metadata', "resource metadata (at the MCP endpoint's path 404, then at the root)")} (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-no-refresh-http.yaml',
    start: () => startOidcGateway({ TOKEN_USES: '2', REFRESH_TOKENS: '0' }),
    command: ['env', 'TOKEN_USES=2', 'REFRESH_TOKENS=0', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    calls: [NO_REFRESH_CALL],
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with TOKEN_USES=2 and REFRESH_TOKENS=0: an access token is good for two JSON-RPC requests, and no token response carries a refresh token), the official SDK client with an OAuth client provider through theinference record --http: ${FLOW.replace(', DELETE', '')}, then tools/call ${NO_REFRESH_CALL.name} answered 401 invalid_token, the authorization again (no refresh token to use; no second registration), the call again with the new token, DELETE (scripts/record-oauth-cassettes.ts)`,
  },
  {
    file: 'oidc-refresh-rotated-http.yaml',
    start: () => startOidcGateway({ TOKEN_USES: '2' }),
    command: ['env', 'TOKEN_USES=2', 'node', '--import', 'tsx', OIDC_GATEWAY_ENTRY],
    package: '@modelcontextprotocol/server-everything',
    packageDir: 'node_modules/@modelcontextprotocol/server-everything',
    calls: ROTATED_CALLS,
    publicClient: true,
    note: () =>
      `oidc-provider ${version('node_modules/oidc-provider')} in front of server-everything (scripts/oidc-gateway.ts with TOKEN_USES=2: an access token is good for two JSON-RPC requests, and every token response carries a refresh token; oidc-provider's default policy rotates a public client's refresh token at each refresh), the official SDK client with an OAuth client provider registered as a public client (token_endpoint_auth_method none) through theinference record --http: ${FLOW.replace(', DELETE', '')}, then tools/call ${ROTATED_CALLS[0]!.name} answered 401 invalid_token, a refresh (a new refresh token in its response), the call again, a second call, a third answered 401 invalid_token, a refresh with the new refresh token, the third call again, DELETE (scripts/record-oauth-cassettes.ts)`,
  },
];

async function main(named: string[]): Promise<void> {
  const { loadCassette } = await import('../harness/cassette/format/format.ts');
  const { saveCassette } = await import('../harness/cassette/format/save.ts');
  for (const recorded of OAUTH_CASSETTES.filter((one) => named.length === 0 || named.includes(one.file))) {
    const server = await recorded.start();
    const out = join('cassettes', recorded.file);
    try {
      const recorder = await startRecorder(['--out', out, '--http', server.url, '--force']);
      if (recorder.url === '') throw new Error((await recorder.exited).stderr.trim());
      await runOAuthSession(recorder.url, {}, recorded);
      const { code, stderr } = await recorder.exited;
      process.stdout.write(`${recorded.file}: ${stderr.trim().split('\n').at(-1)}\n`);
      if (code !== 0) throw new Error(`the recorder exited ${code}`);
    } finally {
      await server.stop();
    }
    const file = join(ROOT, out);
    const cassette = loadCassette(file, { diskCache: false });
    delete cassette.file;
    cassette.frames = cassette.frames.map(({ line: _line, ...frame }) => frame);
    cassette.provenance = {
      command: recorded.command,
      url: 'http://localhost/mcp',
      package: recorded.package,
      packageVersion: version(recorded.packageDir),
      recorded: cassette.provenance.recorded,
      recorder: cassette.provenance.recorder,
      note: recorded.note(),
    };
    saveCassette(cassette, file, { overwrite: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
