// `test --feedback`, a student's own CI: this folder's src/ graded with the course the grader's package
// publishes (here, the grader run from this repository: its root is the course), never with the
// repository's own copy of it, which is compared with the published one file by file; no hidden or
// generated case; a report and a summary that say it is feedback. (test/export.test.ts runs it from
// the packed grader, installed in an export, through the export's own workflow.)
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkResultsReport } from '../../harness/report/model.ts';
import { runCli } from '../helpers/cli.ts';
import { cleanUp, folder, REFERENCE, runCi } from './helpers.ts';

afterAll(cleanUp);

/** A student's repository, as `export` makes it. */
let student: string;
beforeAll(async () => {
  student = join(folder({}), 'student');
  expect((await runCli(['export', student])).code).toBe(0);
});

const STAGE_1 = ['test', '--feedback', '--stage', 'config-and-framing', '--runs', '20', '--seed', '4'];

describe('test --feedback', () => {
  it("grades this folder's src/ with the published course, naming each course file that differs, is missing or was added beside the course's own", async () => {
    writeFileSync(join(student, 'src/mcp.ts'), REFERENCE);
    // an expected output of the repository's copy that the reference does not print, a case without one
    const expected = 'fixtures/config-and-framing/mcp-frame/numbers/expected.json';
    writeFileSync(join(student, expected), '{}\n');
    rmSync(join(student, 'tsconfig.json'));
    mkdirSync(join(student, 'cases/config-and-framing/mcp-frame/mine'));
    writeFileSync(join(student, 'cases/config-and-framing/mcp-frame/mine/messages.json'), '[]\n');
    writeFileSync(join(student, 'notes.txt'), 'not the course: mine\n'); // beside the course's files, not in its folders
    const summary = join(folder({}), 'summary.md');
    const run = await runCi([...STAGE_1, '--summary', summary], { cwd: student });
    expect(run.code, run.stderr).toBe(0);
    const changed = [
      { path: 'cases/config-and-framing/mcp-frame/mine/messages.json', change: 'added' },
      { path: expected, change: 'modified' },
      { path: 'tsconfig.json', change: 'missing' },
    ];
    expect(run.report).toMatchObject({ feedback: true, hiddenCases: 0, generatedCases: 0, submission: { path: student, changedOutsideSrc: changed } });
    expect(checkResultsReport(run.report, '')).toBe(run.report);
    // graded with the course's cases (not the one added), against the course's expected.json
    const checks = run.report!.stages[0]!.checks;
    expect(checks.find((check) => check.name === 'mcp-frame/numbers')?.status).toBe('pass');
    expect(checks.filter((check) => check.name.includes('mine') || (check.origin !== 'public' && check.origin !== 'property'))).toEqual([]);
    expect(run.stdout).toContain(
      `course files of this repository that differ from the published course's, not used in grading: cases/config-and-framing/mcp-frame/mine/messages.json (added), ${expected} (modified), tsconfig.json (missing)\n`,
    );
    const page = readFileSync(summary, 'utf8');
    expect(page).toContain(
      "feedback: graded with the course as published in theinference 0\\.1\\.0, without hidden or generated cases; the grade of record is your teacher's.",
    );
    expect(page).toContain(`- \` ${expected} \` (modified)\n- \` tsconfig.json \` (missing)\n`);
  });

  for (const [given, says] of [
    [['--cases', '/tmp'], "--feedback takes no hidden cases (--cases): a student's workflow is theirs to edit, so it holds no secret and no hidden case"],
    [['--submission', '/tmp'], "--feedback grades this folder's src/; it does not go with --submission"],
    [
      ['--random', '2'],
      "--feedback makes no generated cases (--random): their expected outputs come from the course's reference solution, which is not published",
    ],
  ] as const) {
    it(`refuses ${given[0]} in one line, exit 2, which its report and summary say too`, async () => {
      const summary = join(folder({}), 'summary.md');
      const run = await runCi([...STAGE_1, ...given, '--summary', summary], { cwd: student });
      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`theinference test: ${says}\nrun \`theinference help\` for the commands and options\n`);
      expect(run.report).toMatchObject({ status: 'error', exitCode: 2, feedback: true, problems: [says] });
      expect(readFileSync(summary, 'utf8')).toContain(`- \` ${says} \``);
    });
  }
});
