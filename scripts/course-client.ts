// The course's OAuth client as the recordings' authorization servers know it: where it is sent back,
// and its Client ID Metadata Document. A real client hosts that document at an HTTPS URL of its own;
// this one is named under .example (RFC 2606: never a real host), and the gateway that takes it
// answers its fetch itself, so that a recording needs no network.
import { REDIRECT_URL } from '../harness/authorization/scripted-client.ts';

export { REDIRECT_URL };

/** The client_id of a client that has a metadata document: the document's URL (program.ts gives the same). */
export const CLIENT_METADATA_URL = 'https://client.example/mcp-course-client.json';

/** The course client's metadata (RFC 7591 2), wherever it is told: a public client, no secret. */
const COURSE_CLIENT = {
  client_name: 'MCP course client',
  redirect_uris: [REDIRECT_URL],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
};

/** The document at CLIENT_METADATA_URL (draft-ietf-oauth-client-id-metadata-document: client_id is its own URL). */
export const CLIENT_METADATA_DOCUMENT = { client_id: CLIENT_METADATA_URL, ...COURSE_CLIENT };

/** The course client's registration from an earlier run (what an RFC 7591 registration answered, as
 *  the client kept it). The recordings' authorization server still holds it (scripts/oidc-gateway.ts);
 *  a case gives it to the program as what its store kept. */
export const KEPT_REGISTRATION = { client_id: 'mcp-course-client-registered-earlier', ...COURSE_CLIENT, application_type: 'native' };
