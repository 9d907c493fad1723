// Re-records the committed cassettes in cassettes/ from the real servers, through `record`, driven
// by the official SDK client: `node --import tsx test/cassette/record-committed.ts`.
// Re-recording over an existing cassette keeps its nondeterministic values, so `git diff` shows real changes.
import { join } from 'node:path';
import { cassetteCommand, EVERYTHING, EVERYTHING_EXTRA_STEPS, EVERYTHING_STEPS, MEMORY, MEMORY_STEPS, ROOT, runSession, type Step } from './sdk-session.ts';

const sessions: { file: string; server: string[]; steps: Step[]; roots?: boolean; record?: string[] }[] = [
  { file: 'everything-handshake.yaml', server: EVERYTHING, steps: [(client) => client.ping()] },
  { file: 'everything-tools.yaml', server: EVERYTHING, steps: EVERYTHING_STEPS },
  { file: 'everything-server-requests.yaml', server: EVERYTHING, steps: EVERYTHING_EXTRA_STEPS, roots: true },
  // a fresh memory file each time, and the cassette says so: verify starts the server the same way
  { file: 'memory-tools.yaml', server: MEMORY, steps: MEMORY_STEPS, record: ['--env', 'MEMORY_FILE_PATH=<setup>/memory.jsonl'] },
];

for (const session of sessions) {
  const out = join(ROOT, 'cassettes', session.file);
  const result = await runSession(cassetteCommand('record', '--out', out, '--force', ...(session.record ?? []), '--', ...session.server), session.steps, {
    roots: session.roots,
  });
  process.stdout.write(`${session.file}: ${result.stderr.trim().split('\n').at(-1)}\n`);
}

// The handshake stage needs a notification before the initialize result. The everything server
// sends notifications/tools/list_changed just after the handshake; this variant moves it before
// the result, as servers that announce themselves early do, and says so in its provenance.
{
  const { loadCassette } = await import('../../harness/cassette/format/format.ts');
  const { saveCassette } = await import('../../harness/cassette/format/save.ts');
  const cassette = loadCassette(join(ROOT, 'cassettes', 'everything-handshake.yaml'));
  const frames = cassette.frames.map(({ line: _line, ...frame }) => frame);
  const notice = frames.findIndex((frame) => frame.from === 'server' && frame.message.method === 'notifications/tools/list_changed');
  const result = frames.findIndex((frame) => frame.from === 'server' && frame.message.id === 0);
  const [moved] = frames.splice(notice, 1);
  frames.splice(result, 0, moved!);
  delete cassette.file;
  cassette.frames = frames;
  cassette.provenance.note =
    'derived from everything-handshake.yaml by test/cassette/record-committed.ts: notifications/tools/list_changed moved before the initialize result';
  saveCassette(cassette, join(ROOT, 'cassettes', 'everything-handshake-notice-first.yaml'), { overwrite: true });
  process.stdout.write('everything-handshake-notice-first.yaml: derived\n');
}
