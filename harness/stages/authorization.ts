// Stage 7, `authorization`: a server behind OAuth. What a client gets wrong in the flow shows first
// in what the player says (the oauth-* kinds, grade/hints.ts); this module reads the output the
// `authorization` command prints: no authorization found where the reference found one.
import { bothValues, field, type Comparison } from '../grade/comparison.ts';
import type { Hint } from '../run/verdict.ts';
import type { StageContent } from './content.ts';

/** The reference authorized and the client did not: where its flow stopped is on its stderr. */
function notAuthorizedRule(comparison: Comparison): Hint[] {
  const both = bothValues(comparison);
  if (both === undefined) return [];
  if (field(both.expected, 'authorization') === null || field(both.actual, 'authorization') !== null) return [];
  return [
    {
      kind: 'not-authorized',
      lines: [
        'your client never got a token: the server refused initialize with 401, and the authorization did not finish',
        "from the 401's WWW-Authenticate (resource_metadata), read the resource's metadata, then its authorization server's; register, ask for authorization (PKCE S256, state, resource), trade the code for a token, and send the request again with it",
      ],
    },
  ];
}

/** The client authorized where the reference refused to: a redirect or a server it should have turned down. */
function authorizedAnywayRule(comparison: Comparison): Hint[] {
  const both = bothValues(comparison);
  if (both === undefined) return [];
  if (field(both.expected, 'authorization') !== null || field(both.actual, 'authorization') === null) return [];
  return [
    {
      kind: 'authorized-anyway',
      lines: [
        'your client went through with an authorization it should have refused: read the case (case.md) for what is wrong with this server or its redirect',
      ],
    },
  ];
}

/** How many times the reference and the client did `what` (a field of `authorization`). */
function counts(comparison: Comparison, what: string): { expected: number; actual: number } | undefined {
  const both = bothValues(comparison);
  const count = (value: unknown) => field(field(value, 'authorization'), what);
  const [expected, actual] = both === undefined ? [] : [count(both.expected), count(both.actual)];
  return typeof expected === 'number' && typeof actual === 'number' ? { expected, actual } : undefined;
}

const times = (n: number) => `${n} time${n === 1 ? '' : 's'}`;

/** The reference authorized more often than the client: a 403 insufficient_scope not answered with a step-up. */
function stepUpRule(comparison: Comparison): Hint[] {
  const authorized = counts(comparison, 'authorizations');
  if (authorized === undefined || authorized.actual >= authorized.expected) return [];
  return [
    {
      kind: 'step-up-missing',
      lines: [
        `your client authorized ${times(authorized.actual)}, the reference ${authorized.expected}: a request answered 403 with error="insufficient_scope" asks for a token with more scopes`,
        'authorize again for the scopes held and those the challenge names (its scope parameter), then send the request again with the new token',
      ],
    },
  ];
}

/** The reference refreshed where the client did not: an expired token answered with a whole new flow, or not at all. */
function refreshRule(comparison: Comparison): Hint[] {
  const refreshed = counts(comparison, 'refreshes');
  if (refreshed === undefined || refreshed.actual >= refreshed.expected) return [];
  return [
    {
      kind: 'refresh-missing',
      lines: [
        `your client refreshed its token ${times(refreshed.actual)}, the reference ${refreshed.expected}: a request answered 401 with error="invalid_token" once the client holds a token means it expired`,
        'refresh it once (grant_type=refresh_token with the refresh token of the last token response, and resource), then send the request again; ask for authorization again only when the refresh fails',
      ],
    },
  ];
}

export const authorization: StageContent = {
  slug: 'authorization',
  hints: [notAuthorizedRule, authorizedAnywayRule, stepUpRule, refreshRule],
  hintsFirst: true,
  generators: {},
};
