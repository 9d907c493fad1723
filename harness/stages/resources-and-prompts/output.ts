// Stage 8's output read against its contract: the steps and updates the resources commands print,
// as the stage's hints read them (the results inside are the student's: any JSON).
import { array, json, jsonObject, literal, object, oneOf, optional, type Reader, record, string } from '../reading.ts';
import type { ResourcesOutput, Step, TemplateValue } from './contract.ts';

const templateValue: Reader<TemplateValue> = oneOf('a string, a list of strings or an object of strings', string, array(string), record(string));

const step: Reader<Step> = oneOf<Step[]>(
  'a step: one of list, read, prompt, call, subscribe, unsubscribe',
  object({ list: oneOf('resources, templates or prompts', literal('resources'), literal('templates'), literal('prompts')) }),
  object({ read: oneOf('a URI or { template, values }', string, object({ template: string, values: record(templateValue) })) }),
  object({ prompt: string, arguments: optional(jsonObject) }),
  object({ call: string, arguments: optional(jsonObject) }),
  object({ subscribe: string }),
  object({ unsubscribe: string }),
);

/** What the stage's hints read of an output: its steps and updates, where it has them. */
export type ResourcesPart = Partial<Pick<ResourcesOutput, 'steps' | 'updated'>>;

export const resourcesPart = object({
  steps: optional(array(object({ step, uri: optional(json), result: optional(json) }))),
  updated: optional(array(json)),
}) satisfies Reader<ResourcesPart>;
