// A small MCP server over stdio whose lists come in pages of two (resources, resource templates and
// prompts, each page's nextCursor an opaque token), written with the official TypeScript SDK
// (`@modelcontextprotocol/sdk` 1.x, its low-level Server): the real servers of npm list everything on
// one page, so cassettes/paged-resources.yaml, the resources-and-prompts stage's paginated case, was
// recorded from this one.
//
//   node --import tsx scripts/paged-server.ts
//
// It declares resources (no subscribe, no listChanged) and prompts; its resources are text or
// binary (a blob of bytes that are not UTF-8), its templates of RFC 6570 levels 1 to 3 ({name},
// {+path}, {?q,lang}), its prompt `translate` takes string arguments and answers with text and an
// embedded resource, and `greet` (no arguments) with text, audio and an image.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

const PAGE = 2;

const BINARY = Buffer.from([0x00, 0xff, 0xfe, 0x80, 0x7f, 0x0a, 0xc3, 0x28, 0xf0, 0x9f, 0x98, 0x80]);

/** A WAV file of 8 silent samples (8 kHz, 8-bit mono): audio content's bytes. */
const WAV = (() => {
  const samples = Buffer.alloc(8, 0x80);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(8000, 28);
  header.writeUInt16LE(1, 32);
  header.writeUInt16LE(8, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples.length, 40);
  return Buffer.concat([header, samples]);
})();

/** A 1x1 PNG, one transparent pixel: image content's bytes. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABpfZFQAAAAABJRU5ErkJggg==', 'base64');

const RESOURCES = [
  { uri: 'paged://notes/one.md', name: 'one.md', mimeType: 'text/markdown', text: '# One\n\nThe first note.\n' },
  { uri: 'paged://notes/two.md', name: 'two.md', mimeType: 'text/markdown', text: '# Two\n\nCafé, naïve, 日本語.\n' },
  { uri: 'paged://bytes/mixed.bin', name: 'mixed.bin', mimeType: 'application/octet-stream', blob: BINARY.toString('base64') },
  { uri: 'paged://notes/three.md', name: 'three.md', mimeType: 'text/markdown', text: '# Three\n' },
  { uri: 'paged://bytes/empty.bin', name: 'empty.bin', mimeType: 'application/octet-stream', blob: '' },
];

const TEMPLATES = [
  { uriTemplate: 'paged://files/{+path}', name: 'file', description: 'A file by its path (slashes kept)' },
  { uriTemplate: 'paged://search{?q,lang}', name: 'search', description: 'Search the notes' },
  { uriTemplate: 'paged://notes/{name}', name: 'note', description: 'A note by its name' },
];

const PROMPTS = [
  { name: 'summarize', description: 'Summarize a note', arguments: [{ name: 'uri', required: true }] },
  { name: 'translate', description: 'Translate a text', arguments: [{ name: 'text', required: true }, { name: 'to', required: true }, { name: 'words' }] },
  { name: 'greet', description: 'A greeting' },
];

/** The page a cursor names: the cursor is the index of the page's first item, in base64url. */
function page<T>(items: T[], cursor: string | undefined): { items: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
  if (!Number.isInteger(start) || start < 0 || start >= items.length) throw new McpError(-32602, `Invalid cursor: ${cursor}`);
  const end = start + PAGE;
  return { items: items.slice(start, end), ...(end < items.length && { nextCursor: Buffer.from(String(end)).toString('base64url') }) };
}

const server = new Server({ name: 'paged-server', version: '1.0.0' }, { capabilities: { resources: {}, prompts: {} } });

server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
  const { items, nextCursor } = page(RESOURCES, request.params?.cursor);
  return { resources: items.map(({ uri, name, mimeType }) => ({ uri, name, mimeType })), ...(nextCursor && { nextCursor }) };
});

server.setRequestHandler(ListResourceTemplatesRequestSchema, async (request) => {
  const { items, nextCursor } = page(TEMPLATES, request.params?.cursor);
  return { resourceTemplates: items, ...(nextCursor && { nextCursor }) };
});

server.setRequestHandler(ListPromptsRequestSchema, async (request) => {
  const { items, nextCursor } = page(PROMPTS, request.params?.cursor);
  return { prompts: items, ...(nextCursor && { nextCursor }) };
});

server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
  const { uri } = request.params;
  const found = RESOURCES.find((resource) => resource.uri === uri);
  if (found) {
    const { name: _name, ...contents } = found;
    return { contents: [contents] };
  }
  const file = /^paged:\/\/files\/(.+)$/.exec(uri);
  if (file) return { contents: [{ uri, mimeType: 'text/plain', text: `the file at ${decodeURIComponent(file[1]!)}` }] };
  const search = /^paged:\/\/search\?(.*)$/.exec(uri);
  if (search) {
    const query = new URLSearchParams(search[1]);
    return { contents: [{ uri, mimeType: 'text/plain', text: `searched for ${JSON.stringify(query.get('q'))} in ${query.get('lang') ?? 'any language'}` }] };
  }
  throw new McpError(-32002, `Resource not found: ${uri}`, { uri });
});

server.setRequestHandler(GetPromptRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  for (const [key, value] of Object.entries(args)) {
    if (typeof value !== 'string') throw new McpError(-32602, `Invalid arguments: ${key} is not a string`);
  }
  if (name === 'translate') {
    if (args.text === undefined || args.to === undefined) throw new McpError(-32602, 'Missing required arguments: text, to');
    return {
      description: `Translate into ${args.to}`,
      messages: [
        { role: 'user', content: { type: 'text', text: `Translate into ${args.to}${args.words ? ` in at most ${args.words} words` : ''}:` } },
        { role: 'user', content: { type: 'resource', resource: { uri: 'paged://text', mimeType: 'text/plain', text: args.text } } },
        { role: 'assistant', content: { type: 'text', text: 'Here is the translation:' } },
      ],
    };
  }
  if (name === 'greet')
    return {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Hello! Say it back:' } },
        { role: 'user', content: { type: 'audio', data: WAV.toString('base64'), mimeType: 'audio/wav' } },
        { role: 'assistant', content: { type: 'image', data: PNG.toString('base64'), mimeType: 'image/png' } },
      ],
    };
  if (name === 'summarize') return { messages: [{ role: 'user', content: { type: 'resource_link', uri: args.uri ?? '', name: 'the note' } }] };
  throw new McpError(-32602, `Unknown prompt: ${name}`);
});

await server.connect(new StdioServerTransport());
