// What an authorization frame's values mean: the stand-ins that name the servers, and the roles of
// the values random by design. A recording replaces each such value by its role (`<code>`,
// `<access-token>`, a second one `<access-token-2>`); a replay mints the server's anew and holds the
// client's to the rules the spec gives them.
import { createHash } from 'node:crypto';
import { type AuthFrame, isObject, type Cassette, type Json } from './model.ts';

/** The MCP server's origin, in an authorization frame. */
export const MCP_SERVER = '<mcp-server>';
/** The (first) authorization server's origin. */
export const AUTHORIZATION_SERVER = '<authorization-server>';

/** The fields whose values are random by design, by the role the cassette names them with. */
const FIELD_ROLES: Record<string, string> = {
  code: 'code',
  access_token: 'access-token',
  refresh_token: 'refresh-token',
  id_token: 'id-token',
  client_id: 'client-id',
  client_secret: 'client-secret',
  registration_access_token: 'registration-token',
  code_verifier: 'code-verifier',
  code_challenge: 'code-challenge',
  state: 'state',
  nonce: 'nonce',
};

/** A path segment that is an id made to be unguessable: 20 or more base64url characters, a digit among them. */
const RANDOM_SEGMENT = /^(?=.*\d)[A-Za-z0-9_-]{20,}$/;

/** The fields an authorization frame keeps only by role, and the role of each. */
export const SECRET_FIELDS: ReadonlyMap<string, string> = new Map(
  ['code', 'access_token', 'refresh_token', 'id_token', 'client_secret', 'registration_access_token', 'code_verifier', 'code_challenge', 'state'].map(
    (name) => [name, FIELD_ROLES[name]!],
  ),
);

/** The roles a program must never print: every secret a cassette keeps by its role but the two that
 *  are sent in the open by design (the PKCE challenge, state). */
export const UNPRINTABLE_ROLES: ReadonlySet<string> = new Set([...SECRET_FIELDS.values()].filter((role) => role !== 'code-challenge' && role !== 'state'));

/** A value a session made that nothing shows as it is, and its role. */
export interface RoleSecret {
  value: string;
  role: string;
}

/** A placeholder: `<role>`, or `<role-n>` for the n-th value of a role; a role is lower-case words
 *  joined by hyphens. The one grammar of them: its role and number are captured. */
const PLACEHOLDER = '<([a-z]+(?:-[a-z]+)*?)(?:-(\\d+))?>';

/** Every placeholder of a text, for `replace` (its role and number captured). */
export const PLACEHOLDERS = new RegExp(PLACEHOLDER, 'g');
const WHOLE_PLACEHOLDER = new RegExp(`^${PLACEHOLDER}$`);
const ANY_PLACEHOLDER = new RegExp(PLACEHOLDER); // not global: test() keeps no state

/** The role a placeholder names (`<access-token-2>`: access-token); none for other text. */
export function roleOf(text: string): string | undefined {
  return WHOLE_PLACEHOLDER.exec(text)?.[1];
}

/** Whether `text` holds a placeholder. */
export function hasPlaceholder(text: string): boolean {
  return ANY_PLACEHOLDER.test(text);
}

/** The role of a field whose values are random by design (`access_token`: access-token); none for other fields. */
export function roleOfField(name: string): string | undefined {
  return FIELD_ROLES[name];
}

/** `text` with each secret shown by its role (`<access-token>`). */
export function byRole(text: string, secrets: readonly RoleSecret[]): string {
  return secrets.reduce((shown, { value, role }) => shown.replaceAll(value, `<${role}>`), text);
}

/** Shorter values are not taken for random ones: a word such as a client's fixed name may be one. */
const SHORTEST_RANDOM = 8;

/** The values a recording has learned, each to the placeholder of its role. */
export class Roles {
  private readonly placeholderOf = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  /** A field of a request the client sent (`sent`) or of a reply. A client_id is random only where a
   *  server minted it (a registration's reply): one the client brings (given beforehand, kept from an
   *  earlier run, or its metadata document's URL) is the client's own, kept as it is. */
  learnField(name: string, value: string, sent = false): void {
    const role = FIELD_ROLES[name];
    if (role === 'client-id' && sent) return;
    if (role !== undefined) this.learn(role, value);
  }

  /** An Authorization header: a bearer token is an access token; Basic credentials are a client's. */
  learnCredential(header: string | string[] | undefined): void {
    if (typeof header !== 'string') return;
    const [, scheme, value] = /^(\S+)\s+(\S+)$/.exec(header) ?? [];
    if (value === undefined) return;
    this.learn(scheme!.toLowerCase() === 'bearer' ? 'access-token' : 'client-credentials', value);
  }

  /** A redirect's Location: its query's fields, and a random path segment (a sign-in's interaction id). */
  learnLocation(location: string): void {
    let url: URL;
    try {
      url = new URL(location, 'http://127.0.0.1');
    } catch {
      return;
    }
    for (const [name, value] of url.searchParams) this.learnField(name, value);
    for (const segment of url.pathname.split('/')) if (RANDOM_SEGMENT.test(segment)) this.learn('interaction', segment);
  }

