// How a live request is held to a recorded one: the method and path, the headers that matter, and the
// JSON body compared by JSON path once both are put in one form (an API's equivalent spellings made
// one: for the Messages API a string content is one text block, and an absent field its documented
// default). The nearest recorded request is the one with the fewest differences.
import { countDifferences, firstDifference, formatPath, isObject } from '../../exchange/json-path.ts';
import type { Json, JsonObject } from '../../json.ts';
import { type ApiName, type HeaderMap, REQUEST_HEADERS, type RecordedRequest } from './model.ts';

export interface LiveRequest {
  method: string;
  path: string;
  /** Lower-case names, as node gives them. */
  headers: Record<string, string | string[] | undefined>;
  body: JsonObject;
}

export interface RequestDifference {
  /** `headers.anthropic-version`, or a path into the body: `messages[1].content[0].text`. */
  path: string;
  expected: Json | undefined;
  actual: Json | undefined;
}

/** Where `live` first differs from `recorded`, or undefined when it is the recorded request. */
export function requestDifference(api: ApiName, recorded: RecordedRequest, live: LiveRequest): RequestDifference | undefined {
  if (recorded.method !== live.method || recorded.path !== live.path) {
    return { path: '(method and path)', expected: `${recorded.method} ${recorded.path}`, actual: `${live.method} ${live.path}` };
  }
  for (const name of REQUEST_HEADERS) {
    const expected = headerValue(name, recorded.headers[name]);
    const actual = headerValue(name, live.headers[name]);
    // A header the recording leaves out is not compared: a beta a client turns on by itself (the AI
    // SDK's anthropic-beta) changes what it sends, and that the body's comparison sees.
    if (expected === undefined) continue;
    if (expected !== actual) return { path: `headers.${name}`, expected, actual };
  }
  const difference = firstDifference(canonical(api, recorded.body), canonical(api, live.body));
  if (!difference) return undefined;
  return { path: formatPath(difference.path), expected: difference.expected, actual: difference.actual };
}

/** How far `live` is from `recorded`: differences counted (a header or the path weigh as one each). */
export function distance(api: ApiName, recorded: RecordedRequest, live: LiveRequest): number {
  let count = recorded.method === live.method && recorded.path === live.path ? 0 : 1;
  for (const name of REQUEST_HEADERS) {
    const expected = headerValue(name, recorded.headers[name]);
    if (expected !== undefined && expected !== headerValue(name, live.headers[name])) count++;
  }
  return count + countDifferences(canonical(api, recorded.body), canonical(api, live.body));
}

/** A header as compared: content-type by its media type alone (`application/json; charset=utf-8` is JSON). */
function headerValue(name: string, value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(', ') : value;
  if (text === undefined) return undefined;
  return name === 'content-type' ? text.split(';')[0]!.trim().toLowerCase() : text;
}

/** The body in one form, for comparing: what the API takes as the same request is the same value. */
export function canonical(api: ApiName, body: JsonObject): JsonObject {
  switch (api) {
    case 'anthropic-messages':
      return canonicalMessages(body);
  }
}

/** One text block for a string (messages' content, system, a tool_result's content: "a string, or a list of blocks"). */
function asBlocks(value: Json | undefined): Json | undefined {
  return typeof value === 'string' ? [{ type: 'text', text: value }] : value;
}

/** The Messages API's request in one form. Its documented defaults, dropped where given: `stream`
 *  (false), a tool_result's `is_error` (false), `tool_choice` {type: auto} (the default when tools are
 *  given) with `disable_parallel_tool_use` false. */
function canonicalMessages(body: JsonObject): JsonObject {
  const copy: JsonObject = { ...body };
  if (copy.stream === false) delete copy.stream;
  if (copy.system !== undefined) copy.system = asBlocks(copy.system) as Json;
  if (isObject(copy.tool_choice)) {
    const { type, disable_parallel_tool_use, ...rest } = copy.tool_choice;
    if (type === 'auto' && (disable_parallel_tool_use ?? false) === false && Object.keys(rest).length === 0) delete copy.tool_choice;
  }
  if (Array.isArray(copy.messages)) {
    copy.messages = copy.messages.map((message) => {
      if (!isObject(message)) return message;
      const content = asBlocks(message.content);
      if (!Array.isArray(content)) return { ...message, ...(content !== undefined && { content }) };
      return { ...message, content: content.map(canonicalBlock) };
    });
  }
  return copy;
}

function canonicalBlock(block: Json): Json {
  if (!isObject(block) || block.type !== 'tool_result') return block;
  const copy: JsonObject = { ...block };
  if (copy.is_error === false) delete copy.is_error;
  if (copy.content !== undefined) copy.content = asBlocks(copy.content) as Json;
  return copy;
}

/** The recorded headers that matter, for a diagnosis. */
export function shownHeaders(headers: HeaderMap): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join(', ');
}
