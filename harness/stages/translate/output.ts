// Stage 5's output read against its contract: the tools as toClaudeTool made them, and whether the
// MCP tools were left unchanged. The stage's hints read `tools` in later outputs too, where it is
// tools/list's outcome: any JSON.
import { boolean, json, object, optional, type Reader } from '../reading.ts';
import type { TranslateOutput } from './contract.ts';
import type { Json } from '../contract.ts';

export type TranslatePart = { tools?: TranslateOutput['tools'] | Json; unchanged?: TranslateOutput['unchanged'] };

export const translatePart = object({ tools: optional(json), unchanged: optional(boolean) }) satisfies Reader<TranslatePart>;
