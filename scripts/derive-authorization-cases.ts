// Derives the authorization cases from the recorded authorization sessions (cassettes/sdk-oauth-http.yaml,
// the SDK's auth router; cassettes/oidc-*-http.yaml, oidc-provider: scripts/record-oauth-cassettes.ts),
// editing them only where no real server produces what a case needs (a redirect with a forged state
// or iss, metadata without S256, a 401 that names no metadata); each edit is said in the case
// cassette's provenance. A case may give the program inputs beside case.md (calls.json, and
// registrations.json: what the client kept from an earlier run).
// Run: node --import tsx scripts/derive-authorization-cases.ts, then
// `npx theinference bless --stage authorization` for the expected output.
import type { AuthFrame, Frame } from '../harness/cassette/index.ts';
import { AUTHORIZATION_PATH } from '../harness/transports/http/auth-face.ts';
import { KEPT_REGISTRATION } from './course-client.ts';
import { recording, writeHttpCase } from './http-cases.ts';

const FOLDER = 'authorization';
const sdk = recording('sdk-oauth-http');
const oidc = recording('oidc-oauth-http');
const stepUp = recording('oidc-step-up-http');
const refresh = recording('oidc-refresh-http');
const grantEnded = recording('oidc-grant-ended-http');
const clientMetadata = recording('oidc-client-metadata-http');
const registrationKept = recording('oidc-registration-kept-http');
/** An authorization server the MCP server used before (a name under .example: never a real host). */
const PREVIOUS_ISSUER = 'https://previous-auth.example';

/** The calls of a recording that the server answered (a call refused for its token is made again). */
const answeredCalls = (source: typeof sdk) =>
  source.cassette.frames.flatMap((frame) =>
    frame.from === 'client' && frame.message.method === 'tools/call' && (frame.http?.reply?.status ?? 200) < 400 ? [frame.message.params] : [],
  );

const isAuth = (frame: Frame): frame is AuthFrame => frame.from === 'auth';

/** The index of the first authorization exchange that `test` picks, or a failure naming the recording. */
function exchange(frames: Frame[], what: string, test: (frame: AuthFrame) => boolean): number {
  const at = frames.findIndex((frame) => isAuth(frame) && test(frame));
  if (at < 0) throw new Error(`a recording has no ${what} exchange`);
  return at;
}

/** A recording that ends at the authorization redirect, its Location edited (a forged state or iss);
 *  the body that repeats the old Location goes. */
const redirectEdited =
  (edit: (location: string) => string) =>
  (frames: Frame[]): Frame[] => {
    const at = exchange(frames, 'authorization', isAuthorizeRedirect);
    const redirect = frames[at] as AuthFrame;
    redirect.reply.headers!.location = edit(redirect.reply.headers!.location!);
    delete redirect.reply.text;
    return frames.slice(0, at + 1);
  };

/** A redirect's Location with its iss parameter replaced (by nothing, to take it out). */
function withIss(location: string, iss: string): string {
  if (!/[?&]iss=/.test(location)) throw new Error(`${oidc.name}: the authorization redirect has no iss`);
  return location.replace(/([?&])iss=[^&]*/, (_, sep: string) => (iss === '' ? '' : `${sep}${iss}`)).replace(/\?&/, '?');
}

const isAuthorizeRedirect = (frame: AuthFrame) => /[?&]code=/.test(frame.reply.headers?.location ?? '');
const isServerMetadata = (frame: AuthFrame) => frame.request.server === 'authorization' && frame.request.path.startsWith('/.well-known/');

interface AuthorizationCase {
  name: string;
  about: string;
  edit?: string;
  source: typeof sdk;
  frames(frames: Frame[]): Frame[];
  /** Files of the case folder beside case.md (calls.json). */
  inputs?: Record<string, unknown>;
}

