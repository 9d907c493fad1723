// Re-records the recordings of the resources-and-prompts stage (cassettes/everything-resources.yaml,
// paged-resources.yaml, memory-resources.yaml, everything-http-resources.yaml) from their real servers,
// through `theinference record --script` (the official SDK client plays scripts/resources-sessions/<name>.yaml),
// then marks free the blobs that hold a clock time (Base64, which record cannot see into), so that
// verify passes against a server run at another time. Re-recording over a cassette keeps its
// nondeterministic values, so `git diff` shows real changes.
//   node --import tsx scripts/record-resources-cassettes.ts [<name>.yaml ...]
// Then scripts/derive-resources-cases.ts makes the cases from them.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Document, isMap, isSeq, parseDocument, type YAMLMap } from 'yaml';

const ROOT = join(import.meta.dirname, '..');
const EVERYTHING = ['node', 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'];

const RECORDINGS: { file: string; server: string[]; options?: string[]; free?: Record<number, string[]>; provenance?: Record<string, string> }[] = [
  {
    file: 'everything-resources.yaml',
    server: [...EVERYTHING, 'stdio'],
    free: { 5: ['result.contents[0].blob'], 8: ['result.messages[1].content.resource.blob'] },
  },
  {
    file: 'paged-resources.yaml',
    server: ['node', '--import', 'tsx', 'scripts/paged-server.ts'],
    // record names the package of the project it ran in; the server is built on the official SDK
    provenance: {
      package: '@modelcontextprotocol/sdk',
      packageVersion: sdkVersion(),
      note: 'every page of resources/list, resources/templates/list and prompts/list (two items a page), reads of text, a blob of bytes that are not UTF-8, an empty blob, URIs expanded from the templates ({+path}, {?q,lang}), prompts/get with string arguments, and without (text, audio and an image), a read of a resource that does not exist (-32002); the server is scripts/paged-server.ts on the official SDK, driven by the SDK client through theinference record --script',
    },
  },
  {
    file: 'memory-resources.yaml',
    server: ['node', 'node_modules/@modelcontextprotocol/server-memory/dist/index.js'],
    options: ['--env', 'MEMORY_FILE_PATH=<setup>/memory.jsonl'],
  },
  {
    file: 'everything-http-resources.yaml',
    server: [...EVERYTHING, 'streamableHttp'],
    options: ['--http', 'http://127.0.0.1:0/mcp'],
    free: { 4: ['result.contents[0].blob'], 6: ['result.content[1].resource.blob'] },
  },
];

function sdkVersion(): string {
  return (JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')) as { version: string }).version;
}

const named = process.argv.slice(2);
for (const recording of RECORDINGS.filter(({ file }) => named.length === 0 || named.includes(file))) {
  const out = join(ROOT, 'cassettes', recording.file);
  const before = existsSync(out) ? parseDocument(readFileSync(out, 'utf8')) : undefined;
  const script = join(ROOT, 'scripts', 'resources-sessions', recording.file);
  const bin = join(ROOT, 'bin', 'theinference.js');
  const run = spawnSync(
    process.execPath,
    [bin, 'record', '--out', out, '--force', '--script', script, ...(recording.options ?? []), '--', ...recording.server],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`${recording.file}: record failed: ${run.stderr}`);
  // edited as a YAML document, so that everything else stays as record wrote it
  const document = parseDocument(readFileSync(out, 'utf8'));
  for (const [id, paths] of Object.entries(recording.free ?? {})) {
    const frame = response(document, Number(id));
    if (frame === undefined) throw new Error(`${recording.file}: no response ${id} to mark free`);
    const free = frame.get('free');
    // record keeps the free paths of the cassette it re-records: each is added once
    if (isSeq(free)) for (const path of paths.filter((path) => !free.items.some((item) => String(item) === path))) free.add(path);
    else frame.set('free', document.createNode(paths));
    // the value the cassette had, kept where the server's is free: a re-recording's diff shows real changes
    const earlier = before && response(before, Number(id));
    for (const path of paths) {
      const keys = path
        .replace(/\[(\d+)\]/g, '.$1')
        .split('.')
        .map((key) => (/^\d+$/.test(key) ? Number(key) : key));
      const value = earlier?.getIn(['server', ...keys]);
      if (typeof value === 'string') frame.setIn(['server', ...keys], value);
    }
  }
  for (const [key, value] of Object.entries(recording.provenance ?? {})) {
    document.setIn(['provenance', key], value);
  }
  writeFileSync(out, document.toString({ lineWidth: 0 }));
  process.stdout.write(`${recording.file}: ${run.stderr.trim().split('\n').at(-1)}\n`);
}

/** The frame of the server's response to request `id`. */
function response(document: Document, id: number): YAMLMap | undefined {
  const frames = document.get('frames');
  if (!isSeq(frames)) return undefined;
  return frames.items.find(
    (frame): frame is YAMLMap =>
      isMap(frame) && isMap(frame.get('server')) && (frame.get('server') as YAMLMap).get('id') === id && (frame.get('server') as YAMLMap).has('result'),
  );
}
