// The authorization recorded and replayed, from two real authorization servers from npm: the
// TypeScript SDK's own auth router (its example server with OAuth) and oidc-provider, an OpenID
// Certified server, in front of server-everything (scripts/oidc-gateway.ts, a sign-in on the way).
// With each, the official SDK client with an OAuth client provider runs the whole flow (401,
// discovery, registration, authorize, token, the MCP session with the token) live, through `record
// --http` and through `replay --http`; nothing secret is in the cassette or in what the recorder
// printed; verify runs it again against the live servers; and a client that deviates is told which
// rule it broke, with the spec's section.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format/format.ts';
import { lintCassette } from '../../harness/cassette/format/lint.ts';
import type { AuthFrame, Cassette } from '../../harness/cassette/format/model.ts';
import { MCP_KINDS as KINDS } from '../../harness/cassette/kinds/index.ts';
import { AUTHORIZATION_PATH, s256 } from '../../harness/authorization/index.ts';
import { serveCassette } from '../../harness/transports/http/serve.ts';
import { verifyHttpCassette } from '../../harness/transports/http/verify-link.ts';
import {
  REDIRECT_URL,
  runOAuthSession,
  SDK_OAUTH_ENTRY,
  startOidcGateway,
  startSdkOAuthServer,
  type Deviation,
  type FlowSecrets,
  type SessionPlan,
} from '../../scripts/oauth-session.ts';
import { KEPT_REGISTRATION } from '../../scripts/course-client.ts';
import { freePort, ROOT, startRecorder, waitForOutput, type Running } from '../../scripts/record-http-cassettes.ts';

/** Every value of the flow a cassette must not hold. */
function secretValues(secrets: FlowSecrets): string[] {
  const client = secrets.client as { client_id?: string; client_secret?: string } | undefined;
  const values = [
    client?.client_id,
    client?.client_secret,
    secrets.tokens?.access_token,
    secrets.tokens?.refresh_token,
    secrets.verifier,
    secrets.code,
    secrets.state,
  ];
  return values.filter((value): value is string => typeof value === 'string' && value !== '');
}

/** One session of the SDK client through `record --http` in front of `url`, into `out`: what the
 *  client held, how the recorder ended, and the cassette it wrote. */
async function recordSession(url: string, out: string, plan: SessionPlan = {}) {
  const proxy = await startRecorder(['--out', out, '--http', url]);
  const session = await runOAuthSession(proxy.url, {}, plan);
  const recorder = await proxy.exited;
  return { session, recorder, cassette: loadCassette(out, { diskCache: false }) };
}

const authFrames = (of: Cassette) => of.frames.filter((frame): frame is AuthFrame => frame.from === 'auth');

/** Which step of the flow an exchange is, whatever the server calls its endpoints. */
function stepOf(frame: AuthFrame): string {
  if (frame.request.path.startsWith('/.well-known/')) return frame.request.path;
  if (frame.request.query?.response_type !== undefined) return 'authorization';
  if (frame.request.form?.grant_type !== undefined) return 'token';
  if (Array.isArray((frame.request.json as { redirect_uris?: unknown } | undefined)?.redirect_uris)) return 'registration';
  return 'other'; // a sign-in's redirects
}

const SERVERS = [
  // (oidc-provider names itself in the redirect, RFC 9207's iss; the SDK's router does not)
  { name: "the SDK's auth router", start: startSdkOAuthServer, namesIssuer: false },
  { name: 'oidc-provider in front of server-everything', start: startOidcGateway, namesIssuer: true },
];

