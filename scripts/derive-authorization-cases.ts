// Derives the authorization cases from the recorded authorization sessions (cassettes/sdk-oauth-http.yaml,
// the SDK's auth router; cassettes/oidc-*-http.yaml, oidc-provider: scripts/record-oauth-cassettes.ts),
// editing them only where no real server produces what a case needs (a redirect with a forged state
// or iss, metadata without S256, a 401 that names no metadata); each edit is said in the case
// cassette's provenance. A case may give the program inputs beside case.md (calls.json, and
// registrations.json: what the client kept from an earlier run).
// Run: node --import tsx scripts/derive-authorization-cases.ts, then
// `npx theinference bless --stage authorization` for the expected output.
import type { AuthFrame, Frame } from '../harness/cassette/index.ts';
import type { RegistrationsInput } from '../harness/stages/authorization/contract.ts';
import type { ToolCall, CallsInput } from '../harness/stages/tools/contract.ts';
import { AUTHORIZATION_PATH } from '../harness/authorization/index.ts';
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
const openidDiscovery = recording('oidc-openid-discovery-http');
const metadataNamed = recording('oidc-metadata-named-http');
const metadataAtRoot = recording('oidc-metadata-at-root-http');
const noRefresh = recording('oidc-no-refresh-http');
const refreshRotated = recording('oidc-refresh-rotated-http');
/** A resource that is not the MCP server the client asked (a name under .example: never a real host). */
const ANOTHER_RESOURCE = 'https://another-mcp-server.example/mcp';
/** An issuer that is not the one whose well-known URL the client built. */
const ANOTHER_ISSUER = 'https://another-authorization-server.example';
/** An authorization server the MCP server used before (a name under .example: never a real host). */
const PREVIOUS_ISSUER = 'https://previous-auth.example';

