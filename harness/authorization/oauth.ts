// OAuth's means the room shares: the PKCE S256 challenge, a client_id that is a metadata document's
// URL, a registration's body, and a JSON value's strings mapped (to or from their stand-ins).
import { createHash } from 'node:crypto';
import { isObject, type Json } from '../cassette/index.ts';

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

/** A client registration request's body (RFC 7591 2: its metadata, redirect_uris among it). */
export function isRegistration(json: Json | undefined): json is { redirect_uris: Json[] } {
  return isObject(json) && Array.isArray(json.redirect_uris);
}
