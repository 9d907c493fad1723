// The diagnosis kinds of a JSON-over-HTTP API played from a recording (the http-api protocol), and the
// Messages API's own rules on every request, registered with the exchange core's kinds and joined with
// every protocol's in protocols/index.ts. The API's words are quoted from its documentation, and from
// the 400 errors it answers with.

import { isAdviceRow, type KindRow } from '../../exchange/rows.ts';
import type { DiagnosisKind } from '../../exchange/diagnosis.ts';

const ERRORS = 'platform.claude.com/docs/en/api/errors';
const VERSIONING = 'platform.claude.com/docs/en/api/versioning';
const HANDLE_TOOL_CALLS = 'platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls';
const DEFINE_TOOLS = 'platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools';
/** The course's own rules (COURSE of exchange/rows.ts). */
const COURSE = 'docs/course.md';

export const HTTP_API_KINDS = {
  'api-key': {
    what: 'a request without the `x-api-key` the grader gave the program, or with another (answered 401 `authentication_error`)',
    level: 'must' as const,
    source: ERRORS,
    words: "401 - authentication_error: There's an issue with your API key. (The course: the key is the one the environment gives.)",
    refusal: true as const,
    hint: ['send the key the environment gives in the x-api-key header of every request, as it is'],
    example: 'your client sent POST /v1/messages without the x-api-key header: send the key the environment gives on every request',
  },
  'api-version': {
    what: 'a request without `anthropic-version`, or with another version than the recorded one (answered 400)',
    level: 'must' as const,
    source: VERSIONING,
    words: 'When making API requests, you must send an anthropic-version request header.',
    refusal: true as const,
    hint: ['send anthropic-version with every request: the version the case names'],
    example: 'your client sent anthropic-version "2023-06-01"; the recording was made with "2026-10-21"',
  },
  'api-path': {
    what: 'a request to a method and path the recording has no request for (answered 404 `not_found_error`)',
    level: 'course' as const,
    source: COURSE,
    words: 'the client talks to the endpoint it was given: POST {base}/v1/messages',
    refusal: true as const,
    example: 'your client sent POST /messages; the recording has POST /v1/messages',
  },
  'api-body': {
    what: 'a request whose body is not one JSON object sent as `application/json` (answered 400 `invalid_request_error`), or is larger than the grader reads (413)',
    level: 'must' as const,
    source: ERRORS,
    words: '400 - invalid_request_error: There was an issue with the format or content of your request.',
    refusal: true as const,
    hint: ['a request body is one JSON object, sent with content-type: application/json'],
    example: 'your client sent POST /v1/messages with a body that is not JSON',
  },
  'api-request-differs': {
    what: 'a request that differs from every recorded request not yet answered: its body compared as JSON (a string content as one text block, an absent field as its documented default), and the recorded headers',
    level: 'course' as const,
    source: COURSE,
    words: 'the client sends the requests its case asks for: the recorded body, field by field, and the recorded headers',
    refusal: true as const,
    example: 'your request differs from the recorded one at messages[1].content[0].tool_use_id: expected "toolu_01", got "toolu_02"',
  },
  'api-exhausted': {
    what: 'a request after every recorded response was used (each is used once): the recording is exhausted',
    level: 'course' as const,
    source: COURSE,
    words: 'each recorded response answers one request: the client sends no more requests than its case recorded',
    refusal: true as const,
    hint: ['a request the case did not expect: a retry of an error that must not be retried, or a loop that does not stop'],
    example: 'the recording is exhausted: your 4th request came after the 3 recorded ones were used; the nearest differs at …',
  },
  'api-unused': {
    what: 'the session ended with recorded requests never sent',
    level: 'course' as const,
    source: COURSE,
    words: 'the client sends every request its case recorded',
    example: 'the session ended before your client sent the 2 last recorded requests (the first of them: line 80)',
  },
  'api-tool-result-missing': {
    what: "an assistant message's `tool_use` blocks not each answered by a `tool_result` in the next message (answered 400, in the API's words)",
    level: 'must' as const,
    source: `${HANDLE_TOOL_CALLS} (and the API's 400 invalid_request_error)`,
    words:
      'Tool result blocks must immediately follow their corresponding tool use blocks in the message history. (The API: "tool_use ids were found without tool_result blocks immediately after: … Each tool_use block must have a corresponding tool_result block in the next message.")',
    refusal: true as const,
    hint: [
      'every tool_use of a response is answered by one tool_result with its id, all in the next user message',
      'parallel tool uses are all answered in that one message, not one message each',
    ],
    example: 'messages.2: tool_use ids were found without tool_result blocks immediately after: toolu_02. Each tool_use block must have …',
  },
  'api-tool-use-id': {
    what: "a `tool_result` whose `tool_use_id` is not the id of a `tool_use` in the previous message (answered 400, in the API's words)",
    level: 'must' as const,
    source: `${HANDLE_TOOL_CALLS} (and the API's 400 invalid_request_error)`,
    words:
      'tool_use_id: The id of the tool use request this is a result for. (The API: "unexpected tool_use_id found in tool_result blocks: … Each tool_result block must have a corresponding tool_use block in the previous message.")',
    refusal: true as const,
    hint: ["a tool_result's tool_use_id is the id of the tool_use it answers, copied from the response"],
    example: 'messages.2.content.0: unexpected tool_use_id found in tool_result blocks: toolu_99. Each tool_result block must have …',
  },
  'api-tool-result-first': {
    what: 'a user message with `tool_result` blocks that has another block before them (answered 400)',
    level: 'must' as const,
    source: `${HANDLE_TOOL_CALLS} (Important formatting requirements)`,
    words:
      'In the user message containing tool results, the tool_result blocks must come first in the content array, and any text must come after all tool results.',
    refusal: true as const,
    hint: ['put the tool_result blocks first in the user message; any text goes after all of them'],
    example: 'messages.2.content.0 is a text block, before the tool_result blocks: tool results come first in the message',
  },
  'api-tool-name': {
    what: 'a tool whose name is outside `^[a-zA-Z0-9_-]{1,128}$` (answered 400)',
    level: 'must' as const,
    source: DEFINE_TOOLS,
    words: 'name: The name of the tool. Must match the regex ^[a-zA-Z0-9_-]{1,128}$.',
    refusal: true as const,
    hint: ['a tool name the API refuses (one with "." or "/") is mapped to one it takes, and back when Claude calls it'],
    example: 'tools.0.name: "files/read" does not match ^[a-zA-Z0-9_-]{1,128}$',
  },
};

type Kinds = { [Kind in keyof typeof HTTP_API_KINDS]: KindRow };
declare module '../../exchange/diagnosis.ts' {
  interface DiagnosisKinds extends Kinds {}
}

/** Whether a diagnosis of an http-api kind fails its case or is advice. */
export function isAdvice(kind: DiagnosisKind): boolean {
  return isAdviceRow((HTTP_API_KINDS as Readonly<Record<string, KindRow>>)[kind]!);
}
