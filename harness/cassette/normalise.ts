// Nondeterministic values (UUIDs, timestamps) are replaced with stable stand-ins of the same shape,
// consistently across the whole cassette, so that re-recording the same session shows only real
// changes. Where a server frame had one, the path is marked free (verify ignores it); where the
// client produced one first, the path is marked free (the live client will send its own).
import { formatPath, type Segment } from './json-path.ts';
import { isObject, type Frame, type Json } from './model.ts';

const UUID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b/gi;
const TIMESTAMP = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?(?:Z|[+-]\d{2}:?\d{2})\b/g;
/** A clock time as servers print it in prose: "created at 12:18:55 AM". */
const TIME_OF_DAY = /\b\d{1,2}:\d{2}:\d{2}\s?[AP]M\b/g;
const EPOCH_2000 = Date.UTC(2000, 0, 1);

export class Normaliser {
  private readonly standIns = new Map<string, string>();
  private uuids = 0;
  private timestamps = 0;
  /** Originals first seen in what the server wrote. */
  private readonly fromServer = new Set<string>();

  /** Normalises frames in place. */
  frames(frames: Frame[]): void {
    for (const frame of frames) {
      if (frame.from === 'stderr' || frame.from === 'stdout') {
        frame.text = this.text(frame.text, 'server').text;
        if (frame.from === 'stdout' && frame.chunks) frame.chunks = frame.chunks.map((chunk) => this.text(chunk, 'server').text);
        continue;
      }
      const free: string[] = [];
      frame.message = this.json(frame.message, [], frame.from, free) as typeof frame.message;
      if (frame.from === 'server') {
        if (frame.raw !== undefined) frame.raw = this.text(frame.raw, 'server').text;
        if (frame.chunks) frame.chunks = frame.chunks.map((chunk) => this.text(chunk, 'server').text);
      }
      const merged = [...new Set([...(frame.free ?? []), ...free])];
      if (merged.length > 0) frame.free = merged;
    }
  }

  private json(value: Json, path: Segment[], side: 'client' | 'server', free: string[]): Json {
    if (typeof value === 'string') {
      const { text, changed, clientOriginal } = this.text(value, side);
      if (changed && (side === 'server' || clientOriginal)) free.push(formatPath(path));
      return text;
    }
    if (Array.isArray(value)) return value.map((item, i) => this.json(item, [...path, i], side, free));
    if (isObject(value)) {
      const result: { [key: string]: Json } = {};
      for (const [key, item] of Object.entries(value)) {
        // ids and the JSON-RPC envelope are never nondeterministic values of interest
        result[key] = path.length === 0 && key !== 'params' && key !== 'result' && key !== 'error' ? item : this.json(item, [...path, key], side, free);
      }
      return result;
    }
    return value;
  }

  private text(text: string, side: 'client' | 'server'): { text: string; changed: boolean; clientOriginal: boolean } {
    let changed = false;
    let clientOriginal = false;
    const replace = (original: string, make: () => string) => {
      changed = true;
      if (side === 'server') this.fromServer.add(original);
      else if (!this.fromServer.has(original)) clientOriginal = true;
      let stand = this.standIns.get(original);
      if (stand === undefined) {
        stand = make();
        this.standIns.set(original, stand);
      }
      return stand;
    };
    const result = text
      .replace(UUID, (original) => replace(original, () => `00000000-0000-4000-8000-${(++this.uuids).toString(16).padStart(12, '0')}`))
      .replace(TIMESTAMP, (original, fraction: string | undefined) =>
        replace(original, () => {
          const iso = new Date(EPOCH_2000 + ++this.timestamps * 1000).toISOString(); // 2000-01-01T00:00:01.000Z
          const base = iso.slice(0, 19);
          return fraction === undefined ? `${base}Z` : `${base}.${'0'.repeat(fraction.length)}Z`;
        }),
      )
      .replace(TIME_OF_DAY, (original) => replace(original, () => `12:00:${String(++this.timestamps % 60).padStart(2, '0')} AM`));
    return { text: result, changed, clientOriginal };
  }
}

/** Does this string hold a value that changes from run to run? */
export function looksNondeterministic(text: string): boolean {
  return [UUID, TIMESTAMP, TIME_OF_DAY].some((pattern) => {
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  });
}

/** The same value with every UUID and timestamp replaced by a fixed mark, for comparing two runs. */
export function maskNondeterministic<T extends Json>(value: T): T {
  if (typeof value === 'string') return value.replace(UUID, '<uuid>').replace(TIMESTAMP, '<timestamp>').replace(TIME_OF_DAY, '<time>') as T;
  if (Array.isArray(value)) return value.map((item) => maskNondeterministic(item)) as T;
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, maskNondeterministic(item)])) as T;
  return value;
}
