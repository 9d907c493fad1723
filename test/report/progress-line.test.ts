// A long step says how far it has come on a terminal (bless, run in a pseudo-terminal by script(1)),
// and nothing of it where its output is piped (bless-hidden.test.ts holds bless's stderr empty).
import { execFile, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCourse } from '../../harness/course.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

const hasScript = spawnSync('script', ['--version']).status === 0;

describe.skipIf(!hasScript)('progress on a terminal', () => {
  const dir = courseCopy();
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('bless counts the cases the reference ran, and rubs its line out before its own', async () => {
    trimCourse(dir, [], ['config-and-framing']);
    const cases = loadCourse(dir).stages[0]!.cases.length;
    const bless = `node ${join(REPO, 'bin/theinference.js')} bless --stage 1`;
    const { stdout: terminal } = await promisify(execFile)('script', ['-qfc', bless, '/dev/null'], { cwd: dir, encoding: 'utf8' });
    expect(terminal).toContain(`\r\x1b[K  config-and-framing: checking the reference's properties`);
    expect(terminal).toContain(`\r\x1b[K  config-and-framing: the reference ran ${cases}/${cases} cases\r\x1b[K`);
    expect(terminal).toMatch(new RegExp(`\\r\\x1b\\[Kbless: ${cases} unchanged\\r?\\n$`));
  });
});
