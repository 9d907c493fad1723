// The user's browser, for the clients that run an OAuth flow headless (`record --script`'s, the
// recordings' SDK client, the conformance client): from an authorization URL, each redirect followed with the cookies the servers
// set (a sign-in on the way), until one goes to the client's redirect URI. Each call is a browser
// window of its own: a second authorization signs in again.
/** The URL of the redirect back to `redirectUri`. */
export async function browse(authorizationUrl: URL, redirectUri: string): Promise<string> {
  const cookies = new Map<string, string>();
  let target = authorizationUrl;
  for (let hop = 0; hop < 10; hop++) {
    const cookie = [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const reply = await fetch(target, { redirect: 'manual', headers: cookie === '' ? {} : { cookie } });
    for (const set of reply.headers.getSetCookie()) {
      const pair = set.split(';')[0]!;
      cookies.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    const location = reply.headers.get('location');
    if (location === null) throw new Error(`the authorization server answered ${reply.status} without a redirect: ${await reply.text()}`);
    await reply.body?.cancel();
    target = new URL(location, target);
    if (target.href.startsWith(redirectUri)) return target.href;
  }
  throw new Error('the authorization server sent the browser on 10 times without coming back');
}
