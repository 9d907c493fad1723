// The user's browser for the scripts that run an OAuth flow headless: the harness's own, which
// `record --script` signs in with (harness/authorization/browser.ts).
export { browse } from '../harness/authorization/browser.ts';
