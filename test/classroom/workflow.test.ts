// The teacher's example workflow (.github/workflows/classroom.yml), read as GitHub Actions reads it:
// a matrix of shards of the roster with one seed, a merge of their gradebooks, no credential kept on disk,
// and the teacher's token given only where it is needed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { REPO } from '../helpers/cli.ts';

type Step = { name?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string> };
type Job = { needs?: string; steps: Step[]; strategy?: { matrix: { shard: number[] } } };

const workflow = parseYaml(readFileSync(join(REPO, '.github/workflows/classroom.yml'), 'utf8')) as {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: { grade: Job; merge: Job };
};

describe('the example workflow that grades a class', () => {
  const { grade, merge } = workflow.jobs;
  const shards = grade.strategy!.matrix.shard;

  it('grades one shard of the roster per matrix entry, with one seed for the class, then merges every shard', () => {
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, index) => index + 1));
    const run = grade.steps.map((step) => step.run ?? '').join('\n');
    expect(run).toContain('npx theinference classroom --roster roster.csv --cases hidden');
    expect(run).toContain(`--shard \${{ matrix.shard }}/${shards.length}`);
    // no --seed: classroom makes one from the course and the roster, the same on every shard and every
    // run on this roster (a seed from the run id would grade the same commit differently each week)
    expect(run).not.toContain('--seed');
    expect(run).toContain('--no-network');
    expect(run).toContain('apt-get install -y bubblewrap');
    expect(merge.needs).toBe('grade');
    expect(merge.steps.map((step) => step.run ?? '').join('\n')).toContain('npx theinference merge-reports --gradebook gradebook gradebook-*');
    expect(Object.keys(workflow.on).sort()).toEqual(['schedule', 'workflow_dispatch']);
    expect(workflow.permissions).toEqual({ contents: 'read' });
  });

  it('keeps no credential on disk, and gives the token only to what reads the students and the hidden cases', () => {
    for (const step of [...grade.steps, ...merge.steps].filter((each) => each.uses?.startsWith('actions/checkout'))) {
      expect(step.with?.['persist-credentials'], step.name).toBe(false);
    }
    const holding = [...grade.steps, ...merge.steps].filter((step) => JSON.stringify(step).includes('secrets.CLASSROOM_TOKEN'));
    expect(holding.map((step) => step.name)).toEqual([
      "the hidden cases (never in a student's reach)",
      'grade this shard of the roster (one seed for the whole class)',
    ]);
    // the install runs nothing of a student's, and is given no token
    const install = grade.steps.find((step) => step.run?.startsWith('npm ci'))!;
    expect(install.env).toBeUndefined();
  });
});