  learn(role: string, value: string): void {
    if (value.length < SHORTEST_RANDOM || this.placeholderOf.has(value)) return;
    const count = (this.counts.get(role) ?? 0) + 1;
    this.counts.set(role, count);
    this.placeholderOf.set(value, count === 1 ? `<${role}>` : `<${role}-${count}>`);
  }

  /** The values learned, each as the text it is to be replaced with. */
  secrets(): string[] {
    return [...this.placeholderOf.keys()];
  }

  /** `text` with every learned value (as it is, or URL-encoded) replaced by its placeholder. */
  portable(text: string): string {
    let result = text;
    const longestFirst = [...this.placeholderOf].sort(([a], [b]) => b.length - a.length);
    for (const [value, placeholder] of longestFirst) result = result.replaceAll(value, placeholder).replaceAll(encodeURIComponent(value), placeholder);
    return result;
  }
}

/** A client_id of the Client ID Metadata Document kind (2025-11-25 basic/authorization: it "MUST use
 *  the https scheme and contain a path component"). */
export function isMetadataDocumentUrl(clientId: string): boolean {
  return /^https:\/\/[^/?#]+\/[^?#]/.test(clientId);
}

/** The PKCE S256 challenge of a verifier (RFC 7636 4.2): BASE64URL(SHA256(ASCII(verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** A JSON value with each string in it mapped (a body's URLs and values, to or from their stand-ins). */
export function mapStrings(value: Json, map: (text: string) => string): Json {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

/** What a recorded authorization says of itself, that a replay holds the client to. */
export interface RecordedAuthorization {
  /** The authorization server's metadata does not advertise PKCE with S256. */
  withoutS256: boolean;
  /** The authorization server says its redirects name it (RFC 9207 iss). */
  namesIssuer: boolean;
  /** The client_id the recorded client brought and asked for authorization with, registering nothing:
   *  its metadata document's URL, or the id of a registration kept from an earlier run. */
  brought: string | undefined;
  /** The WWW-Authenticate of the MCP server's 401: where the client finds the authorization. */
  challenge: string;
  /** Metadata the client must not use, and why: protected resource metadata for another resource
   *  (RFC 9728 3.3), authorization server metadata of another issuer (RFC 8414 3.3). */
  misnamed: string | undefined;
  /** The authorization server refused the registration (RFC 7591 3.2.2): the client has no client_id there. */
  registrationRefused: boolean;
}

export function recordedAuthorization(cassette: Cassette): RecordedAuthorization {
  const frames = cassette.frames.flatMap((frame) => (frame.from === 'auth' ? [frame] : []));
  const refused = cassette.frames.find(
    (frame) => frame.from === 'client' && frame.http?.reply?.status === 401 && frame.http.reply.headers?.['www-authenticate'],
  );
  const registers = frames.some((frame) => isRegistration(frame.request.json));
  return {
    withoutS256: frames.some((frame) => {
      const metadata = frame.reply.json;
      if (frame.request.server !== 'authorization' || !isObject(metadata) || metadata.authorization_endpoint === undefined) return false;
      const methods = metadata.code_challenge_methods_supported;
      return !Array.isArray(methods) || !methods.includes('S256');
    }),
    namesIssuer: frames.some((frame) => isObject(frame.reply.json) && frame.reply.json.authorization_response_iss_parameter_supported === true),
    brought: registers ? undefined : frames.find((frame) => frame.request.query?.client_id !== undefined)?.request.query?.client_id,
    challenge: (refused?.from === 'client' && refused.http?.reply?.headers?.['www-authenticate']) || 'Bearer',
    misnamed: misnamedMetadata(frames),
    registrationRefused: frames.some((frame) => isRegistration(frame.request.json) && frame.reply.status >= 400),
  };
}

/** A client registration request's body (RFC 7591 2: its metadata, redirect_uris among it). */
export function isRegistration(json: Json | undefined): json is { redirect_uris: Json[] } {
  return isObject(json) && Array.isArray(json.redirect_uris);
}

/** What metadata of the recording names a server other than the one it was asked of: its resource
 *  not the MCP server's (an origin of its own), its issuer not the authorization server's. */
function misnamedMetadata(frames: readonly AuthFrame[]): string | undefined {
  const named = frames.flatMap(({ reply }) =>
    isObject(reply.json) && Array.isArray(reply.json.authorization_servers) && typeof reply.json.authorization_servers[0] === 'string'
      ? [reply.json.authorization_servers[0]]
      : [],
  )[0];
  for (const { request, reply } of frames) {
    const json = reply.json;
    if (!isObject(json) || !request.path.includes('/.well-known/')) continue;
    if (request.server === 'resource' && typeof json.resource === 'string' && !json.resource.startsWith(MCP_SERVER))
      return `the protected resource metadata names the resource ${json.resource}, not the MCP server it was asked of`;
    if (request.server === 'authorization' && typeof json.issuer === 'string' && json.issuer !== (named ?? AUTHORIZATION_SERVER))
      return `the authorization server's metadata names the issuer ${json.issuer}, not the one whose well-known URL it was read at`;
  }
  return undefined;
}
