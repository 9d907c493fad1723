// Rewrites a value inside the exact bytes a server wrote (an id, a progress token) without
// touching anything else: pretty-printing, key order, escapes and CRLF all stay as recorded.
// Chunk boundaries move with the edit, so a split frame stays split at the same place.

/** Where the value at `path` (object keys only) starts and ends in the JSON text, or undefined. */
export function findValueSpan(text: string, path: readonly string[]): [number, number] | undefined {
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  };
  const readString = (): string => {
    const start = i;
    i++; // opening quote
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const skipValue = (): void => {
    skipSpace();
    const c = text[i];
    if (c === '"') return void readString();
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < text.length) {
        const d = text[i];
        if (d === '"') {
          readString();
          continue;
        }
        if (d === '{' || d === '[') depth++;
        if (d === '}' || d === ']') depth--;
        i++;
        if (depth === 0) return;
      }
      return;
    }
    while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
  };
  const find = (depth: number): [number, number] | undefined => {
    skipSpace();
    if (text[i] !== '{') return undefined;
    i++;
    for (;;) {
      skipSpace();
      if (text[i] === '}' || i >= text.length) return undefined;
      const key = readString();
      skipSpace();
      i++; // colon
      skipSpace();
      if (key === path[depth]) {
        if (depth === path.length - 1) {
          const start = i;
          skipValue();
          return [start, i];
        }
        return find(depth + 1);
      }
      skipValue();
      skipSpace();
      if (text[i] === ',') i++;
    }
  };
  return find(0);
}

export interface Edit {
  path: readonly string[];
  /** The JSON text that replaces the value. */
  replacement: string;
}

/** Applies edits to bytes cut into chunks; returns the new chunks (same count, boundaries shifted). */
export function editChunks(chunks: readonly string[], edits: readonly Edit[]): string[] {
  let text = chunks.join('');
  const boundaries: number[] = [];
  let offset = 0;
  for (const chunk of chunks.slice(0, -1)) boundaries.push((offset += chunk.length));
  for (const edit of edits) {
    const span = findValueSpan(text, edit.path);
    if (!span) continue;
    const [start, end] = span;
    const delta = edit.replacement.length - (end - start);
    text = text.slice(0, start) + edit.replacement + text.slice(end);
    for (let b = 0; b < boundaries.length; b++) {
      if (boundaries[b]! >= end) boundaries[b]! += delta;
      else if (boundaries[b]! > start) boundaries[b] = start + edit.replacement.length;
    }
  }
  const result: string[] = [];
  let previous = 0;
  for (const boundary of [...boundaries, text.length]) {
    result.push(text.slice(previous, boundary));
    previous = boundary;
  }
  return result;
}

/** Applies edits to a frame's text and cuts its UTF-8 bytes at `cuts` (shifted by the edits). */
export function editAndCut(text: string, edits: readonly Edit[], cuts: readonly number[]): Uint8Array[] {
  let current = text;
  const boundaries = [...cuts];
  for (const edit of edits) {
    const span = findValueSpan(current, edit.path);
    if (!span) continue;
    const start = Buffer.byteLength(current.slice(0, span[0]));
    const end = start + Buffer.byteLength(current.slice(span[0], span[1]));
    const replacementLength = Buffer.byteLength(edit.replacement);
    const delta = replacementLength - (end - start);
    current = current.slice(0, span[0]) + edit.replacement + current.slice(span[1]);
    for (let b = 0; b < boundaries.length; b++) {
      if (boundaries[b]! >= end) boundaries[b]! += delta;
      else if (boundaries[b]! > start) boundaries[b] = start + replacementLength;
    }
  }
  const bytes = Buffer.from(current);
  const pieces: Uint8Array[] = [];
  let previous = 0;
  for (const boundary of [...boundaries, bytes.length]) {
    if (boundary > previous) pieces.push(bytes.subarray(previous, boundary));
    previous = Math.max(previous, boundary);
  }
  return pieces;
}
