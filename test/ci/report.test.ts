// Reports a machine reads: shards that split the work deterministically and merge back into the
// whole run's report, JUnit that a dashboard parses, and merges that refuse what does not fit.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { inShard, parseShard } from '../../harness/ci/shard.ts';
import { checkResultsReport, type CheckReport, type ResultsReport } from '../../harness/report/model.ts';
import { toJUnit } from '../../harness/report/junit.ts';
import { xmlProblem } from '../helpers/xml.ts';
import { mergeReports, MergeError } from '../../harness/report/merge.ts';
import { courseCopy, REPO, runCli, trimCourse } from '../helpers/cli.ts';
import { checkOf, reportOf } from '../helpers/reports.ts';
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
    // every stage, with a case of each command: what is under test is how the checks are dealt and merged
    const course = courseCopy();
    trimCourse(course);
    const [whole, first, second] = await Promise.all([
      runCi([...ALL, '--submission', broken], { cwd: course }),
      runCi([...ALL, '--submission', broken, '--shard', '1/2'], { cwd: course }),
      runCi([...ALL, '--submission', broken, '--shard', '2/2'], { cwd: course }),
    ]).finally(() => rmSync(course, { recursive: true, force: true }));
    expect(whole.code).toBe(1);
    for (const shard of [first, second]) expect(shard.code).toBe(shard.report!.status === 'fail' ? 1 : 0); // a shard may hold no failure
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

    // a shard missing is an error, not a pass on half the work, and the summary says so
    const half = await runCli(['merge-reports', '--report', join(out, 'half.json'), '--summary', join(out, 'half.md'), files[0]!]);
    expect(half.code).toBe(2);
    expect(half.stdout).toContain('shard 2/2 is missing from the merge');
    expect(readFileSync(join(out, 'half.md'), 'utf8')).toContain('not graded to the end:\n\n- ` shard 2/2 is missing from the merge `\n');

    // reports that cannot be merged: one line, exit 2, and the summary says the same
    writeFileSync(join(out, 'broken.json'), '{"version": 1');
    const refused = await runCli([
      'merge-reports',
      '--report',
      join(out, 'refused.json'),
      '--summary',
      join(out, 'refused.md'),
      files[0]!,
      join(out, 'broken.json'),
    ]);
    expect(refused.code).toBe(2);
    const reason = refused.stderr.match(/^theinference merge-reports: (.*)\n$/)?.[1];
    expect(reason).toContain('broken.json: not JSON');
    expect(readFileSync(join(out, 'refused.md'), 'utf8')).toContain(`- \` ${reason} \``);
  });
});

