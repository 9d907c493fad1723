// new-case for stage 8, whose command has a case folder for each transport: the session's transport
// picks the folder (a stdio recording the stdio one, a Streamable HTTP recording the http one), the
// case's steps.json holds the recorded client's steps in order (a list once, whatever its pages), and
// the reference's output is blessed. Into a hidden folder, so that the course is not touched.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const into = mkdtempSync(join(tmpdir(), 'new-case-resources-'));
afterAll(() => rmSync(into, { recursive: true, force: true }));

const steps = (folder: string, name: string) =>
  JSON.parse(readFileSync(join(into, 'cases/resources-and-prompts', folder, name, 'steps.json'), 'utf8')) as unknown[];

describe('new-case at resources-and-prompts', () => {
  it('makes a stdio recording a case of the stdio folder, its steps those the client took', async () => {
    const run = await runCli(['new-case', '--stage', 'resources-and-prompts', '--name', 'paged', '--from', 'cassettes/paged-resources.yaml', '--into', into]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(steps('stdio', 'paged')).toEqual([
      { list: 'resources' },
      { list: 'templates' },
      { list: 'prompts' },
      { read: 'paged://bytes/mixed.bin' },
      { read: 'paged://notes/two.md' },
      { read: 'paged://bytes/empty.bin' },
      { read: 'paged://files/docs/a%20b/caf%C3%A9.md' },
      { read: 'paged://search?q=caf%C3%A9%20au%20lait&lang=fr' },
      { prompt: 'translate', arguments: { text: 'A naïve café', to: 'French', words: '10' } },
      { prompt: 'summarize', arguments: { uri: 'paged://notes/one.md' } },
      { prompt: 'greet' },
      { read: 'paged://nothing' },
    ]);
    const expected = JSON.parse(readFileSync(join(into, 'fixtures/resources-and-prompts/stdio/paged/expected.json'), 'utf8'));
    expect(expected.steps[0].result).toHaveLength(5); // every page of resources/list
  });

  it('makes a Streamable HTTP recording a case of the http folder', async () => {
    const run = await runCli(['new-case', '--stage', '8', '--name', 'over-http', '--from', 'cassettes/everything-http-resources.yaml', '--into', into]);
    expect(run.code).toBe(0);
    expect(steps('http', 'over-http')).toContainEqual({ subscribe: 'demo://resource/dynamic/blob/7' });
    expect(existsSync(join(into, 'cases/resources-and-prompts/stdio/over-http'))).toBe(false);
  });

  it('writes nothing for a session whose steps the command cannot take (tools/list), and says why', async () => {
    const run = await runCli(['new-case', '--stage', '8', '--name', 'tools', '--from', 'cassettes/everything-tools.yaml', '--into', into]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('the session ended before your client sent tools/list');
    expect(run.stderr).toContain('nothing written');
    expect(existsSync(join(into, 'cases/resources-and-prompts/stdio/tools'))).toBe(false);
  });
});
