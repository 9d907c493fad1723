// The committed cassettes are sound and current: they load and lint clean, the installed servers
// show no drift against them, and the SDK client replays the handshake variants.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../harness/cassette/format.ts';
import { lintCassette } from '../../harness/cassette/lint.ts';
import { verifyCassette } from '../../harness/cassette/verify.ts';
import { cassetteCommand, EVERYTHING, MEMORY, ROOT, runSession } from './sdk-session.ts';

const scratch = mkdtempSync(join(tmpdir(), 'verify-memory-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const folder = join(ROOT, 'cassettes');
const files = readdirSync(folder).filter((file) => file.endsWith('.yaml'));

describe('committed cassettes', () => {
  it('are there, load, lint clean and say where they come from without machine paths', () => {
    expect(files).toEqual(expect.arrayContaining(['everything-handshake.yaml', 'everything-tools.yaml', 'memory-tools.yaml']));
    for (const file of files) {
      const cassette = loadCassette(join(folder, file));
      expect(lintCassette(cassette), file).toEqual([]);
      expect(cassette.provenance.package, file).toMatch(/^@modelcontextprotocol\/server-/);
      expect(cassette.provenance.command.join(' '), file).not.toMatch(/^\/|\s\//);
    }
  });

  it.each(files)('%s shows no drift against the installed server', async (file) => {
    const cassette = loadCassette(join(folder, file));
    const server = cassette.provenance.package === '@modelcontextprotocol/server-memory' ? MEMORY : EVERYTHING;
    const drift = await verifyCassette(cassette, server, {
      cwd: ROOT,
      env: { ...process.env, MEMORY_FILE_PATH: join(mkdtempSync(join(scratch, 'memory-')), 'memory.jsonl') },
    });
    expect(drift).toEqual([]);
  });

  it('the handshake with a notification before the initialize result is one the SDK client completes', async () => {
    const session = await runSession(cassetteCommand('replay', join(folder, 'everything-handshake-notice-first.yaml')), [(client) => client.ping()]);
    expect(session.results).toEqual([{}]);
    expect((session.server as { version: { name: string } }).version.name).toBe('mcp-servers/everything');
  });
});
