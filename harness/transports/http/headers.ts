// Which HTTP headers an HTTP cassette keeps: only those that matter to MCP (the content type, the
// session and the protocol version, resumption, authentication, and the 2026-07-28 revision's
// mirrors of the body: Mcp-Method, Mcp-Name, Mcp-Param-*), with credentials replaced by
// "<redacted>". Whatever changes with the machine or the moment (date, host, user-agent, etags) is
// left out, so that a recording says what the protocol said and nothing else.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import type { Headers, Secret } from '../../cassette/index.ts';

/** What a kept credential header's value is written as. */
export const REDACTED = '<redacted>';

const REQUEST_HEADERS = new Set(['content-type', 'accept', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'mcp-method', 'mcp-name']);
/** The custom headers a tool's `x-mcp-header` annotations ask for: `Mcp-Param-{Name}`. */
const PARAM_HEADER = /^mcp-param-/;
const RESPONSE_HEADERS = new Set(['content-type', 'mcp-session-id', 'mcp-protocol-version', 'www-authenticate', 'allow']);

/** Headers that carry a credential: authorization, cookies, and API-key-like names (x-api-key, x-auth-token, x-goog-api-key). */
export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  if (lower === 'authorization' || lower === 'proxy-authorization' || lower === 'cookie' || lower === 'set-cookie') return true;
  return /(?:^|[-_])(?:api-?key|apikey|key|token|secret|password|passwd|auth|credentials?)$/.test(lower);
}

/** The request headers a cassette keeps (names in lower case), credentials as "<redacted>". */
export function keptRequestHeaders(headers: IncomingHttpHeaders): Headers {
  return keep(headers, (name) => REQUEST_HEADERS.has(name) || PARAM_HEADER.test(name), true);
}

/** The response headers a cassette keeps (names in lower case), values as sent. */
export function keptResponseHeaders(headers: IncomingHttpHeaders | OutgoingHttpHeaders): Headers {
  return keep(headers, (name) => RESPONSE_HEADERS.has(name), false);
}

function keep(headers: IncomingHttpHeaders | OutgoingHttpHeaders, wanted: (name: string) => boolean, credentials: boolean): Headers {
  const kept: Headers = {};
  for (const [key, value] of Object.entries(headers)) {
    const name = key.toLowerCase();
    if (value === undefined) continue;
    if (credentials && isCredentialHeader(name)) kept[name] = REDACTED;
    else if (wanted(name)) kept[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return kept;
}

/** The credentials in request headers, for the Redactor to find wherever else they appear: the
 *  whole value, and the token after an auth scheme (`Bearer <token>`), which a server may echo alone. */
export function headerSecrets(headers: IncomingHttpHeaders): Secret[] {
  const secrets: Secret[] = [];
  for (const [key, value] of Object.entries(headers)) {
    if (value === undefined || !isCredentialHeader(key)) continue;
    for (const text of Array.isArray(value) ? value : [value]) {
      secrets.push({ name: key.toLowerCase(), value: text });
      const token = /^[A-Za-z][\w-]*\s+(\S.*)$/s.exec(text)?.[1];
      if (token !== undefined) secrets.push({ name: key.toLowerCase(), value: token });
      // each cookie's value alone, too
      if (key.toLowerCase() === 'cookie') {
        for (const part of text.split(';')) {
          const equals = part.indexOf('=');
          if (equals > 0) secrets.push({ name: 'cookie', value: part.slice(equals + 1).trim() });
        }
      }
    }
  }
  return secrets.filter((secret) => secret.value !== '');
}

/** A URL as a cassette may keep it: no user or password, and the values of credential-looking
 *  query parameters (`?api_key=…`, `?token=…`) as "<redacted>". */
export function publicUrl(url: URL): string {
  const query = [...url.searchParams].map(([name, value]) => `${encodeURIComponent(name)}=${isCredentialHeader(name) ? REDACTED : encodeURIComponent(value)}`);
  return `${url.origin}${url.pathname}${query.length > 0 ? `?${query.join('&')}` : ''}`;
}

/** The secrets a URL carries: its password and its credential-looking query values. */
export function urlSecrets(url: URL): Secret[] {
  const secrets: Secret[] = [];
  if (url.password !== '') secrets.push({ name: 'url-password', value: decodeURIComponent(url.password) });
  for (const [name, value] of url.searchParams) if (isCredentialHeader(name) && value !== '') secrets.push({ name, value });
  return secrets;
}
