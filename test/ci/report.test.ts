// Reports a machine reads: shards that split the work deterministically and merge back into the
// whole run's report, JUnit that a dashboard parses, and merges that refuse what does not fit.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { inShard, parseShard } from '../../harness/ci/shard.ts';
import type { ResultsReport } from '../../harness/report/json.ts';
import { toJUnit } from '../../harness/report/junit.ts';
import { mergeReports, MergeError } from '../../harness/report/merge.ts';
import { REPO, runCli } from '../helpers/cli.ts';
import { checks, cleanUp, folder, runCi, submission } from './helpers.ts';

afterAll(cleanUp);

const ALL = ['test', '--all', '--seed', '5', '--runs', '5', '--random', '1'];

describe('shards', () => {
  it('deal every unit to exactly one shard', () => {
    for (const count of [1, 2, 3, 7]) {
      for (let position = 0; position < 50; position++) {
        const owners = Array.from({ length: count }, (_, index) => index + 1).filter((index) => inShard(position, { index, count }));
        expect(owners).toHaveLength(1);
      }
    }
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['0/2', '3/2', '1/0', '1', 'a/b', '1/2/3']) expect(parseShard(bad)).toBeUndefined();
  });

  it('graded apart and merged, give the whole run: same checks, same verdicts, course order', async () => {
    const broken = submission('', [["return JSON.stringify(msg) + '\\n';", "return JSON.stringify(msg) + '\\r\\n';"]]);
    const [whole, first, second] = await Promise.all([
      runCi([...ALL, '--submission', broken]),
      runCi([...ALL, '--submission', broken, '--shard', '1/2']),
      runCi([...ALL, '--submission', broken, '--shard', '2/2']),
    ]);
    expect([whole.code, first.code, second.code]).toEqual([1, 1, 1]);
    const ids = (report: ResultsReport | undefined) => checks(report).map((check) => check.id);
    expect(ids(first.report).filter((id) => ids(second.report).includes(id))).toEqual([]);

    const out = folder({});
    const files = [first, second].map((run, index) => {
      const path = join(out, `shard-${index + 1}.json`);
      writeFileSync(path, JSON.stringify(run.report));
      return path;
    });
    const merge = await runCli(['merge-reports', '--report', join(out, 'merged.json'), '--junit', join(out, 'merged.xml'), ...files]);
    expect(merge.stderr).toBe('');
    expect(merge.code).toBe(1);
    expect(merge.stdout).toMatch(/^merged 2 reports \(2 shards\): fail, \d+ of \d+ checks pass\n$/);
    const merged = JSON.parse(readFileSync(join(out, 'merged.json'), 'utf8')) as ResultsReport;
    expect(merged).toMatchObject({ status: 'fail', exitCode: 1, mergedShards: [1, 2], problems: [] });
    expect(ids(merged)).toEqual(ids(whole.report));
    expect(checks(merged).map((check) => check.status)).toEqual(checks(whole.report).map((check) => check.status));
    expect(merged.counts).toEqual(whole.report!.counts);
    const junit = readFileSync(join(out, 'merged.xml'), 'utf8');
    expect(junit).toContain(`<testsuites name="theinference" tests="${merged.counts.total}" failures="${merged.counts.fail}"`);

    // a shard missing is an error, not a pass on half the work
    const half = await runCli(['merge-reports', '--report', join(out, 'half.json'), files[0]!]);
    expect(half.code).toBe(2);
    expect(half.stdout).toContain('shard 2/2 is missing from the merge');
  });
});

