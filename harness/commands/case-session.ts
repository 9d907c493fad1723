// What program.ts's commands make of a recorded session, for `new-case`: the part of it a command
// plays (a handshake ends at notifications/initialized), and the inputs its case folder gives the
// command beside case.md (calls.json: the calls the recorded client made, in its order; steps.json, the
// resources commands' steps). A command
// this table does not know gets the whole session and no inputs; bless then says what differs.
import type { Cassette, Frame, Json, JsonObject } from '../cassette/index.ts';
import type { Step, StepsInput } from '../stages/resources-and-prompts/contract.ts';
import type { ToolCall, CallsInput } from '../stages/tools/contract.ts';

interface CommandSession {
  /** The frames the command plays (all of them unless said). */
  frames?(frames: Frame[]): Frame[];
  /** The files of the case folder, by name, each a JSON value. */
  inputs(frames: Frame[]): Record<string, Json>;
}

/** The calls the client made that the server answered, in order, as calls.json holds them (a name and
 *  its arguments; the rest of the params, `_meta`, is the client's): a call refused for its token (401,
 *  or 403 for a scope) is made again once authorized, and counts once. */
function calls(frames: Frame[]): CallsInput {
  return frames.flatMap((frame): ToolCall[] => {
    if (frame.from !== 'client' || frame.message.method !== 'tools/call' || (frame.http?.reply?.status ?? 200) >= 400) return [];
    const { name, arguments: args } = (frame.message.params ?? {}) as JsonObject;
    return [{ name: asText(name), ...(isObject(args) && { arguments: args }) }];
  });
}

/** A recorded param the contract takes as text: a request without it is recorded as the server saw it, and
 *  bless then says what the program made of it. */
function asText(value: Json | undefined): string {
  return (value ?? null) as string;
}

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** calls.json where the command makes calls, only when there are some (`required`: always, as `tools` reads it). */
const withCalls =
  (required: boolean) =>
  (frames: Frame[]): Record<string, Json> => {
    const made = calls(frames);
    return made.length > 0 || required ? { 'calls.json': made } : {};
  };

/** steps.json of the resources commands (stage 8): each list (its first page: the pages after it are
 *  the same step), read, prompt, call, subscription and its end, in the recording's order. */
function steps(frames: Frame[]): Record<string, Json> {
  const LISTS: Record<string, 'resources' | 'templates' | 'prompts'> = {
    'resources/list': 'resources',
    'resources/templates/list': 'templates',
    'prompts/list': 'prompts',
  };
  const made: StepsInput = frames.flatMap((frame): Step[] => {
    if (frame.from !== 'client' || typeof frame.message.method !== 'string' || (frame.http?.reply?.status ?? 200) >= 400) return [];
    const { method } = frame.message;
    const params = (frame.message.params ?? {}) as JsonObject;
    if (method in LISTS) return params.cursor === undefined ? [{ list: LISTS[method]! }] : [];
    if (method === 'resources/read') return [{ read: asText(params.uri) }];
    if (method === 'prompts/get') return [{ prompt: asText(params.name), ...(isObject(params.arguments) && { arguments: params.arguments }) }];
    if (method === 'tools/call') return [{ call: asText(params.name), ...(isObject(params.arguments) && { arguments: params.arguments }) }];
    if (method === 'resources/subscribe') return [{ subscribe: asText(params.uri) }];
    if (method === 'resources/unsubscribe') return [{ unsubscribe: asText(params.uri) }];
    return [];
  });
  return { 'steps.json': made };
}

const COMMANDS: Record<string, CommandSession> = {
  // initialize, its result, initialized: what follows is no part of a handshake
  handshake: {
    frames: (frames) => {
      const end = frames.findIndex((frame) => frame.from === 'client' && frame.message.method === 'notifications/initialized');
      return end < 0 ? frames : frames.slice(0, end + 1);
    },
    inputs: () => ({}),
  },
  tools: { inputs: withCalls(true) },
  http: { inputs: withCalls(false) },
  translate: { inputs: () => ({}) },
  stateless: { inputs: withCalls(false) },
  authorization: { inputs: withCalls(false) },
  resources: { inputs: steps },
  'resources-http': { inputs: steps },
};

/** The session as `command`'s case plays it, and the inputs of its case folder. */
export function caseOfSession(command: string, cassette: Cassette): { frames: Frame[]; inputs: Record<string, Json> } {
  const session = COMMANDS[command];
  const frames = session?.frames?.(cassette.frames) ?? cassette.frames;
  return { frames, inputs: session?.inputs(frames) ?? {} };
}

/** The client's requests and notifications of a session, in order, by method (a call by its tool): what case.md says it holds. */
export function sessionSteps(frames: Frame[]): string[] {
  const steps = frames.flatMap((frame) => {
    if (frame.from !== 'client' || typeof frame.message.method !== 'string') return [];
    const params = frame.message.params as JsonObject | undefined;
    return [frame.message.method === 'tools/call' && typeof params?.name === 'string' ? `tools/call ${params.name}` : frame.message.method];
  });
  // a request refused for its token and sent again is one step
  return steps.filter((step, index) => step !== steps[index - 1]);
}
