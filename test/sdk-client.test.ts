// Proof that the handshake, tools, streamable-http, translate and stateless cases don't over-constrain: a second, independent correct
// client (the official SDK's Client behind test/sdk-client/src/mcp.ts) passes every one of them.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCourse } from '../harness/course.ts';
import { gradeStage } from '../harness/grade/stage.ts';
import { programEnv } from '../harness/run/env.ts';
import { launcher } from '../harness/run/launcher.ts';
import { courseCopy, REPO } from './helpers/cli.ts';

const dir = courseCopy();
rmSync(join(dir, 'src'), { recursive: true });
cpSync(join(REPO, 'test/sdk-client/src'), join(dir, 'src'), { recursive: true });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the official SDK client, behind the course API', () => {
  for (const slug of ['handshake', 'tools', 'streamable-http', 'translate', 'stateless']) {
    it(`passes every case of the ${slug} stage`, async () => {
      const stage = loadCourse(dir).stages.find((candidate) => candidate.slug === slug)!;
      const result = await gradeStage(stage, {
        runRoot: dir,
        launcher: await launcher(dir, { bundle: true }),
        env: programEnv(),
        seed: 1,
        propertyRuns: 1,
      });
      expect(result.verdicts.filter((verdict) => verdict.status !== 'pass')).toEqual([]);
      expect(result.verdicts).toHaveLength(stage.cases.length);
    });
  }
});