describe('merge-reports refuses, in one line, exit 2', () => {
  const report = (seed: number, index: number): ResultsReport =>
    ({
      version: 1, status: 'pass', exitCode: 0, seed, shard: { index, count: 2 }, mergedShards: null, startedAt: '', durationMs: 0,
      grader: { name: 'theinference', version: '0' },
      submission: { path: '', changedOutsideSrc: [], changesCut: false, linksIgnored: [], missing: [] },
      limits: { timeoutMs: null, memoryBytes: 1, outputCapBytes: 1, network: 'on' }, hiddenCases: 0, generatedCases: 0,
      counts: { pass: 0, fail: 0, error: 0, timeout: 0, crash: 0, total: 0 }, problems: [], stages: [],
    }) as ResultsReport;

  it('shards of different seeds, or the same shard twice', () => {
    expect(() => mergeReports([{ path: 'a', report: report(1, 1) }, { path: 'b', report: report(2, 2) }])).toThrow(/^b: seed 2 differs from a's 1/);
    expect(() => mergeReports([{ path: 'a', report: report(1, 1) }, { path: 'b', report: report(1, 1) }])).toThrow(new MergeError('b: shard 1/2 is also in a'));
  });

  it('a file that is not a report', async () => {
    const dir = folder({ 'bad.json': '{"version": 9, "stages": []}', 'text.json': 'nope' });
    let run = await runCli(['merge-reports', '--report', join(dir, 'm.json'), join(dir, 'bad.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`theinference: ${join(dir, 'bad.json')}: report version 9 is not supported (expected 1)\n`);
    run = await runCli(['merge-reports', '--report', join(dir, 'm.json'), join(dir, 'text.json')]);
    expect(run.stderr).toMatch(/^theinference: .*text\.json: not JSON/);
    run = await runCli(['merge-reports', join(dir, 'text.json')], { cwd: REPO });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('merge-reports needs --report <file>');
  });
});

describe('JUnit', () => {
  it('escapes what XML cannot hold and maps statuses to failure and error', () => {
    const base = { origin: 'public', infra: false, output: null, stderr: null, durationMs: 5, seed: null, cassette: null, position: 0 } as const;
    const xml = toJUnit({
      durationMs: 10,
      counts: { pass: 1, fail: 1, error: 0, timeout: 1, crash: 0, total: 3 },
      stages: [
        {
          slug: 's<1>', title: '', status: 'fail', durationMs: 10, planned: 3,
          checks: [
            { ...base, id: 'a', name: 'ok', status: 'pass', message: 'passed', details: null },
            { ...base, id: 'b', name: 'b "q" & <x>', status: 'fail', message: 'differs\u0000 😀', details: { text: 'line\u001b[31m red\u001b[39m\u0007', size: 1, truncated: false } },
            { ...base, id: 'c', name: 'c', status: 'timeout', message: 'timed out', details: null },
          ],
        },
      ],
    } as unknown as ResultsReport);
    expect(xml).toContain('<testsuite name="s&lt;1&gt;" tests="3" failures="1" errors="1" time="0.010">');
    expect(xml).toContain('<testcase classname="s&lt;1&gt;" name="b &quot;q&quot; &amp; &lt;x&gt;" time="0.005">');
    expect(xml).toContain('<failure type="fail" message="differs\\u0000 😀">line red\\u0007</failure>');
    expect(xml).toContain('<error type="timeout" message="timed out"></error>');
    expect(xml).not.toMatch(/[\u0000-\u0008\u001b]/);
  });
});

describe('the example GitHub Actions workflow', () => {
  it('grades one shard per matrix entry with one seed for all, and merges every shard', () => {
    type Step = { run?: string; uses?: string; with?: Record<string, unknown> };
    const workflow = parseYaml(readFileSync(join(REPO, '.github/workflows/grade.yml'), 'utf8')) as {
      jobs: { grade: { strategy: { matrix: { shard: number[] } }; steps: Step[] }; merge: { needs: string; steps: Step[] } };
    };
    const shards = workflow.jobs.grade.strategy.matrix.shard;
    expect(shards).toEqual(Array.from({ length: shards.length }, (_, index) => index + 1));
    const grade = workflow.jobs.grade.steps.map((step) => step.run ?? '').join('\n');
    expect(grade).toContain(`--shard \${{ matrix.shard }}/${shards.length}`);
    expect(grade).toContain('--all');
    expect(grade).toMatch(/seed=\$\(\( \$\{\{ github\.run_id \}\} % \d+ \)\)/); // the same in every shard of a run
    expect(grade).toContain('sudo unshare --net');
    expect(workflow.jobs.merge.needs).toBe('grade');
    expect(workflow.jobs.merge.steps.map((step) => step.run ?? '').join('\n')).toContain('theinference merge-reports --report results.json --junit junit.xml results-*.json');
  });
});
