// A recorded server frame as the bytes the player writes: in the reads it was recorded in (its
// `chunks`, or `cuts` into its raw text), with the live ids edited into the recorded text where the
// recording kept it byte for byte, else the message as one compact line.
import { compactLine, isObject, type JsonObject, type ServerFrame, type StdoutFrame } from '../format/model.ts';
import type { IdEdit } from './id-map.ts';
import { editAndCut, editChunks } from './raw-edit.ts';

/** A line of the server's stdout that is no message, in its recorded reads. */
export function stdoutChunks(frame: StdoutFrame): (string | Uint8Array)[] {
  return frame.cuts ? editAndCut(frame.text, [], frame.cuts) : (frame.chunks ?? [frame.text]);
}

/** A server message, `sent` with the live ids (`edits`) applied, in its recorded reads. */
export function messageChunks(frame: ServerFrame, sent: JsonObject, edits: IdEdit[]): (string | Uint8Array)[] {
  const textEdits = () => edits.map((edit) => ({ path: edit.path, replacement: JSON.stringify(edit.value) }));
  if (frame.cuts) return editAndCut(frame.raw ?? compactLine(frame.message), textEdits(), frame.cuts);
  if (frame.raw === undefined && frame.chunks === undefined) return [compactLine(sent)];
  const recorded = frame.chunks ?? [frame.raw!];
  return edits.length === 0 ? recorded : editChunks(recorded, textEdits());
}

/** A stdout frame's text as the message it holds, when it is one JSON object (else it is a line). */
export function parseLine(text: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
