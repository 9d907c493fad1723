// Stage 3's output read against its contract: the tools listed and each call's outcome (the stage's
// hints read them in the later outputs that have them too).
import { array, json, object, optional, type Reader } from '../reading.ts';
import type { ToolsOutput } from './contract.ts';

export type ToolsPart = Partial<Pick<ToolsOutput, 'tools' | 'calls'>>;

export const toolsPart = object({ tools: optional(json), calls: optional(array(json)) }) satisfies Reader<ToolsPart>;
