// The OAuth side of `record --script`'s client: where a server answers 401 (or 403 for a scope it
// lacks), the official SDK client authorizes as a course client would, with an OAuth client provider
// held in memory: discovery, registration (RFC 7591), authorize with PKCE S256, state and resource,
// the user's sign-in followed as a browser follows it (browser.ts), the code traded for a token, and
// refresh. It is given to every scripted session over HTTP: a server that asks nothing never uses it.
import { randomUUID } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { ScriptOAuth } from '../cassette/index.ts';
import { browse } from './browser.ts';

/** Where the authorization server sends the client back: the course client's redirect URI (program.ts
 *  has the same), on which nothing listens; the browser stops there. */
export const REDIRECT_URL = 'http://127.0.0.1:8976/callback';

/** A fresh client for one scripted session: it registers, authorizes and keeps its tokens in memory only. */
export function scriptOAuth(): ScriptOAuth {
  let client: OAuthClientInformationMixed | undefined;
  let tokens: OAuthTokens | undefined;
  let verifier: string | undefined;
  let code: string | undefined;
  const provider: OAuthClientProvider = {
    get redirectUrl() {
      return REDIRECT_URL;
    },
    get clientMetadata() {
      return {
        client_name: 'theinference record',
        redirect_uris: [REDIRECT_URL],
        application_type: 'native', // 2026-07-28: MCP clients MUST specify it; the redirect is on localhost
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      };
    },
    state: () => randomUUID(),
    clientInformation: () => client,
    saveClientInformation: (registered) => {
      client = registered;
    },
    // a refresh token refused (invalid_grant): the SDK starts over without what it names
    invalidateCredentials: (scope) => {
      if (scope === 'all' || scope === 'tokens') tokens = undefined;
      if (scope === 'all' || scope === 'client') client = undefined;
    },
    tokens: () => tokens,
    saveTokens: (saved) => {
      tokens = saved;
    },
    async redirectToAuthorization(authorizeUrl) {
      const sent = authorizeUrl.searchParams.get('state');
      const back = new URL(await browse(authorizeUrl, REDIRECT_URL));
      // a client holds the redirect to the state it sent
      if (back.searchParams.get('state') !== sent) throw new Error(`the authorization redirect came back with another state than the one sent`);
      const error = back.searchParams.get('error');
      if (error !== null) throw new Error(`the authorization server refused the authorization: ${error}`);
      code = back.searchParams.get('code') ?? undefined;
    },
    saveCodeVerifier: (made) => {
      verifier = made;
    },
    codeVerifier: () => {
      if (verifier === undefined) throw new Error('no PKCE verifier was made before the token request');
      return verifier;
    },
  };
  // each code is traded once: a step-up's authorization brings the next
  const take = () => {
    const taken = code;
    code = undefined;
    return taken;
  };
  return { provider, code: take };
}
