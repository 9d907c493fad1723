// The OAuth side of the authorization cassettes: the TypeScript SDK's reference server with OAuth
// (its example Streamable HTTP server with `--oauth --oauth-strict`: the SDK's own auth router in
// front of it, on a port of its own) started on free ports, and the official SDK client with an OAuth
// client provider of its own driving a whole flow: 401, discovery, registration, authorize (the
// redirect read off the authorize reply, as a browser would follow it), token, then the MCP session
// with the token. Shared by scripts/record-oauth-cassettes.ts and the tests, which drive the same
// session live, through `record --http` and through `replay --http`.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { freePort, ROOT, waitForOutput, type Running } from './record-http-cassettes.ts';
import { browse } from './browser.ts';
import { REDIRECT_URL } from './course-client.ts';

export const SDK_OAUTH_ENTRY = 'node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js';

/** The SDK's example server with OAuth on free ports: MCP at `url` (on localhost, the name its
 *  resource check expects), its authorization server on a port of its own. */
export function startSdkOAuthServer(): Promise<Running & { authUrl: string; output: () => string }> {
  return startOAuthServer([join(ROOT, SDK_OAUTH_ENTRY), '--oauth', '--oauth-strict'], /MCP Streamable HTTP Server listening/, 'the SDK OAuth example server');
}

export const OIDC_GATEWAY_ENTRY = 'scripts/oidc-gateway.ts';

/** oidc-provider in front of server-everything (scripts/oidc-gateway.ts), on free ports; `env`: its
 *  options (STEP_UP_TOOL). */
export function startOidcGateway(env: Record<string, string> = {}): Promise<Running & { authUrl: string; output: () => string }> {
  return startOAuthServer(['--import', 'tsx', join(ROOT, OIDC_GATEWAY_ENTRY)], /oidc-gateway listening/, 'the oidc-provider gateway', env);
}

async function startOAuthServer(
  args: string[],
  ready: RegExp,
  what: string,
  env: Record<string, string> = {},
): Promise<Running & { authUrl: string; output: () => string }> {
  const port = await freePort();
  const authPort = await freePort();
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, MCP_PORT: String(port), MCP_AUTH_PORT: String(authPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForOutput(child, ready, what);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { url: `http://localhost:${port}/mcp`, authUrl: `http://localhost:${authPort}`, port, child, stop, output: () => output };
}

export { REDIRECT_URL } from './course-client.ts';

/** What the client held during the flow: every value a cassette must not hold. */
export interface FlowSecrets {
  client?: OAuthClientInformationMixed;
  tokens?: OAuthTokens;
  verifier?: string;
  code?: string;
  state?: string;
}

/** How a client may be made to deviate, one rule at a time, for the player to name. */
export interface Deviation {
  /** Rewrites the authorize URL before it is followed. */
  authorizeUrl?: (url: URL) => URL;
  /** Rewrites the code verifier sent to the token endpoint. */
  verifier?: (verifier: string) => string;
}

export interface OAuthSessionResult {
  tools: string[];
  /** The text of each call's result, in turn. */
  calls: string[];
  secrets: FlowSecrets;
  /** The authorize reply's Location, as the client followed it. */
  location?: string;
}

/** What a session's client does beyond the flow, and what it starts with. */
export interface SessionPlan {
  /** Made after tools/list, in turn. */
  calls?: { name: string; arguments?: Record<string, unknown> }[];
  /** The client's metadata document URL, its client_id where the authorization server takes one. */
  clientMetadataUrl?: string;
  /** A registration the client kept from an earlier run: it registers nothing. */
  registered?: OAuthClientInformationMixed;
  /** It registers as a public client (token_endpoint_auth_method none), not with client_secret_post. */
  publicClient?: boolean;
}

/** The SDK client through the whole flow against `url`, then tools/list, each call of the plan (one
 *  the server refuses for want of a scope authorized again, as the SDK's transport starts it, and
 *  made again), and DELETE. */
export async function runOAuthSession(url: string, deviation: Deviation = {}, plan: SessionPlan = {}): Promise<OAuthSessionResult> {
  const { calls = [], clientMetadataUrl, registered, publicClient = false } = plan;
  const secrets: FlowSecrets = registered === undefined ? {} : { client: structuredClone(registered) };
  let location: string | undefined;
  const provider: OAuthClientProvider = {
    // its metadata document's URL as client_id, where the authorization server takes one
    clientMetadataUrl,
    get redirectUrl() {
      return REDIRECT_URL;
    },
    get clientMetadata() {
      return {
        client_name: 'theinference oauth test',
        redirect_uris: [REDIRECT_URL],
        application_type: 'native', // 2026-07-28: MCP clients MUST specify it; the redirect is on localhost
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: publicClient ? 'none' : 'client_secret_post',
      };
    },
    state: () => {
      secrets.state = crypto.randomUUID();
      return secrets.state;
    },
    clientInformation: () => secrets.client,
    saveClientInformation: (client) => {
      secrets.client = client;
    },
    // refused a refresh token (invalid_grant), the SDK starts over without it: a new authorization
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') secrets.tokens = undefined;
      if (scope === 'all' || scope === 'client') secrets.client = undefined;
    },
    tokens: () => secrets.tokens,
    saveTokens: (tokens) => {
      secrets.tokens = tokens;
    },
    async redirectToAuthorization(authorizeUrl) {
      const target = deviation.authorizeUrl ? deviation.authorizeUrl(new URL(authorizeUrl)) : new URL(authorizeUrl);
      const sentState = target.searchParams.get('state'); // a client checks what it sent
      location = await browse(target, REDIRECT_URL);
      const back = new URL(location);
      if (back.searchParams.get('state') !== sentState) throw new Error(`the redirect came back with another state: ${back.searchParams.get('state')}`);
      secrets.code = back.searchParams.get('code') ?? undefined;
    },
    saveCodeVerifier: (verifier) => {
      secrets.verifier = verifier;
    },
    codeVerifier: () => (deviation.verifier ? deviation.verifier(secrets.verifier!) : secrets.verifier!),
  };
  const connect = async (transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider })) => {
    const client = new Client({ name: 'oauth-test', version: '1.0.0' }, { capabilities: {} });
    await client.connect(transport);
    return { client, transport };
  };
  let session: Awaited<ReturnType<typeof connect>>;
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  try {
    session = await connect(first);
  } catch (error) {
    if (!(error instanceof UnauthorizedError) || secrets.code === undefined) throw error;
    // the code traded by the transport that was refused: it keeps the resource metadata URL the 401 named
    await first.finishAuth(secrets.code);
    session = await connect();
  }
  const tools = (await session.client.listTools()).tools.map((tool) => tool.name);
  const results: string[] = [];
  for (const call of calls) {
    const made = () => session.client.callTool(call);
    const result = await made().catch(async (error: unknown) => {
      // a step-up: the transport sent the user to authorize again (UnauthorizedError); trade the new code, then call again
      if (!(error instanceof UnauthorizedError) || secrets.code === undefined) throw error;
      await session.transport.finishAuth(secrets.code);
      return made();
    });
    results.push((result.content as { text?: string }[]).map((item) => item.text ?? '').join(' '));
  }
  await session.transport.terminateSession();
  await session.client.close();
  return { tools, calls: results, secrets, location };
}
