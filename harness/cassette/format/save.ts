// A cassette written as YAML (the format format.ts reads): frames as their own keys, comments kept
// above the frames they were on, raw byte strings quoted on one line. Saving is atomic (a temporary
// file renamed or linked into place), so a crash never leaves half a cassette at the target path.
import { Document, isMap, isSeq } from 'yaml';
import { writeAtomically, type WriteOptions } from '../../files.ts';
import type { Cassette, Json, JsonObject } from './model.ts';

export function serialiseCassette(cassette: Cassette): string {
  const frames = cassette.frames.map((frame): Record<string, Json> => {
    switch (frame.from) {
      case 'client':
        return { client: frame.message, ...(frame.free ? { free: frame.free } : {}), ...(frame.http && { http: frame.http as unknown as JsonObject }) };
      case 'sse':
        return { sse: frame.data ?? null, http: frame.http as JsonObject };
      case 'server':
        return {
          server: frame.message,
          ...(frame.free ? { free: frame.free } : {}),
          ...(frame.http && { http: frame.http as JsonObject }),
          ...(frame.raw !== undefined ? { raw: frame.raw } : {}),
          ...(frame.chunks ? { chunks: frame.chunks } : {}),
          ...(frame.cuts ? { cuts: frame.cuts } : {}),
          ...(frame.flush === false ? { flush: false } : {}),
        };
      case 'stdout':
        return {
          stdout: frame.text,
          ...(frame.chunks ? { chunks: frame.chunks } : {}),
          ...(frame.cuts ? { cuts: frame.cuts } : {}),
          ...(frame.flush === false ? { flush: false } : {}),
        };
      case 'stderr':
        return { stderr: frame.text };
      case 'auth':
        return { auth: frame.request as unknown as JsonObject, reply: frame.reply as unknown as JsonObject };
    }
  });
  const provenance = Object.fromEntries(Object.entries(cassette.provenance).filter(([, value]) => value !== undefined));
  const root: Record<string, Json> = {
    version: cassette.version,
    transport: cassette.transport,
    provenance: provenance as JsonObject,
    ...(cassette.http && { http: cassette.http as unknown as JsonObject }),
    ...(cassette.free ? { free: cassette.free } : {}),
    frames,
  };
  const doc = new Document(root);
  if (cassette.comment) doc.commentBefore = cassette.comment;
  (doc.get('frames', true) as { items: { commentBefore?: string }[] }).items.forEach((item, index) => {
    const comment = cassette.frames[index]?.comment;
    if (comment) item.commentBefore = comment;
  });
  // Raw byte strings keep their escapes visible on one line.
  for (const frame of (doc.get('frames') as { items: unknown[] }).items) {
    if (!isMap(frame)) continue;
    for (const key of ['raw', 'stdout']) {
      const node = frame.get(key, true) as { type?: string } | undefined;
      if (node) node.type = 'QUOTE_DOUBLE';
    }
    const chunks = frame.get('chunks', true);
    if (isSeq(chunks)) {
      chunks.flow = false;
      for (const item of chunks.items) (item as { type?: string }).type = 'QUOTE_DOUBLE';
    }
    const cuts = frame.get('cuts', true);
    if (isSeq(cuts)) cuts.flow = true;
  }
  return doc.toString({ lineWidth: 0, minContentWidth: 0 });
}

export type SaveOptions = WriteOptions;

/** Writes atomically: a temporary file beside the target, then renamed (or hard-linked, which refuses to replace). */
export function saveCassette(cassette: Cassette, target: string, options: SaveOptions = {}): void {
  writeAtomically(target, serialiseCassette(cassette), options);
}
