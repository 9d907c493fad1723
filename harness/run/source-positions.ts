// Stack traces in a bundle's terms, told in the source's. Bundled programs run without
// `--enable-source-maps` (parsing a map costs each case process more than running its case): the
// grader keeps the bundle's map and rewrites what they print on stderr, as Node would have
// printed it with the map: the file and line of an uncaught error with its source line and caret,
// and each stack frame's file, line and column.
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Rewrites a bundle's positions in text; text without them comes back as it was. */
export type PositionMapper = (text: string) => string;

export function sourcePositions(bundlePath: string, payload: SourceMapPayload): PositionMapper {
  let map: SourceMap | undefined; // made the first time a position is asked: most gradings print none
  const folder = dirname(bundlePath);
  // Node names an ES module by its URL; a program printing import.meta.filename would use the path.
  const url = pathToFileURL(bundlePath).href;
  const file = `(?:${literally(url)}|${literally(bundlePath)})`;

  // Each source's lines, split the first time a position is in it: a stderr of many frames into a
  // large source splits it once, not once a frame.
  const lines = new Map<string, readonly string[] | undefined>();
  const linesOf = (source: string) => {
    if (!lines.has(source)) lines.set(source, payload.sourcesContent?.[payload.sources.indexOf(source)]?.split('\n'));
    return lines.get(source);
  };

  /** The source position of a 1-based line and column of the bundle. */
  const original = (line: number, column: number) => {
    map ??= new SourceMap(payload);
    const entry = map.findEntry(line - 1, column - 1) as Partial<{ originalSource: string; originalLine: number; originalColumn: number }>;
    if (entry.originalSource === undefined || entry.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    const text = linesOf(entry.originalSource)?.[entry.originalLine];
    return { path: resolve(folder, entry.originalSource), line: entry.originalLine + 1, column: entry.originalColumn + 1, text };
  };

  // An uncaught error's header: `<file>:<line>`, the line of code, a caret under the failing column.
  const header = new RegExp(`^${file}:(\\d+)\\n.*\\n( *)(\\^+)$`, 'gm');
  // A frame with a function name, `at f (<file>:l:c)`, or without, `at <file>:l:c`. Its indent is
  // spaces and tabs: `\s` takes line breaks too, and from each line of a run of empty ones would
  // scan the run to its end (1 MiB of newlines, then the path: about 18 minutes a case).
  const frame = new RegExp(`^([ \\t]+at (?:async )?)(?:(.+?) \\()?${file}:(\\d+):(\\d+)(\\)?)$`, 'gm');
  // Anywhere else (an error printed by hand, a stack kept in a string).
  const position = new RegExp(`${file}:(\\d+):(\\d+)`, 'g');

  return (text) => {
    if (!text.includes(bundlePath) && !text.includes(url)) return text;
    return text
      .replace(header, (whole, line: string, indent: string, carets: string) => {
        const source = original(Number(line), indent.length + 1);
        if (source?.text === undefined) return whole;
        return `${source.path}:${source.line}\n${source.text}\n${' '.repeat(source.column - 1)}${carets}`;
      })
      .replace(frame, (whole, at: string, name: string | undefined, line: string, column: string, close: string) => {
        const source = original(Number(line), Number(column));
        if (source === undefined || (name !== undefined) !== (close !== '')) return whole;
        return `${at}${name ?? '<anonymous>'} (${source.path}:${source.line}:${source.column})`;
      })
      .replace(position, (whole, line: string, column: string) => {
        const source = original(Number(line), Number(column));
        return source === undefined ? whole : `${source.path}:${source.line}:${source.column}`;
      });
  };
}

function literally(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
