// Stage 7, `authorization`: a server behind OAuth. What a client gets wrong in the flow shows first
// in what the player says (the oauth-* kinds, grade/hints.ts); this module reads the output the
// `authorization` command prints: no authorization found where the reference found one.
import type { Comparison } from '../../grade/comparison.ts';
import { OUTPUT_RULES } from '../../cassette/index.ts';
import type { Hint } from '../../run/verdict.ts';
import { fieldsOf, readBoth } from '../reading.ts';
import type { HintFinder, StageContent } from '../stage-content.ts';
import { authorizationPart, type AuthorizationPart } from './output.ts';

/** The reference authorized and the client did not: where its flow stopped is on its stderr. */
function notAuthorizedRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, authorizationPart);
  if (both === undefined) return [];
  if (both.expected.authorization === null || both.actual.authorization !== null) return [];
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
  const both = readBoth(comparison, authorizationPart);
  if (both === undefined) return [];
  if (both.expected.authorization !== null || both.actual.authorization === null) return [];
  return [
    {
      kind: 'authorized-anyway',
      lines: [
        'your client went through with an authorization it should have refused: read the case (case.md) for what is wrong with this server or its redirect',
      ],
    },
  ];
}

const times = (n: number) => `${n} time${n === 1 ? '' : 's'}`;

/** A rule for a count of `authorization` (authorizations, refreshes) the client fell short of: what it
 *  did fewer times than the reference, what that means, and what to do. */
function fewerThanReference(what: string, kind: keyof typeof OUTPUT_RULES, did: string, meaning: string, todo: string): HintFinder {
  const rule = `the course's rule (docs/course.md), beyond the spec's words: ${OUTPUT_RULES[kind]!.words.replace(/^.*?\(the spec/, '(the spec')}`;
  return (comparison) => {
    const both = readBoth(comparison, authorizationPart);
    const count = (output: AuthorizationPart) => fieldsOf(output.authorization)[what];
    const [expected, actual] = both === undefined ? [] : [count(both.expected), count(both.actual)];
    if (typeof expected !== 'number' || typeof actual !== 'number' || actual >= expected) return [];
    return [
      {
        kind,
        lines: [`your client ${did} ${times(actual)}, the reference ${expected}: ${meaning}`, todo, rule],
        general: [`your client ${did} fewer times than the reference: ${meaning}`, todo, rule],
      },
    ];
  };
}

/** A 403 insufficient_scope not answered with a step-up. */
const stepUpRule = fewerThanReference(
  'authorizations',
  'step-up-missing',
  'authorized',
  'a request answered 403 with error="insufficient_scope" asks for a token with more scopes; one answered 401 invalid_token where no refresh token was given asks for a new token',
  'authorize again (after a 403, for the scopes held and those the challenge names: its scope parameter), then send the request again with the new token',
);

/** An expired token answered with a whole new flow, or not at all. */
const refreshRule = fewerThanReference(
  'refreshes',
  'refresh-missing',
  'refreshed its token',
  'a request answered 401 with error="invalid_token" once the client holds a token means it expired',
  'refresh it once (grant_type=refresh_token with the refresh token of the last token response, and resource), then send the request again; ask for authorization again only when the refresh fails',
);

export const authorization: StageContent = {
  slug: 'authorization',
  hints: [notAuthorizedRule, authorizedAnywayRule, stepUpRule, refreshRule],
  hintsFirst: true,
  generators: {},
};
