// A general, certified authorization server in front of a reference MCP server: oidc-provider (an
// OpenID Certified OAuth 2.0 / OpenID Connect server from npm) with dynamic registration, resource
// indicators and introspection, and server-everything's Streamable HTTP behind a resource server
// that takes only tokens oidc-provider issued for it (checked by introspection) and serves its
// protected resource metadata. The sign-in a person would do is done at once for one user (the
// interaction finished as it starts), so that a client's browser step is a chain of redirects.
// With STEP_UP_TOOL, calling that tool takes the scope mcp:admin as well: a token without it is
// answered 403 insufficient_scope (RFC 6750 3.1), naming the scopes to ask for (a step-up).
// With TOKEN_USES=n, an access token is good for n JSON-RPC requests (notifications, the GET stream
// and DELETE aside: their order is the client's), then expired (401 invalid_token), and every token
// response carries a refresh token: a client refreshes. With GRANT_ENDS=1 as well, the grant ends
// when its token expires (as when the user signs out at the authorization server): the refresh is
// refused (invalid_grant), and only a new authorization goes on.
// With CLIENT_METADATA=1, oidc-provider takes Client ID Metadata Documents (it says
// client_id_metadata_document_supported; registration stays on): the course client's document is
// answered here, for its URL under .example (scripts/course-client.ts), as its host would.
// It holds the course client's registration from an earlier run (KEPT_REGISTRATION), as an
// authorization server keeps the clients registered with it.
// With REFRESH_TOKENS=0 (beside TOKEN_USES), no token response carries a refresh token (oidc-provider's
// own policy: only for offline_access, which no client here asks for): a client authorizes again.
// With OPENID_ONLY=1, the authorization server's metadata is at OpenID Connect discovery only
// (/.well-known/openid-configuration): the gateway answers 404 in front of oidc-provider's RFC 8414
// route, as an OpenID provider that serves no other discovery does.
// With RESOURCE_METADATA=root, the protected resource metadata is at the root well-known URL only
// (/.well-known/oauth-protected-resource), for the whole origin (its resource the origin, RFC 9728
// 3.3), and no 401 names it; with RESOURCE_METADATA=/a/path, it is at that path only, which every
// 401 and 403 names (resource_metadata). Every other well-known path of the MCP server answers 404.
// Ports from MCP_PORT and MCP_AUTH_PORT, on localhost; ready when it prints "listening".
import { spawn } from 'node:child_process';
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import Provider from 'oidc-provider';
import { CLIENT_METADATA_DOCUMENT, CLIENT_METADATA_URL, KEPT_REGISTRATION } from './course-client.ts';
import { EVERYTHING_ENTRY, freePort, ROOT, waitForOutput } from './record-http-cassettes.ts';

const mcpPort = Number(process.env.MCP_PORT ?? 3000);
const authPort = Number(process.env.MCP_AUTH_PORT ?? 3001);
const issuer = `http://localhost:${authPort}`;
const resourceMetadata = process.env.RESOURCE_METADATA;
const atRoot = resourceMetadata === 'root';
/** The resource the metadata names: the MCP endpoint, or the whole origin for metadata at the root. */
const resource = atRoot ? `http://localhost:${mcpPort}/` : `http://localhost:${mcpPort}/mcp`;
const GATEWAY = { client_id: 'mcp-gateway', client_secret: 'the-gateway-introspects-with-this-secret' };
const stepUpTool = process.env.STEP_UP_TOOL;
const tokenUses = process.env.TOKEN_USES === undefined ? undefined : Number(process.env.TOKEN_USES);
const grantEnds = process.env.GRANT_ENDS === '1';
const clientMetadata = process.env.CLIENT_METADATA === '1';
const refreshTokens = process.env.REFRESH_TOKENS !== '0';
const openidOnly = process.env.OPENID_ONLY === '1';
/** MCP requests made with each access token (TOKEN_USES). */
const uses = new Map<string, number>();

const provider = new Provider(issuer, {
  clients: [{ ...GATEWAY, redirect_uris: [], response_types: [], grant_types: [] }, KEPT_REGISTRATION],
  scopes: ['openid', 'offline_access', 'mcp:tools', 'mcp:admin'],
  // a registration's scope does not limit what the client may ask for later: a client registered with
  // mcp:tools may step up to mcp:admin (oidc-provider would otherwise refuse it invalid_scope)
  extraClientMetadata: {
    properties: ['scope'],
    validator: (_ctx, key, _value, metadata) => {
      if (key === 'scope') delete metadata.scope;
    },
  },
  pkce: { required: () => true },
  cookies: { keys: ['a-cookie-key-of-this-test-server'] },
  features: {
    devInteractions: { enabled: false },
    registration: { enabled: true },
    clientIdMetadataDocument: { enabled: clientMetadata, ack: 'draft-02' },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'mcp:tools mcp:admin', audience: resource, accessTokenFormat: 'opaque' }),
    },
  },
  // the course client's metadata document, from its host; every other URL fetched as oidc-provider would
  fetch: (url: string | URL, options: RequestInit) =>
    String(url) === CLIENT_METADATA_URL
      ? Promise.resolve(Response.json(CLIENT_METADATA_DOCUMENT, { headers: { 'cache-control': 'max-age=300' } }))
      : fetch(url, options),
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  // with TOKEN_USES, a refresh token for every client that may use one (offline_access asked or not)
  ...(tokenUses !== undefined &&
    refreshTokens && {
      issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    }),
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
});

