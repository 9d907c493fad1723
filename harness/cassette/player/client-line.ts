// A line from the client, as the player reads it: one JSON-RPC message object, or why it is none (not
// JSON; JSON nested deeper than the grader reads, json-depth.ts; JSON that is not one object), with
// what stands for it in the exchange and the error the player answers it with. The HTTP face reads a
// POSTed body so too, before the player does.
import { NESTED_TOO_DEEP, nestedDeeperThan } from '../../json-depth.ts';
import { isObject, type Json, type JsonObject } from '../format/model.ts';
import type { DiagnosisKind } from '../../exchange/diagnosis.ts';
import { preview } from './player-words.ts';

/** A line that is not one message the player judges. */
export interface NotAMessage {
  kind: Extract<DiagnosisKind, 'not-json' | 'nested-too-deep'>;
  /** What stands for it in the exchange and the diagnosis: its value, or its text where the value is not to be walked. */
  shown: Json;
  /** The diagnosis, in a line. */
  said: string;
  /** The JSON-RPC error it is answered with. */
  error: { code: number; message: string };
}

export function readClientLine(text: string): { message: JsonObject } | NotAMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const error = { code: -32700, message: 'Parse error: the line is not JSON' };
    return { kind: 'not-json', shown: text, said: `your client wrote a line that is not JSON: ${preview(text)}`, error };
  }
  if (nestedDeeperThan(value)) {
    // shown as its text, never as the value: every walk of the value past here would recurse that deep
    const error = { code: -32600, message: `Invalid Request: a message ${NESTED_TOO_DEEP}` };
    return { kind: 'nested-too-deep', shown: text, said: `your client wrote a message ${NESTED_TOO_DEEP}: ${preview(text)}`, error };
  }
  if (!isObject(value)) {
    const error = { code: -32600, message: 'Invalid Request: expected one JSON-RPC message object' };
    return { kind: 'not-json', shown: value as Json, said: `your client wrote JSON that is not one message object: ${preview(text)}`, error };
  }
  return { message: value };
}
