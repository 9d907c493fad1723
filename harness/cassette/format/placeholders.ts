// The placeholders of a cassette's authorization frames: the stand-ins that name the servers, and the
// roles of the values random by design. A recording replaces each such value by its role (`<code>`,
// `<access-token>`, a second one `<access-token-2>`); a replay mints the server's anew and holds the
// client's to the rules the spec gives them (harness/authorization/). The one grammar of them.

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