/** The calls of a recording that the server answered (a call refused for its token is made again). */
const answeredCalls = (source: typeof sdk): CallsInput =>
  source.cassette.frames.flatMap((frame) =>
    frame.from === 'client' && frame.message.method === 'tools/call' && (frame.http?.reply?.status ?? 200) < 400 ? [frame.message.params as ToolCall] : [],
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

const isResourceMetadata = (frame: AuthFrame) => frame.request.server === 'resource' && frame.reply.status === 200;
const isRegistrationExchange = (frame: AuthFrame) => frame.request.method === 'POST' && frame.request.path === '/reg';

/** A recording that ends at its first exchange that `test` picks, that exchange's reply edited. */
const endsAtEdited =
  (what: string, test: (frame: AuthFrame) => boolean, edit: (reply: AuthFrame['reply']) => void) =>
  (frames: Frame[]): Frame[] => {
    const at = exchange(frames, what, test);
    edit((frames[at] as AuthFrame).reply);
    return frames.slice(0, at + 1);
  };

const isAuthorizeRedirect = (frame: AuthFrame) => /[?&]code=/.test(frame.reply.headers?.location ?? '');
const isServerMetadata = (frame: AuthFrame) => frame.request.server === 'authorization' && frame.request.path.startsWith('/.well-known/');

interface AuthorizationCase {
  name: string;
  about: string;
  edit?: string;
  source: typeof sdk;
  frames(frames: Frame[]): Frame[];
  /** Files of the case folder beside case.md. */
  inputs?: { 'calls.json'?: CallsInput; 'registrations.json'?: RegistrationsInput };
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
    name: 'state-dropped',
    about:
      'The redirect back comes without the state the client sent (RFC 6749 4.1.2: state is REQUIRED in the response if it was in the request): the client discards it and trades no code; initialize fails. (The spec: MCP clients SHOULD use and verify state parameters … and discard any results that do not include or have a mismatch with the original state; the course requires it.)',
    edit: 'the authorization redirect has no state; the recording ends there',
    source: sdk,
    frames: redirectEdited((location) => location.replace(/([?&])state=<state>&?/, '$1').replace(/[?&]$/, '')),
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
    name: 'iss-normalised',
    about:
      'The redirect back from oidc-provider names the issuer with a trailing slash (its own issuer, then "/"): the same issuer to a client that normalises URLs, another to the simple string comparison the spec asks for. The client discards the redirect and trades no code; initialize fails. The spec (2026-07-28 basic/authorization, Authorization Server Binding): "clients **MUST NOT** apply scheme or host case folding, default-port elision, trailing-slash, or percent-encoding normalization … before comparison". (The course requires RFC 9207 2.4\'s validation of every client.)',
    edit: "the authorization redirect's iss is the issuer with a trailing slash; the recording ends there",
    source: oidc,
    frames: redirectEdited((location) => withIss(location, 'iss=%3Cauthorization-server%3E%2F')),
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
    name: 'pkce-unsupported-openid',
    about:
      'oidc-provider\'s metadata served at OpenID Connect discovery only (as in openid-discovery), without code_challenge_methods_supported: whichever discovery mechanism gave the metadata, it does not support PKCE, and the client MUST refuse to proceed (no registration, no authorization request); initialize fails. The spec (2025-11-25 basic/authorization, Authorization Code Protection), of OpenID Connect Discovery 1.0: "MCP clients **MUST** verify the presence of `code_challenge_methods_supported` in the provider metadata response. If the field is absent, MCP clients **MUST** refuse to proceed."',
    edit: 'the OpenID Connect discovery metadata without code_challenge_methods_supported; the recording ends there',
    source: openidDiscovery,
    frames: endsAtEdited(
      'OpenID Connect discovery metadata',
      (frame) => isServerMetadata(frame) && frame.reply.status === 200,
      (reply) => {
        delete (reply.json as Record<string, unknown>).code_challenge_methods_supported;
      },
    ),
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
  // issue 47: a MUST of the spec's authorization that no case exercised
  {
    name: 'openid-discovery',
    about:
      'oidc-provider in front of the everything server, its metadata served at OpenID Connect discovery only: RFC 8414\'s well-known URL answers 404 (/.well-known/oauth-authorization-server/authorization-server, for the issuer with a path the grader serves), OpenID Connect discovery with path insertion answers (/.well-known/openid-configuration/authorization-server). The spec (2025-11-25 basic/authorization, Authorization Server Discovery): "MCP clients **MUST** support both discovery mechanisms to obtain the information required to interact with the authorization server"; for an issuer with a path, "clients **MUST** try endpoints in the following priority order": RFC 8414 with path insertion, OpenID Connect Discovery 1.0 with path insertion, then with path appending.',
    source: openidDiscovery,
    frames: (frames) => frames,
  },
  {
    name: 'metadata-named',
    about:
      'oidc-provider in front of the everything server, whose 401 names its protected resource metadata at /auth/resource-metadata, a URL that is no well-known one; the metadata is there only (the well-known URLs answer 404). The spec (2025-11-25 basic/authorization, Protected Resource Metadata Discovery Requirements): "MCP clients **MUST** support both discovery mechanisms and use the resource metadata URL from the parsed `WWW-Authenticate` headers when present".',
    source: metadataNamed,
    frames: (frames) => frames,
  },
  {
    name: 'refresh-rotated',
    about:
      'oidc-provider in front of the everything server, its access tokens good for two requests and every token response with a refresh token; the recorded client registered as a public client, whose refresh token oidc-provider rotates at each refresh (a client that registers otherwise is held to the same rotation): the first call is answered 401 invalid_token, the client refreshes and calls again, makes the second call, and the third is answered 401 invalid_token again; the client refreshes a second time, with the refresh token the first refresh gave (the first is spent), and calls again. RFC 6749 6: "The authorization server MAY issue a new refresh token, in which case the client **MUST** discard the old refresh token and replace it with the new refresh token."',
    source: refreshRotated,
    frames: (frames) => frames,
    inputs: { 'calls.json': answeredCalls(refreshRotated) },
  },
  {
    name: 'metadata-at-root',
    about:
      'oidc-provider in front of the everything server, whose 401 names no resource_metadata, and whose protected resource metadata is at the root well-known URL only: /.well-known/oauth-protected-resource/mcp answers 404, /.well-known/oauth-protected-resource answers, for the whole origin (its resource is the origin, the RFC 9728 3.3 identifier of that URL, and the client asks for a token for it). The spec (2025-11-25 basic/authorization): "otherwise, they **MUST** fall back to constructing and requesting the well-known URIs in the order listed above" (at the path of the MCP endpoint, then at the root).',
    source: metadataAtRoot,
    frames: (frames) => frames,
  },
  {
    name: 'no-refresh-token',
    about:
      'oidc-provider in front of the everything server, its access tokens good for two requests and no token response with a refresh token: the call is answered 401 invalid_token (the token expired); the client has no refresh token to use, so it asks for authorization again (its registration kept), and calls again with the new token. The spec (2026-07-28 basic/authorization, Refresh Tokens): MCP clients "**MUST NOT** assume refresh tokens will be issued; the AS retains discretion".',
    source: noRefresh,
    frames: (frames) => frames,
    inputs: { 'calls.json': answeredCalls(noRefresh) },
  },
  {
    name: 'resource-mismatch',
    about: `The protected resource metadata that the 401 names says its resource is ${ANOTHER_RESOURCE}, not the MCP server the client asked: the client MUST NOT use it, and goes no further (no registration, no authorization request); initialize fails. RFC 9728 3.3: "If the protected resource metadata was retrieved from a URL returned by the protected resource via the WWW-Authenticate resource_metadata parameter, then the resource value returned **MUST** be identical to the URL that the client used to make the request to the resource server. If these values are not identical, the data contained in the response **MUST NOT** be used." (The spec, 2025-11-25 basic/authorization: "MCP clients **MUST** use OAuth 2.0 Protected Resource Metadata for authorization server discovery".)`,
    edit: `the protected resource metadata's resource is ${ANOTHER_RESOURCE}; the recording ends after the authorization server's metadata (a client that reads it has not used the resource metadata yet: one that goes on to register has)`,
    source: oidc,
    frames: (frames) => {
      const edited = endsAtEdited('resource metadata', isResourceMetadata, (reply) => {
        (reply.json as Record<string, unknown>).resource = ANOTHER_RESOURCE;
      })([...frames]);
      return [...edited, ...frames.slice(edited.length, exchange(frames, 'authorization server metadata', isServerMetadata) + 1)];
    },
  },
  {
    name: 'issuer-mismatch',
    about: `The authorization server's metadata, read at the well-known URL of the issuer the resource metadata names, says its issuer is ${ANOTHER_ISSUER}: the client MUST NOT use it, and goes no further (no registration, no authorization request); initialize fails. The spec (2026-07-28 basic/authorization, Authorization Server Metadata Discovery): "the \`issuer\` value in the document **MUST** be identical to the issuer identifier used to construct the well-known URL. If they differ, the client **MUST NOT** use the metadata" (RFC 8414 3.3).`,
    edit: `the authorization server's metadata names the issuer ${ANOTHER_ISSUER}; the recording ends there`,
    source: oidc,
    frames: endsAtEdited('authorization server metadata', isServerMetadata, (reply) => {
      (reply.json as Record<string, unknown>).issuer = ANOTHER_ISSUER;
    }),
  },
  {
    name: 'registration-refused',
    about:
      'oidc-provider refuses the client\'s registration (RFC 7591 3.2.2: 400 invalid_redirect_uri, its redirect URI not one this authorization server takes): the client has no client_id, asks for no authorization, keeps no registration, and says why; initialize fails. The spec (2026-07-28 basic/authorization/client-registration): "MCP clients **MUST** be prepared to handle registration failures due to redirect URI constraints when authorization servers implement OIDC. When a registration request is rejected, clients **SHOULD** surface a meaningful error to the user or developer."',
    edit: "the registration answered 400 invalid_redirect_uri (RFC 7591 3.2.2's error response, as oidc-provider writes one: error and error_description) in place of the client's registration; the recording ends there",
    source: oidc,
    frames: endsAtEdited('registration', isRegistrationExchange, (reply) => {
      reply.status = 400;
      reply.headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
      reply.json = { error: 'invalid_redirect_uri', error_description: 'redirect_uris must only contain https URIs' };
      delete reply.text;
    }),
  },
];

for (const testCase of CASES) {
  const frames = testCase.frames(structuredClone(testCase.source.cassette.frames));
  writeHttpCase(FOLDER, testCase.name, testCase.about, testCase.edit ?? 'as recorded', frames, testCase.inputs, testCase.source);
}