describe.each(SERVERS)('from $name', ({ start, namesIssuer }) => {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-'));
  const out = join(dir, 'sdk-oauth.yaml');
  let server: Awaited<ReturnType<typeof startSdkOAuthServer>> & Running;
  let live: Awaited<ReturnType<typeof runOAuthSession>>;
  let recorded: Awaited<ReturnType<typeof runOAuthSession>>;
  let recorder: { code: number | null; stderr: string };
  let cassette: Cassette;

  beforeAll(async () => {
    server = await start();
    live = await runOAuthSession(server.url);
    ({ session: recorded, recorder, cassette } = await recordSession(server.url, out));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  describe('the authorization recorded', () => {
    it('is the same session through the recorder as live: every tool, and the recorder exits 0', () => {
      expect(recorder.code, recorder.stderr).toBe(0);
      expect(recorded.tools).toEqual(live.tools);
      expect(live.tools.length).toBeGreaterThan(3);
    });

    it('holds each exchange of the flow, in order with the MCP messages, and lints clean', () => {
      const exchanges = authFrames(cassette).map((frame) => `${frame.request.server} ${frame.request.method} ${stepOf(frame)} -> ${frame.reply.status}`);
      expect(exchanges).toEqual(
        expect.arrayContaining([
          'resource GET /.well-known/oauth-protected-resource/mcp -> 200',
          'authorization POST registration -> 201',
          expect.stringMatching(/^authorization GET authorization -> 30[23]$/),
          'authorization POST token -> 200',
        ]),
      );
      // the metadata, then the steps in the order of the flow
      const steps = exchanges.filter((exchange) => !exchange.includes('/.well-known/') && !exchange.includes(' other '));
      expect(steps.map((step) => step.split(' ')[2])).toEqual(['registration', 'authorization', 'token']);
      const kinds = cassette.frames.map((frame) => (frame.from === 'client' ? `client ${frame.http?.reply?.status}` : frame.from));
      // the first initialize is refused (401), the flow runs, then the session begins with the token
      expect(kinds[0]).toBe('client 401');
      expect(kinds.indexOf('auth')).toBe(1);
      expect(kinds.lastIndexOf('auth')).toBeLessThan(kinds.indexOf('client 200'));
      expect(lintCassette(cassette)).toEqual([]);
    });

    it('keeps no token, code, client secret, verifier or state: on disk, nor in what the recorder printed', () => {
      const text = readFileSync(out, 'utf8');
      const secrets = secretValues(recorded.secrets);
      expect(secrets.length).toBeGreaterThanOrEqual(6);
      for (const secret of secrets) {
        expect(text).not.toContain(secret);
        expect(recorder.stderr).not.toContain(secret);
      }
      // each by its role, where the flow had it
      const token = authFrames(cassette).find((frame) => stepOf(frame) === 'token')!;
      expect(token.request.form).toMatchObject({
        code: '<code>',
        code_verifier: '<code-verifier>',
        client_secret: '<client-secret>',
        resource: '<mcp-server>/mcp',
      });
      expect(token.reply.json).toMatchObject({ access_token: '<access-token>' });
      const initialize = cassette.frames.find((frame) => frame.from === 'client' && frame.http?.reply?.status === 200);
      expect(initialize?.from === 'client' && initialize.http?.headers?.authorization).toBe('Bearer <access-token>');
    });
  });

  describe('verify of the authorization', () => {
    it('runs the recorded flow again against the live servers, with values of its own: no drift; a planted one is found', async () => {
      expect(await verifyHttpCassette(cassette, server.url)).toEqual([]);
      const planted = structuredClone(cassette);
      const register = authFrames(planted).find((frame) => stepOf(frame) === 'registration')!;
      register.reply.status = 200;
      (register.reply.json as Record<string, unknown>).a_field_no_server_sends = 'planted';
      const where = `POST ${register.request.path} (line ${register.line})`;
      expect((await verifyHttpCassette(planted, server.url)).map((drift) => drift.message)).toEqual([
        `the server answered ${where} with HTTP 201 (recorded: 200)`,
        `the server's reply to ${where} lacks a_field_no_server_sends, which the recording has`,
      ]);
    });
  });

  /** The recorded cassette served in this process; the report once the client is done. */
  async function replayTo(deviation: Deviation = {}) {
    const served = await serveCassette(cassette);
    let failure: string | undefined;
    let result: Awaited<ReturnType<typeof runOAuthSession>> | undefined;
    try {
      result = await runOAuthSession(served.url, deviation);
    } catch (error) {
      failure = (error as Error).message;
    }
    await served.close();
    const report = served.finish();
    return { result, failure, report, kinds: report.diagnoses.map((diagnosis) => diagnosis.kind) };
  }

  describe('replay of the authorization', () => {
    it('`replay --http` takes the SDK client through the whole flow with fresh values, and ends clean at its DELETE', async () => {
      const child = spawn(process.execPath, [join(ROOT, 'bin', 'theinference.js'), 'replay', '--http', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const ended = once(child, 'close');
      const [url] = await waitForOutput(child, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/m, 'replay');
      const replayed = await runOAuthSession(url!);
      const [code] = await ended;
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(replayed.tools).toEqual(live.tools);
      // minted anew: nothing of the recorded flow comes back
      for (const secret of secretValues(recorded.secrets)) expect(JSON.stringify(replayed.secrets)).not.toContain(secret);
      // the redirect goes back to the client's own redirect_uri, with its state unchanged
      const back = new URL(replayed.location!);
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URL);
      expect(back.searchParams.get('state')).toBe(replayed.secrets.state);
      // an issuer named there is the live one, served at AUTHORIZATION_PATH of the MCP server's origin
      expect(back.searchParams.get('iss')).toBe(namesIssuer ? `${new URL(url!).origin}${AUTHORIZATION_PATH}` : null);
    });

    const deviations: [string, Deviation, string][] = [
      ['asks for plain PKCE', { authorizeUrl: (url) => withParam(url, 'code_challenge_method', 'plain') }, 'oauth-pkce'],
      ['sends no code_challenge', { authorizeUrl: (url) => withParam(url, 'code_challenge', undefined) }, 'oauth-pkce'],
      ['leaves out resource', { authorizeUrl: (url) => withParam(url, 'resource', undefined) }, 'oauth-resource'],
      ['names another resource', { authorizeUrl: (url) => withParam(url, 'resource', 'http://127.0.0.1:1/mcp') }, 'oauth-resource'],
      [
        'redirects to a URI it did not register',
        { authorizeUrl: (url) => withParam(url, 'redirect_uri', 'http://127.0.0.1:1/elsewhere') },
        'oauth-redirect-uri',
      ],
      ['sends a verifier the challenge was not made from', { verifier: (verifier) => `${verifier}x` }, 'oauth-verifier'],
    ];
    for (const [what, deviation, kind] of deviations) {
      it(`names the rule a client breaks that ${what}: ${kind}, with its spec section`, async () => {
        const { kinds, failure, report } = await replayTo(deviation);
        expect(failure).toBeDefined();
        expect(kinds[0]).toBe(kind);
        expect(report.ok).toBe(false);
        expect(KINDS[kind as keyof typeof KINDS].source).toMatch(/^2025-11-25 basic\/authorization#/);
      });
    }

    it('lets a client that sends no state through, with advice (a SHOULD, not a MUST): oauth-state', async () => {
      const { result, failure, report, kinds } = await replayTo({ authorizeUrl: (url) => withParam(url, 'state', undefined) });
      expect({ failure, tools: result?.tools, ok: report.ok }).toEqual({ failure: undefined, tools: live.tools, ok: true });
      expect({ kinds, advice: report.advice.map((advice) => advice.kind) }).toEqual({ kinds: [], advice: ['oauth-state'] });
      expect(KINDS['oauth-state'].level).toBe('should');
    });

    it('refuses a code used twice, and a token in the URL', async () => {
      const served = await serveCassette(cassette);
      const origin = new URL(served.url).origin;
      const metadata = (await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()) as { authorization_servers: string[] };
      // the issuer has a path: its metadata's well-known name goes before it (RFC 8414 3.1)
      const issuer = new URL(metadata.authorization_servers[0]!);
      const wellKnown = `${issuer.origin}/.well-known/oauth-authorization-server${issuer.pathname.replace(/\/$/, '')}`;
      const endpoints = (await (await fetch(wellKnown)).json()) as Record<string, string>;
      const client = (await (
        await fetch(endpoints.registration_endpoint!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          // the secret in the form (RFC 7591 2: client_secret_basic, the Authorization header, where it names none)
          body: JSON.stringify({ redirect_uris: [REDIRECT_URL], application_type: 'native', token_endpoint_auth_method: 'client_secret_post' }),
        })
      ).json()) as { client_id: string; client_secret: string };
      const verifier = 'a-verifier-of-the-length-pkce-asks-for-43-chars';
      const authorize = new URL(endpoints.authorization_endpoint!);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: client.client_id,
        code_challenge: s256(verifier),
        code_challenge_method: 'S256',
        redirect_uri: REDIRECT_URL,
        state: 'state-of-this-test',
        resource: served.url,
      }))
        authorize.searchParams.set(name, value);
      // the redirects followed (a sign-in's, on the way) to the callback
      let location = authorize;
      while (!location.href.startsWith(REDIRECT_URL)) location = new URL((await fetch(location, { redirect: 'manual' })).headers.get('location')!, location);
      const code = location.searchParams.get('code')!;
      const tokenRequest = () =>
        fetch(endpoints.token_endpoint!, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            code_verifier: verifier,
            redirect_uri: REDIRECT_URL,
            resource: served.url,
            client_id: client.client_id,
            client_secret: client.client_secret,
          }),
        });
      const first = await tokenRequest();
      expect(first.status).toBe(200);
      const { access_token } = (await first.json()) as { access_token: string };
      const second = await tokenRequest();
      expect(second.status).toBe(400);
      expect(((await second.json()) as { error: string }).error).toBe('invalid_grant');
      const inQuery = await fetch(`${served.url}?access_token=${access_token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{}',
      });
      expect(inQuery.status).toBe(401);
      await served.close();
      expect(
        served
          .finish()
          .diagnoses.map((diagnosis) => diagnosis.kind)
          .slice(0, 2),
      ).toEqual(['oauth-code', 'oauth-token-in-query']);
    });
  });
});

describe('a client that starts with its registration of an earlier run, recorded and replayed', () => {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-kept-'));
  const out = join(dir, 'kept.yaml');
  let server: Awaited<ReturnType<typeof startOidcGateway>>;
  let recorder: { code: number | null; stderr: string };
  let cassette: Cassette;

  beforeAll(async () => {
    server = await startOidcGateway();
    ({ recorder, cassette } = await recordSession(server.url, out, { registered: KEPT_REGISTRATION }));
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the client_id the client brought as itself (no server minted it), and no registration', () => {
    expect(recorder.code, recorder.stderr).toBe(0);
    const steps = authFrames(cassette).map(stepOf);
    expect(steps).not.toContain('registration');
    const authorization = authFrames(cassette).find((frame) => stepOf(frame) === 'authorization')!;
    const token = authFrames(cassette).find((frame) => stepOf(frame) === 'token')!;
    expect([authorization.request.query?.client_id, token.request.form?.client_id]).toEqual([KEPT_REGISTRATION.client_id, KEPT_REGISTRATION.client_id]);
    expect(token.request.form?.code).toBe('<code>');
  });

  it('replays to a client with that registration, and refuses one that registers again: oauth-registration-kept', async () => {
    const replay = async (plan: Parameters<typeof runOAuthSession>[2]) => {
      const served = await serveCassette(cassette);
      const failure = await runOAuthSession(served.url, {}, plan).then(
        () => undefined,
        (error: Error) => error.message,
      );
      await served.close();
      return { failure, kinds: served.finish().diagnoses.map((diagnosis) => diagnosis.kind) };
    };
    expect(await replay({ registered: KEPT_REGISTRATION })).toEqual({ failure: undefined, kinds: [] });
    const again = await replay({});
    expect(again.failure).toBeDefined();
    expect(again.kinds[0]).toBe('oauth-registration-kept');
  });
});

describe('record --http <url> -- <server command>, of a server behind OAuth', () => {
  it("relays the server's output with the authorization's values by role: the token it logs never reaches the terminal", async () => {
    const [port, authPort] = [await freePort(), await freePort()];
    const folder = mkdtempSync(join(tmpdir(), 'oauth-relay-'));
    try {
      const command = ['env', `MCP_PORT=${port}`, `MCP_AUTH_PORT=${authPort}`, 'node', SDK_OAUTH_ENTRY, '--oauth', '--oauth-strict'];
      const proxy = await startRecorder(['--out', join(folder, 'relayed.yaml'), '--http', `http://localhost:${port}/mcp`, '--', ...command]);
      const session = await runOAuthSession(proxy.url);
      const { code, stderr } = await proxy.exited;
      expect(code, stderr).toBe(0);
      // the example server logs each request's token: relayed, it is the role
      expect(stderr).toMatch(/\[server\] .*token: '<access-token>'/);
      for (const secret of secretValues(session.secrets)) expect(stderr).not.toContain(secret);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('lint of an authorization cassette', () => {
  it('refuses a code, token, secret or PKCE value kept as itself rather than by its role', () => {
    const committed = loadCassette(join(ROOT, 'cassettes', 'sdk-oauth-http.yaml'), { diskCache: false });
    expect(lintCassette(committed)).toEqual([]);
    const token = authFrames(committed).find((frame) => stepOf(frame) === 'token')!;
    token.request.form!.code_verifier = 'a-verifier-left-in-the-clear';
    (token.reply.json as Record<string, string>).access_token = 'an-access-token-left-in-the-clear';
    expect(lintCassette(committed).map((problem) => [problem.line, problem.message])).toEqual([
      [token.line, 'auth.form.code_verifier holds a value, not its role (such as <code-verifier>): a secret the cassette must not keep'],
      [token.line, 'reply.json.access_token holds a value, not its role (such as <access-token>): a secret the cassette must not keep'],
    ]);
  });
});

function withParam(url: URL, name: string, value: string | undefined): URL {
  const copy = new URL(url);
  if (value === undefined) copy.searchParams.delete(name);
  else copy.searchParams.set(name, value);
  return copy;
}
