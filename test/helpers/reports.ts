// Reports made by hand, for the tests of what reads them (the summary, JUnit, merge-reports): every
// field version 2 has, plain, with what a test is about given over them.
import type { CheckReport, ResultsReport } from '../../harness/report/model.ts';

/** A check that passed, with `given` over it. */
export function checkOf(given: Partial<CheckReport> & Pick<CheckReport, 'id' | 'name'>): CheckReport {
  return {
    origin: 'public',
    status: 'pass',
    infra: false,
    message: 'passed',
    details: null,
    hints: [],
    difference: null,
    sessions: [],
    advice: [],
    output: null,
    stderr: null,
    durationMs: 1,
    seed: null,
    position: 0,
    ...given,
  };
}

/** A run that passed, of no checks, with `given` over it (its stages among them). */
export function reportOf(given: Partial<ResultsReport> & Pick<ResultsReport, 'stages'>): ResultsReport {
  return {
    version: 2,
    status: 'pass',
    exitCode: 0,
    seed: 7,
    shard: null,
    mergedShards: null,
    startedAt: '2026-11-30T00:44:09.647Z',
    durationMs: 0,
    grader: { name: 'theinference', version: '0' },
    course: { digest: 'a'.repeat(64) },
    submission: { path: '/sub', changedOutsideSrc: [], changesCut: false, linksIgnored: [], filesIgnored: [], missing: [] },
    limits: { timeoutMs: null, memoryBytes: 1, outputCapBytes: 1, network: 'off' },
    sandbox: 'bwrap',
    hiddenCases: 0,
    generatedCases: 0,
    counts: { pass: 0, fail: 0, error: 0, timeout: 0, crash: 0, total: 0 },
    problems: [],
    points: { earned: 0, possible: 0 },
    ...given,
  };
}