describe('merge-reports refuses, in one line, exit 2', () => {
  const DIGEST = 'a'.repeat(64);
  const check = (position: number): CheckReport => checkOf({ id: `s/c${position}`, name: `c${position}`, position });
  /** Shard `index` of 2 of a stage of two cases, one case in each shard. */
  const report = (seed: number, index: number): ResultsReport =>
    reportOf({
      seed,
      shard: { index, count: 2 },
      course: { digest: DIGEST },
      limits: { timeoutMs: null, memoryBytes: 1, outputCapBytes: 1, network: 'on' },
      counts: { pass: 1, fail: 0, error: 0, timeout: 0, crash: 0, total: 1 },
      points: { earned: 1, possible: 1 },
      stages: [
        { slug: 's', title: 'S', status: 'pass', points: { earned: 1, possible: 1 }, durationMs: 1, planned: 2, advisories: 0, checks: [check(index - 1)] },
      ],
    });
  /** `report(1, 1)` with the field at `path` (`stages.0.checks.0.status`) set to `value`, or removed when it is undefined. */
  const broken = (path: string, value: unknown): unknown => {
    const copy = JSON.parse(JSON.stringify(report(1, 1))) as Record<string, unknown>;
    const keys = path.split('.');
    const parent = keys.slice(0, -1).reduce<Record<string, unknown>>((at, key) => at[key] as Record<string, unknown>, copy);
    if (value === undefined) delete parent[keys.at(-1)!];
    else parent[keys.at(-1)!] = value;
    return copy;
  };
  const merge =
    (...reports: [string, unknown][]) =>
    () =>
      mergeReports(reports.map(([path, report]) => ({ path, report: report as ResultsReport })));

  it('merges two sound shards into a report that is itself sound', () => {
    const merged = mergeReports([
      { path: 'a', report: report(1, 1) },
      { path: 'b', report: { ...report(1, 2), sandbox: 'none' } },
    ]);
    expect(merged).toMatchObject({ status: 'pass', exitCode: 0, shard: { index: 0, count: 2 }, mergedShards: [1, 2], sandbox: 'none', problems: [] });
    expect(checkResultsReport(merged, '')).toBe(merged);
  });

  it('shards of different seeds, courses or submissions, or the same shard twice', () => {
    expect(merge(['a', report(1, 1)], ['b', report(2, 2)])).toThrow(new MergeError("b: seed 2 differs from a's 1 (every shard must be given the same --seed)"));
    expect(merge(['a', report(1, 1)], ['b', { ...report(1, 2), course: { digest: 'b'.repeat(64) } }])).toThrow(
      new MergeError("b: course digest bbbbbbbbbbbb differs from a's aaaaaaaaaaaa (graded with another course.yaml or other case folders)"),
    );
    expect(merge(['a', report(1, 1)], ['b', { ...report(1, 2), submission: { ...report(1, 2).submission, path: '/other' } }])).toThrow(
      new MergeError("b: submission /other differs from a's /sub (every shard must grade the same submission)"),
    );
    expect(merge(['a', report(1, 1)], ['b', report(1, 1)])).toThrow(new MergeError('b: shard 1/2 is also in a'));
  });

  it('a report that is not as docs/ci.md says, naming the file and the field', () => {
    const cases: [string, unknown, string | undefined][] = [
      ['stages', [], 'stages: expected at least 1 item, got 0'],
      ['submission', undefined, 'submission: missing'],
      ['stages.0.checks.0.status', 'passed', 'stages[0].checks[0].status: expected one of pass, fail, error, timeout, crash, got "passed"'],
      ['stages.0.checks.0.infra', 'no', 'stages[0].checks[0].infra: expected true or false, got "no"'],
      ['stages.0.checks.0.position', 1.5, 'stages[0].checks[0].position: expected a whole number from 0 to 9007199254740991, got 1.5'],
      [
        'stages.0.checks.0.details',
        { text: 'x'.repeat(5000), size: 5000, truncated: false },
        'stages[0].checks[0].details.text: 5000 characters, more than the 4096 a report keeps',
      ],
      ['stages.0.checks.0.status', 'fail', undefined], // sound: merge recomputes the statuses above a check
      ['exitCode', '0', 'exitCode: expected one of 0, 1, 2, 130, 143, got "0"'],
      ['exitCode', 1, 'exitCode: a pass run does not exit 1 (expected 0)'],
      ['seed', -1, 'seed: expected a whole number from 0 to 4294967295, got -1'],
      ['seed', 2 ** 32, 'seed: expected a whole number from 0 to 4294967295, got 4294967296'],
      ['course', { digest: 'abc' }, 'course.digest: expected a sha256 digest (64 hex digits)'],
      ['course', undefined, 'course: missing'],
      ['sandbox', 'docker', 'sandbox: expected one of bwrap, none, got "docker"'],
      ['shard', { index: 3, count: 2 }, 'shard.index: shard 3 of 2 does not exist'],
      ['shard', { index: 0, count: 2 }, 'shard.index: shard 0 stands for a merge, and mergedShards is null'],
      ['limits.network', true, 'limits.network: expected one of on, off, got true'],
      ['counts', null, 'counts: expected an object, got null'],
      ['stages.0.checks', {}, 'stages[0].checks: expected an array, got an object'],
      ['startedAt', 'yesterday', 'startedAt: expected a date and time, got "yesterday"'],
      ['verdict', 'pass', 'verdict: a field a version 1 report does not have'],
      ['feedback', true, undefined], // a student's own workflow's report; left out of every other
      ['feedback', 'yes', 'feedback: expected true or false, got "yes"'],
      ['submission.changedOutsideSrc', [{ path: 'program.ts', change: 'missing' }], undefined], // a feedback report's
      [
        'submission.changedOutsideSrc',
        [{ path: 'program.ts', change: 'gone' }],
        'submission.changedOutsideSrc[0].change: expected one of modified, added, missing, got "gone"',
      ],
    ];
    for (const [path, value, problem] of cases) {
      const run = merge(['r.json', broken(path, value)], ['b', report(1, 2)]);
      if (problem === undefined) expect(run, path).not.toThrow();
      else expect(run, path).toThrow(new MergeError(`r.json: ${problem}`));
    }
    expect(merge(['r.json', broken('stages.0.checks.0.infra', true)])).toThrow(
      new MergeError('r.json: stages[0].checks[0].status: a check the grader failed (infra) is an error, not pass'),
    );
  });

  it('an interrupted shard makes the merged run interrupted, exit 2, never a pass', () => {
    const second = report(1, 2);
    const stopped: ResultsReport = {
      ...second,
      status: 'interrupted',
      exitCode: 143,
      counts: { ...second.counts, pass: 0, total: 0 },
      stages: [{ ...second.stages[0]!, status: 'skipped', checks: [] }],
    };
    const merged = mergeReports([
      { path: 'a', report: report(1, 1) },
      { path: 'b', report: stopped },
    ]);
    expect(merged).toMatchObject({ status: 'interrupted', exitCode: 2, problems: ['b was interrupted before it finished (exit code 143)'] });
    expect(checkResultsReport(merged, '')).toBe(merged);
    expect(mergeReports([{ path: 'm', report: merged }])).toMatchObject({ status: 'interrupted', exitCode: 2 });
  });

  it('a file that is not a report', async () => {
    const dir = folder({
      'bad.json': '{"version": 9, "stages": []}',
      'text.json': 'nope',
      'empty.json': JSON.stringify({ ...report(1, 1), stages: [] }),
      'array.json': '[1]',
    });
    let run = await runCli(['merge-reports', '--report', join(dir, 'm.json'), join(dir, 'bad.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`theinference merge-reports: ${join(dir, 'bad.json')}: report version 9 is not supported (expected 2)\n`);
    run = await runCli(['merge-reports', '--report', join(dir, 'm.json'), join(dir, 'empty.json')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`theinference merge-reports: ${join(dir, 'empty.json')}: stages: expected at least 1 item, got 0\n`);
    run = await runCli(['merge-reports', '--report', join(dir, 'm.json'), join(dir, 'array.json')]);
    expect(run.stderr).toBe(`theinference merge-reports: ${join(dir, 'array.json')}: not a theinference results report\n`);
    run = await runCli(['merge-reports', '--report', join(dir, 'm.json'), join(dir, 'text.json')]);
    expect(run.stderr).toMatch(/^theinference merge-reports: .*text\.json: not JSON/);
    run = await runCli(['merge-reports', join(dir, 'text.json')], { cwd: REPO });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('merge-reports needs --report <file>');
  });
});

describe('JUnit', () => {
  it('escapes what XML cannot hold, shows control characters escaped, and maps statuses to failure and error', () => {
    const base = { origin: 'public', infra: false, output: null, stderr: null, durationMs: 5, seed: null, cassette: null, position: 0 } as const;
    const xml = toJUnit({
      durationMs: 10,
      counts: { pass: 1, fail: 1, error: 0, timeout: 1, crash: 0, total: 3 },
      stages: [
        {
          slug: 's<1>',
          title: '',
          status: 'fail',
          points: { earned: 0, possible: 2 },
          durationMs: 10,
          planned: 3,
          checks: [
            { ...base, id: 'a', name: 'ok', status: 'pass', message: 'passed', details: null },
            {
              ...base,
              id: 'b',
              name: 'b "q" & <x>',
              status: 'fail',
              message: 'differs\u0000 😀 \ud800 \uffff',
              details: { text: 'line\u001b[31m red\u001b[39m\u0007\u001b]0;t\r\n\u0085\u202e ]]> "\t', size: 1, truncated: false },
            },
            { ...base, id: 'c', name: 'c', status: 'timeout', message: 'timed out', details: null },
          ],
        },
      ],
    } as unknown as ResultsReport);
    expect(xml).toContain(
      '<testsuite name="s&lt;1&gt;" tests="3" failures="1" errors="1" time="0.010">\n    <properties>\n      <property name="points" value="0"/>\n      <property name="points possible" value="2"/>\n    </properties>\n',
    );
    expect(xml).toContain('<testcase classname="s&lt;1&gt;" name="b &quot;q&quot; &amp; &lt;x&gt;" time="0.005">');
    expect(xml).toContain(
      '<failure type="fail" message="differs\\x00 😀 \\ud800 \\uffff">line\\x1b[31m red\\x1b[39m\\x07\\x1b]0;t\\r\n\\x85\\u202e ]]&gt; "\t</failure>',
    );
    expect(xml).toContain('<error type="timeout" message="timed out"></error>');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Surrogate}/u);
    expect(xmlProblem(xml)).toBeUndefined();
  });

  it('is checked by a strict reading that refuses what is not well-formed XML', () => {
    for (const [xml, problem] of [
      ['<a>\u0001</a>', 'a character XML 1.0 does not allow, U+0001'],
      ['<a>&#1;</a>', 'a reference to a character XML 1.0 does not allow, &#1;'],
      ['<a>&nbsp;</a>', 'a reference XML does not define, &nbsp;'],
      ['<a b="<"/>', 'a malformed attribute'],
      ['<a b="1" b="2"/>', 'b given twice'],
      ['<a><b></a></b>', '</a> closes no open element'],
      ['<a>]]></a>', ']]> in text'],
      ['<a/><b/>', 'a second root element'],
      ['<a>', '<a> is never closed'],
    ] as const) {
      expect(xmlProblem(xml), xml).toContain(problem);
    }
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
    expect(grade).toContain('--no-network');
    expect(grade).toContain('apt-get install -y bubblewrap'); // the sandbox, required with --submission
    expect(workflow.jobs.merge.needs).toBe('grade');
    expect(workflow.jobs.merge.steps.map((step) => step.run ?? '').join('\n')).toContain(
      'theinference merge-reports --report results.json --junit junit.xml results-*.json',
    );
  });
});
