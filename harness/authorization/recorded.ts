// What a recorded authorization says of itself, that a replay holds the client to.
import { AUTHORIZATION_SERVER, MCP_SERVER, isObject, type AuthFrame, type Cassette } from '../cassette/index.ts';
import { isRegistration } from './oauth.ts';

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
