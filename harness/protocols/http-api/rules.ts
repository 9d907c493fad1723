// The API's own rules, held on every request whatever the recording says: a request that breaks one
// is answered as the API answers it (400 invalid_request_error, in its words) and diagnosed with the
// rule's kind. For the Messages API: each tool_use answered by a tool_result in the next message, no
// tool_result without its tool_use, tool results first in their message, tool names in the pattern.
import { isObject } from '../../exchange/json-path.ts';
import type { Json, JsonObject } from '../../json.ts';
import type { ApiName, RecordedRequest } from './model.ts';

export type RuleKind = 'api-tool-name' | 'api-tool-result-missing' | 'api-tool-use-id' | 'api-tool-result-first';

export interface RuleProblem {
  kind: RuleKind;
  /** Where in the body, as segments (`messages`, 2, `content`, 0). */
  path: (string | number)[];
  /** The API's error message. */
  message: string;
}

/** define-tools: "Must match the regex ^[a-zA-Z0-9_-]{1,128}$". */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/;

/** The first rule of `api` the body breaks, or undefined. */
export function ruleProblem(api: ApiName, body: JsonObject): RuleProblem | undefined {
  switch (api) {
    case 'anthropic-messages':
      return messagesProblem(body);
  }
}

/** A recorded request that breaks a rule could never be matched: the recording is refused. */
export function recordedProblem(api: ApiName, request: RecordedRequest): RuleProblem | undefined {
  return ruleProblem(api, request.body);
}

function messagesProblem(body: JsonObject): RuleProblem | undefined {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  for (const [i, tool] of tools.entries()) {
    // A tool with a type is one of the API's own (bash_20250124, web_search_…): its name is fixed.
    if (!isObject(tool) || (tool.type !== undefined && tool.type !== 'custom')) continue;
    if (typeof tool.name !== 'string' || !TOOL_NAME.test(tool.name)) {
      return { kind: 'api-tool-name', path: ['tools', i, 'name'], message: `tools.${i}.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'` };
    }
  }
  const messages = Array.isArray(body.messages) ? body.messages : [];
  let unexpected: { i: number; k: number; id: Json | undefined } | undefined;
  for (const [i, message] of messages.entries()) {
    const blocks = blocksOf(message);
    const results = blocks.filter((block) => block.type === 'tool_result');
    if (results.length > 0) {
      const first = blocks.findIndex((block) => block.type !== 'tool_result');
      const last = blocks.map((block) => block.type).lastIndexOf('tool_result');
      if (first !== -1 && first < last) {
        return {
          kind: 'api-tool-result-first',
          path: ['messages', i, 'content', first],
          message: `messages.${i}: Did not find ${results.length} tool_result block(s) at the beginning of this message. Messages following tool_use blocks must begin with a matching number of tool_result blocks.`,
        };
      }
      const afterAssistant = i > 0 && isObject(messages[i - 1]) && (messages[i - 1] as JsonObject).role === 'assistant';
      const ids = new Set((afterAssistant ? blocksOf(messages[i - 1]) : []).filter((block) => block.type === 'tool_use').map((block) => block.id));
      const k = blocks.findIndex((block) => block.type === 'tool_result' && !ids.has(block.tool_use_id as Json));
      if (k !== -1) {
        // Results split over messages: the tool uses left unanswered in the first are what the API says first.
        if (!afterAssistant) {
          unexpected ??= { i, k, id: blocks[k]!.tool_use_id };
          continue;
        }
        return unexpectedId(i, k, blocks[k]!.tool_use_id);
      }
    }
  }
  // A result with a wrong id after the assistant's turn leaves its tool use unanswered too: the id is
  // what the client got wrong, so it was said first.
  for (const [i, message] of messages.entries()) {
    const uses = isObject(message) && message.role === 'assistant' ? blocksOf(message).filter((block) => block.type === 'tool_use') : [];
    // The last message may end in tool_use only as the assistant's own prefill; the rule is about the next one.
    if (uses.length === 0 || i + 1 >= messages.length) continue;
    const answered = new Set(
      blocksOf(messages[i + 1])
        .filter((block) => block.type === 'tool_result')
        .map((block) => block.tool_use_id),
    );
    const missing = uses.filter((use) => !answered.has(use.id as Json)).map((use) => String(use.id));
    if (missing.length > 0) {
      return {
        kind: 'api-tool-result-missing',
        path: ['messages', i + 1],
        message: `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      };
    }
  }
  if (unexpected) return unexpectedId(unexpected.i, unexpected.k, unexpected.id);
  return undefined;
}

function unexpectedId(i: number, k: number, id: Json | undefined): RuleProblem {
  return {
    kind: 'api-tool-use-id',
    path: ['messages', i, 'content', k, 'tool_use_id'],
    message: `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
  };
}

/** A message's content blocks; a string content is text, no block of a tool. */
function blocksOf(message: Json | undefined): JsonObject[] {
  if (!isObject(message) || !Array.isArray(message.content)) return [];
  return message.content.filter(isObject);
}