const CASES: AuthorizationCase[] = [
  {
    name: 'sdk-auth-router',
    about:
      "The TypeScript SDK's example server with OAuth, its own auth router as the authorization server: initialize is refused 401 with a WWW-Authenticate that names the resource metadata; the client reads it, then the authorization server's metadata (an issuer with a path: at /.well-known/oauth-authorization-server/authorization-server), registers (RFC 7591), asks for authorization with PKCE (S256), state and resource, trades the code for a token, and sends initialize again with the token.",
    source: sdk,
    frames: (frames) => frames,
  },
  {
    name: 'oidc-provider',
    about:
      'oidc-provider (OpenID Certified) in front of the everything server: its sign-in sends the browser through two interactions before the redirect back, which names the issuer (RFC 9207 iss: the client checks it is the one it asked); the client registers with client_secret_post and sends its secret in the token request.',
    source: oidc,
    frames: (frames) => frames,
  },
  {
    name: 'client-metadata-document',
    about:
      "oidc-provider in front of the everything server, taking Client ID Metadata Documents (its metadata says client_id_metadata_document_supported): the client registers nothing and asks for authorization with its metadata document's URL as client_id (the course's, https://client.example/mcp-course-client.json, which the authorization server fetched); the spec's order of registration: a client_id given, then the metadata document, then dynamic registration.",
    source: clientMetadata,
    frames: (frames) => frames,
  },
  {
    name: 'registration-kept',
    about: `oidc-provider in front of the everything server, with which the course client registered in an earlier run: registrations.json holds what that registration answered, under the issuer (client_id ${KEPT_REGISTRATION.client_id}, a public client). The client uses it, registers nothing, asks for authorization and trades the code as that client_id (registration: "stored"), and keeps it for the next run.`,
    source: registrationKept,
    frames: (frames) => frames,
    inputs: { 'registrations.json': { [AUTHORIZATION_PATH]: KEPT_REGISTRATION } },
  },
  {
    name: 'authorization-server-changed',
    about: `oidc-provider in front of the everything server; registrations.json holds the course client's registration with the authorization server the MCP server named before, ${PREVIOUS_ISSUER}. That registration is not this authorization server's: the client registers here (2026-07-28: it MUST NOT reuse client credentials from a different authorization server, and MUST re-register), and keeps both registrations, each under its issuer.`,
    source: oidc,
    frames: (frames) => frames,
    inputs: { 'registrations.json': { [PREVIOUS_ISSUER]: { ...KEPT_REGISTRATION, client_id: 'mcp-course-client-of-the-previous-server' } } },
  },
  {
    name: 'step-up',
    about:
      'oidc-provider in front of the everything server, whose echo tool takes the scope mcp:admin: the call is answered 403 insufficient_scope, its challenge naming the scopes to ask for (mcp:tools mcp:admin); the client authorizes again for them (its registration kept: no second one) and calls again with the new token.',
    source: stepUp,
    frames: (frames) => frames,
    inputs: { 'calls.json': answeredCalls(stepUp) },
  },
  {
    name: 'refresh',
    about:
      'oidc-provider in front of the everything server, its access tokens good for two requests and every token response with a refresh token: the call is answered 401 invalid_token (the token expired); the client refreshes (grant_type refresh_token, with resource) rather than asking for authorization again, and calls again with the new token.',
    source: refresh,
    frames: (frames) => frames,
    inputs: { 'calls.json': answeredCalls(refresh) },
  },
  {
    name: 'refresh-refused',
    about:
      'oidc-provider in front of the everything server, the grant ending when its access token expires (as when the user signs out): the call is answered 401 invalid_token; the client refreshes once, the authorization server refuses the refresh token (400 invalid_grant), and the client asks for authorization again (its registration kept), not for another refresh, then calls again with the new token.',
    source: grantEnded,
    frames: (frames) => frames,
    inputs: { 'calls.json': answeredCalls(grantEnded) },
  },
  {
    name: 'state-forged',
    about:
      "The redirect back comes with a state other than the client's (a forged response, as an attacker's would be): the client discards it and trades no code; initialize fails. (The spec: MCP clients SHOULD verify state; the course requires it.)",
    edit: "the authorization redirect's state is <forged-state>, a value the server makes; the recording ends there",
    source: sdk,
    frames: redirectEdited((location) => location.replace('state=<state>', 'state=<forged-state>')),
  },
  {
    name: 'iss-mixed-up',
    about:
      "The redirect back from oidc-provider names another issuer in its iss (https://attacker.example: a mix-up, RFC 9207, as an attacker's authorization server would send): the client compares iss with the issuer whose metadata it read, discards the redirect and trades no code; initialize fails. (2026-07-28: MCP clients MUST apply RFC 9207 2.4's validation; the course requires it of every client.)",
    edit: "the authorization redirect's iss is https://attacker.example; the recording ends there",
    source: oidc,
    frames: redirectEdited((location) => withIss(location, 'iss=https%3A%2F%2Fattacker.example')),
  },
  {
    name: 'iss-missing',
    about:
      'The redirect back from oidc-provider has no iss, though its metadata says authorization_response_iss_parameter_supported: the client rejects the response (RFC 9207 2.4) and trades no code; initialize fails.',
    edit: 'the authorization redirect without its iss; the recording ends there',
    source: oidc,
    frames: redirectEdited((location) => withIss(location, '')),
  },
  {
    name: 'pkce-unsupported',
    about:
      "The authorization server's metadata has no code_challenge_methods_supported: it does not support PKCE, and the client MUST refuse to proceed (no registration, no authorization request); initialize fails.",
    edit: "the authorization server's metadata without code_challenge_methods_supported; the recording ends there",
    source: sdk,
    frames: (frames) => {
      const at = exchange(frames, 'authorization server metadata', isServerMetadata);
      const metadata = (frames[at] as AuthFrame).reply.json as Record<string, unknown>;
      delete metadata.code_challenge_methods_supported;
      return frames.slice(0, at + 1);
    },
  },
  {
    name: 'metadata-at-well-known',
    about:
      "The 401's WWW-Authenticate names no resource_metadata: the client MUST fall back to the well-known URI, first at the MCP endpoint's path (/.well-known/oauth-protected-resource/mcp), where this server has it.",
    edit: "the 401's WWW-Authenticate without resource_metadata",
    source: sdk,
    frames: (frames) => {
      for (const frame of frames) {
        const headers = frame.from === 'client' ? frame.http?.reply?.headers : undefined;
        if (headers?.['www-authenticate']) headers['www-authenticate'] = headers['www-authenticate'].replace(/,\s*resource_metadata="[^"]*"/, '');
      }
      return frames;
    },
  },
];

for (const testCase of CASES) {
  const frames = testCase.frames(structuredClone(testCase.source.cassette.frames));
  writeHttpCase(FOLDER, testCase.name, testCase.about, testCase.edit ?? 'as recorded', frames, testCase.inputs, testCase.source);
}
