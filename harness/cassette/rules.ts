// Not a diagnosis kind's rule (those are the kinds' rows, kinds/): docs/cassettes.md shows these beside them.
import { COURSE, type Rule } from './kinds/index.ts';

/** The rules a case decides by the program's output, not by what the player saw: where the course
 *  asks more than the spec, the output shows it (`authorizations`, `refreshes` of the authorization
 *  command). Their hints (stages/) quote them. */
export const OUTPUT_RULES: Record<string, Rule> = {
  'step-up-missing': {
    level: 'course',
    source: COURSE,
    words:
      'a request answered 403 insufficient_scope is answered with a step-up: the authorization again, for the scopes held and those the challenge names, then the request again (the spec: Clients SHOULD respond to these errors by requesting a new access token with an increased set of scopes via a step-up authorization flow or handle the errors in other, appropriate ways; the course asks the step-up)',
  },
  'refresh-missing': {
    level: 'course',
    source: COURSE,
    words:
      'a request answered 401 invalid_token while the client holds a refresh token is answered with one refresh, then the request again; the authorization again only when the refresh is refused (the spec asks no refresh: OAuth 2.1 4.3 makes it the way to a new token without the user, and the course asks it)',
  },
};
