// Stage 8's contract: `resources` and `resources-http` read steps.json, and print each step with its
// outcome, and the URIs a subscription handed on.
import type { Json, JsonObject, Outcome } from '../contract.ts';
import type { AfterClose } from '../handshake/contract.ts';

/** A value of a template's variable, as RFC 6570 takes one. */
export type TemplateValue = string | string[] | Record<string, string>;

/** One step of steps.json: a list, a read (of a URI, or of a template expanded with its values), a
 *  prompt got with its arguments, a tool called, a subscription made or ended. */
export type Step =
  | { list: 'resources' | 'templates' | 'prompts' }
  | { read: string | { template: string; values: Record<string, TemplateValue> } }
  | { prompt: string; arguments?: JsonObject }
  | { call: string; arguments?: JsonObject }
  | { subscribe: string }
  | { unsubscribe: string };
export type StepsInput = Step[];

/** A step as printed: the step, the URI a template expanded to (by the student's expandTemplate), and its
 *  outcome (a list's result is the list; a read's, `{ contents }`; a subscription's, `{}`). */
export interface StepLine {
  step: Step;
  uri?: Json;
  result?: Outcome;
}

/** `resources` adds AfterClose; `resources-http` does not (close() ends its session). */
export interface ResourcesOutput extends AfterClose {
  steps: StepLine[];
  /** The URIs handed on by a subscription's onUpdated, in order. */
  updated: Json[];
}
