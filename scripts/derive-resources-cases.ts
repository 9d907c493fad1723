// Derives the resources-and-prompts cases (stage 8) from the recordings in cassettes/: each case's
// steps.json (what program.ts's resources command does, in the recording's order) and its cassette,
// the recording with the client's capabilities free (a student's client declares its own). No edit:
// a step the client must refuse sends nothing, so the recordings are the cases' cassettes as they are.
// Run: node --import tsx scripts/derive-resources-cases.ts (scripts/record-resources-cassettes.ts
// re-records the recordings), then `npx theinference bless --stage resources-and-prompts`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette, saveCassette, type Cassette } from '../harness/cassette/index.ts';
import type { StepsInput } from '../harness/stages/resources-and-prompts/contract.ts';

const root = join(import.meta.dirname, '..');
const recorded = (name: string) => loadCassette(join(root, 'cassettes', `${name}.yaml`));

/** A client's initialize may differ in what the protocol leaves to it: its name and its capabilities. */
const FREE = ['params.clientInfo', 'params.capabilities'];

function asCase(source: Cassette, sourceName: string, note: string, frames = source.frames): Cassette {
  return {
    ...source,
    provenance: { ...source.provenance, note: `from cassettes/${sourceName}.yaml: ${note}` },
    free: [...new Set([...(source.free ?? []), ...FREE])],
    frames: structuredClone(frames),
  };
}

interface CaseSpec {
  folder: string;
  about: string;
  cassette: Cassette;
  steps: StepsInput;
}

const everything = 'demo://resource';
const cases: Record<string, CaseSpec> = {
  'everything-server': {
    folder: 'resources-and-prompts/stdio',
    about:
      'The everything server over stdio: every list (resources, templates, prompts), a static document, a Base64 blob and a text read through their templates, prompts with arguments (one given as a number, sent as a string), a tool whose result holds resource_link items and one with an image, a subscription whose notifications/resources/updated is handed on, the prompts listed again (kept: nothing changed), and the resources listed again after notifications/resources/list_changed (a session resource made by a tool), then read (a gzip blob).',
    cassette: asCase(recorded('everything-resources'), 'everything-resources', 'the recording as it is'),
    steps: [
      { list: 'resources' },
      { list: 'templates' },
      { list: 'prompts' },
      { read: `${everything}/static/document/startup.md` },
      { read: { template: `${everything}/dynamic/blob/{resourceId}`, values: { resourceId: '3' } } },
      { read: { template: `${everything}/dynamic/text/{resourceId}`, values: { resourceId: '2' } } },
      { prompt: 'args-prompt', arguments: { city: 'São Paulo', state: 'SP' } },
      { prompt: 'resource-prompt', arguments: { resourceType: 'Blob', resourceId: 2 } },
      { call: 'get-resource-links', arguments: { count: 2 } },
      { call: 'get-tiny-image', arguments: {} },
      { subscribe: `${everything}/dynamic/text/1` },
      { call: 'toggle-subscriber-updates', arguments: {} },
      { call: 'toggle-subscriber-updates', arguments: {} },
      { unsubscribe: `${everything}/dynamic/text/1` },
      { list: 'prompts' },
      { call: 'gzip-file-as-resource', arguments: { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8sIHdvcmxkCg==', outputType: 'resourceLink' } },
      { list: 'resources' },
      { read: `${everything}/session/hello.txt.gz` },
    ],
  },
  'paged-server': {
    folder: 'resources-and-prompts/stdio',
    about:
      'A server on the official SDK whose lists come two items a page (nextCursor followed to the end), a blob of bytes that are not UTF-8 and an empty one, URIs expanded from templates of RFC 6570 levels 2 and 3 ({+path}, {?q,lang}) with spaces and non-ASCII characters, a prompt whose arguments include a number (sent as a string) and whose messages hold an embedded resource and an assistant message, a resource_link in a prompt, a prompt without arguments whose messages hold audio and an image, a read the server answers with -32002, and a subscription refused without sending anything (the server did not declare resources.subscribe).',
    cassette: asCase(recorded('paged-resources'), 'paged-resources', 'the recording as it is'),
    steps: [
      { list: 'resources' },
      { list: 'templates' },
      { list: 'prompts' },
      { read: 'paged://bytes/mixed.bin' },
      { read: 'paged://notes/two.md' },
      { read: 'paged://bytes/empty.bin' },
      { read: { template: 'paged://files/{+path}', values: { path: 'docs/a b/café.md' } } },
      { read: { template: 'paged://search{?q,lang}', values: { q: 'café au lait', lang: 'fr' } } },
      { prompt: 'translate', arguments: { text: 'A naïve café', to: 'French', words: 10 } },
      { prompt: 'summarize', arguments: { uri: 'paged://notes/one.md' } },
      { prompt: 'greet' },
      { read: 'paged://nothing' },
      { subscribe: 'paged://notes/one.md' },
    ],
  },
};

cases['memory-server'] = {
  folder: 'resources-and-prompts/stdio',
  about:
    'The memory server: one resource (its knowledge graph, JSON text), no templates, a subscription whose notifications/resources/updated comes during a tool call that changes the graph, the graph read again; it declares no prompts, so listing prompts and getting one are refused without a message sent ("Only use capabilities that were successfully negotiated").',
  cassette: asCase(recorded('memory-resources'), 'memory-resources', 'the recording as it is'),
  steps: [
    { list: 'resources' },
    { list: 'prompts' },
    { list: 'templates' },
    { read: 'memory://knowledge-graph' },
    { prompt: 'summarize', arguments: { topic: 'Ada' } },
    { subscribe: 'memory://knowledge-graph' },
    { call: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] } },
    { read: 'memory://knowledge-graph' },
    { unsubscribe: 'memory://knowledge-graph' },
  ],
};

cases['everything-http'] = {
  folder: 'resources-and-prompts/http',
  about:
    'The everything server over Streamable HTTP: the lists, a blob read through a template, a prompt with an embedded text resource, a tool whose result embeds a blob resource, and a subscription whose notifications/resources/updated comes on the GET stream while a tool call is answered.',
  cassette: asCase(recorded('everything-http-resources'), 'everything-http-resources', 'the recording as it is'),
  steps: [
    { list: 'resources' },
    { list: 'templates' },
    { list: 'prompts' },
    { read: { template: `${everything}/dynamic/blob/{resourceId}`, values: { resourceId: '7' } } },
    { prompt: 'resource-prompt', arguments: { resourceType: 'Text', resourceId: '5' } },
    { call: 'get-resource-reference', arguments: { resourceType: 'Blob', resourceId: 4 } },
    { subscribe: `${everything}/dynamic/blob/7` },
    { call: 'toggle-subscriber-updates', arguments: {} },
    { call: 'toggle-subscriber-updates', arguments: {} },
  ],
};

for (const [name, spec] of Object.entries(cases)) {
  const caseDir = join(root, 'cases', spec.folder, name);
  const fixtureDir = join(root, 'fixtures', spec.folder, name);
  mkdirSync(caseDir, { recursive: true });
  mkdirSync(fixtureDir, { recursive: true });
  writeFileSync(join(caseDir, 'case.md'), `${spec.about}\n`);
  writeFileSync(join(caseDir, 'steps.json'), `${JSON.stringify(spec.steps, null, 2)}\n`);
  saveCassette(spec.cassette, join(fixtureDir, 'cassette.yaml'), { overwrite: true });
  console.log(`cases/${spec.folder}/${name}`);
}