/** The sign-in and consent, given at once: one user, every scope and the resource asked for. */
async function finishInteraction(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const details = await provider.interactionDetails(req, res);
  const params = details.params as { client_id: string; scope?: string; resource?: string };
  const grant = new provider.Grant({ accountId: 'course-user', clientId: params.client_id });
  // what the consent prompt says is missing, granted
  const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(indicator, scopes.join(' '));
  if (params.resource)
    grant.addResourceScope(
      params.resource,
      (params.scope ?? 'mcp:tools')
        .split(' ')
        .filter((scope) => scope.startsWith('mcp:'))
        .join(' ') || 'mcp:tools',
    );
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { login: { accountId: 'course-user' }, consent: { grantId } }, { mergeWithLastSubmission: false });
}

const providerCallback = provider.callback();
createServer((req, res) => {
  if (openidOnly && req.url?.startsWith('/.well-known/oauth-authorization-server')) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    return;
  }
  if (req.url?.startsWith('/interaction/')) {
    finishInteraction(req, res).catch((error: Error) => res.writeHead(500).end(error.message));
    return;
  }
  providerCallback(req, res);
}).listen(authPort);

// server-everything behind the resource server
const everythingPort = await freePort();
const everything = spawn(process.execPath, [join(ROOT, EVERYTHING_ENTRY), 'streamableHttp'], {
  env: { ...process.env, PORT: String(everythingPort) },
  stdio: ['ignore', 'pipe', 'pipe'],
});
await waitForOutput(everything, /listening on port/, 'server-everything');
everything.stdout!.resume();
everything.stderr!.resume();
const stopAll = () => {
  everything.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGTERM', stopAll);
process.on('SIGINT', stopAll);

const keepAlive = new Agent({ keepAlive: true });
const metadataPath = atRoot ? '/.well-known/oauth-protected-resource' : (resourceMetadata ?? '/.well-known/oauth-protected-resource/mcp');
/** A Bearer challenge with `parameters`, naming the resource metadata unless it is at the root. */
const bearer = (parameters: string[]) =>
  `Bearer ${[...parameters, ...(atRoot ? [] : [`resource_metadata="http://localhost:${mcpPort}${metadataPath}"`])].join(', ')}`.trimEnd();
const challenge = bearer([]);

/** The token's scopes, if oidc-provider says it is active and issued for this server. */
async function scopesOf(header: string | undefined): Promise<string[] | undefined> {
  const token = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (!token) return undefined;
  const reply = await fetch(`${issuer}/token/introspection`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token, ...GATEWAY }),
  });
  const info = (await reply.json()) as { active?: boolean; aud?: string | string[]; scope?: string };
  return info.active === true && [info.aud].flat().includes(resource) ? (info.scope ?? '').split(' ') : undefined;
}

/** The grant of the access token in `header` ended at oidc-provider: its refresh token is refused from now on. */
async function endGrant(header: string): Promise<void> {
  const token = await provider.AccessToken.find(header.replace(/^Bearer\s+/i, ''));
  const grant = token?.grantId === undefined ? undefined : await provider.Grant.find(token.grantId);
  await grant?.destroy();
}

/** A POST's body (read whole: the gateway's own requests are small): whether it calls the step-up
 *  tool, and whether it is a request (a method and an id). */
async function readBody(req: IncomingMessage): Promise<{ body: Buffer; stepUp: boolean; request: boolean }> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  try {
    const message = JSON.parse(body.toString('utf8')) as { method?: string; id?: unknown; params?: { name?: string } };
    const stepUp = stepUpTool !== undefined && message.method === 'tools/call' && message.params?.name === stepUpTool;
    return { body, stepUp, request: message.method !== undefined && message.id !== undefined };
  } catch {
    return { body, stepUp: false, request: false };
  }
}

createServer((req, res) => {
  if (req.url === metadataPath) {
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ resource, authorization_servers: [issuer], scopes_supported: ['mcp:tools'], bearer_methods_supported: ['header'] }));
    return;
  }
  if (req.url?.startsWith('/.well-known/')) {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    return;
  }
  Promise.all([scopesOf(req.headers.authorization), readBody(req)]).then(
    async ([scopes, { body, stepUp, request }]) => {
      if (!scopes) {
        res
          .writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' })
          .end(JSON.stringify({ error: 'invalid_token', error_description: 'a bearer token for this server is required' }));
        return;
      }
      const token = req.headers.authorization ?? '';
      if (request) uses.set(token, (uses.get(token) ?? 0) + 1);
      if (tokenUses !== undefined && request && uses.get(token)! > tokenUses) {
        if (grantEnds) await endGrant(token);
        res
          .writeHead(401, {
            'www-authenticate': bearer(['error="invalid_token"', 'error_description="the access token expired"']),
            'content-type': 'application/json',
          })
          .end(JSON.stringify({ error: 'invalid_token', error_description: 'the access token expired' }));
        return;
      }
      if (stepUp && !scopes.includes('mcp:admin')) {
        res
          .writeHead(403, {
            'www-authenticate': bearer(['error="insufficient_scope"', 'scope="mcp:tools mcp:admin"']),
            'content-type': 'application/json',
          })
          .end(JSON.stringify({ error: 'insufficient_scope', error_description: `${stepUpTool} takes the scope mcp:admin` }));
        return;
      }
      // the token stops here; connection headers are each hop's own (a client's close must not end the session's socket)
      const { authorization: _token, connection: _connection, 'keep-alive': _keepAlive, ...headers } = req.headers;
      headers.host = `127.0.0.1:${everythingPort}`;
      const forwarded = httpRequest({ host: '127.0.0.1', port: everythingPort, method: req.method, path: req.url, headers, agent: keepAlive }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forwarded.on('error', () => res.destroy());
      res.on('close', () => forwarded.destroy());
      forwarded.end(body);
    },
    () => res.writeHead(502).end(),
  );
}).listen(mcpPort, () => console.log(`oidc-gateway listening: MCP ${resource}, authorization server ${issuer}`));
