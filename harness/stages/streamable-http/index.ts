// Stage 4, `streamable-http`: the same client over Streamable HTTP. What a transport gets wrong
// shows first in what the player says (grade/hints.ts reads its diagnoses); this module reads the
// output the `http` command prints: a reply the client could not read leaves a result out.
import type { Comparison } from '../../grade/comparison.ts';
import type { Hint } from '../../run/verdict.ts';
import type { Outcome } from '../contract.ts';
import { fieldsOf, readBoth } from '../reading.ts';
import type { StageContent } from '../stage-content.ts';
import { httpPart } from './output.ts';

/** A result the reference read and the client did not: the event stream's reader lost it. */
function unreadReplyRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, httpPart);
  if (both === undefined) return [];
  const refused = (value: Outcome | undefined) => fieldsOf(value).refused === true;
  const parts = (['initialize', 'tools'] as const).filter((key) => !refused(both.expected[key]) && refused(both.actual[key]));
  if (parts.length === 0) return [];
  return [
    {
      kind: 'reply-unread',
      lines: [
        `your client got no ${parts.join(' and no ')} result: its reply was not read`,
        'a reply is JSON (Content-Type: application/json) or an event stream (text/event-stream): read the data of each event, skip one without data (the priming event) and the comment lines (": ...")',
      ],
      general: [
        'your client got no result for a request: its reply was not read',
        'a reply is JSON (Content-Type: application/json) or an event stream (text/event-stream): read the data of each event, skip one without data (the priming event) and the comment lines (": ...")',
      ],
    },
  ];
}

/** Fewer notifications than the reference heard: a reply's events before its response were dropped. */
function lostNotificationsRule(comparison: Comparison): Hint[] {
  const both = readBoth(comparison, httpPart);
  if (both === undefined) return [];
  const expected = both.expected.notifications?.length ?? 0;
  const actual = both.actual.notifications?.length ?? 0;
  if (actual >= expected) return [];
  return [
    {
      kind: 'notifications-lost',
      lines: [
        `your transport handed on ${actual} of the ${expected} notifications the server sent (a long call's progress, on its stream before the result)`,
        "every event of a reply's stream is a message to hand on, in order: notifications and the server's requests come before the response",
      ],
      general: [
        "your transport handed on fewer notifications than the server sent (a long call's progress, on its stream before the result)",
        "every event of a reply's stream is a message to hand on, in order: notifications and the server's requests come before the response",
      ],
    },
  ];
}

export const streamableHttp: StageContent = { slug: 'streamable-http', hints: [unreadReplyRule, lostNotificationsRule], generators: {} };
