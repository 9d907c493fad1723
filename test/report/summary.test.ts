// The Markdown summary, rendered as GitHub renders it (micromark with GFM): whatever the report's texts
// hold (a program's crash message, a hint quoting its output, a stage's title), the page has the
// markup the grader wrote and no other, and shows those texts as they are, each on one line.
import { describe, expect, it } from 'vitest';
import type { CheckReport, ResultsReport } from '../../harness/report/model.ts';
import { toStoppedSummary, toSummary } from '../../harness/report/summary.ts';
import { oneLine } from '../../harness/terminal-text.ts';
import { elements, HOSTILE_TEXTS, renderGfm, textOf } from '../helpers/markdown.ts';
import { checkOf, reportOf } from '../helpers/reports.ts';

function check(text: string): CheckReport {
  return checkOf({ id: `stage/${text}`, name: text, status: 'crash', message: text, hints: [{ kind: 'k', lines: [text, text] }] });
}

/** A failed run of one stage, whose one check has `text` for its name, its message and its hints' lines. */
function report(text: string, title = 'a stage'): ResultsReport {
  return reportOf({
    status: 'fail',
    exitCode: 1,
    counts: { pass: 0, fail: 0, error: 0, timeout: 0, crash: 1, total: 1 },
    points: { earned: 0, possible: 1 },
    stages: [{ slug: 'stage', title, status: 'fail', points: { earned: 0, possible: 1 }, durationMs: 1, planned: 1, advisories: 0, checks: [check(text)] }],
  });
}

describe('the summary, rendered', () => {
  const plain = elements(renderGfm(toSummary(report('plain words'))));

  it('has a table, two headings and the hints list of its own, and no link, image or other element', () => {
    expect(plain.filter((tag) => /^<h\d/.test(tag))).toEqual(['<h2>', '<h3>']);
    expect(plain).toContain('<table>');
    expect(plain.filter((tag) => /^<(a|img|script|h1)\b/.test(tag))).toEqual([]);
  });

  for (const text of [...HOSTILE_TEXTS, HOSTILE_TEXTS.join(' ')]) {
    it(`shows ${JSON.stringify(text).slice(0, 60)} as text, in the grader's markup`, () => {
      const page = renderGfm(toSummary(report(text, text)));
      expect(elements(page)).toEqual(plain);
      const shown = textOf(page);
      // the message and each hint line, whole and on one line; the title too, though escaped differently
      expect(shown.split(oneLine(text)).length - 1).toBeGreaterThanOrEqual(4);
    });
  }

  it('a code span longer than any run of backticks in the text, so none of them closes it', () => {
    const page = renderGfm(toSummary(report('a ```` b `` c `')));
    expect(textOf(page)).toContain('crash: a ```` b `` c `\n');
  });
});

describe('a run not graded to the end (exit 2)', () => {
  /** A run that stopped before grading: its stages not graded, `reason` its problem. */
  const stopped = (reason: string): ResultsReport => {
    const base = report('plain words');
    return {
      ...base,
      status: 'error',
      exitCode: 2,
      counts: { pass: 0, fail: 0, error: 0, timeout: 0, crash: 0, total: 0 },
      problems: [reason],
      stages: base.stages.map((stage) => ({ ...stage, status: 'skipped', checks: [] })),
    };
  };
  const reason = 'no sandbox can be made here (bwrap is not installed): install bubblewrap';
  /** The page's text as a reader takes it in: words, one space between. */
  const words = (page: string) => textOf(page).replace(/\s+/g, ' ').trim();

  it('says why before the table, as the grader wrote it', () => {
    const shown = words(renderGfm(toSummary(stopped(reason))));
    expect(shown).toMatch(/^theinference: error not graded to the end: no sandbox can be made here \(bwrap is not installed\): install bubblewrap stage title/);
    expect(shown).toContain('— not graded');
  });

  it('says why where no report could be made (no course to read, reports that do not merge)', () => {
    const page = renderGfm(toStoppedSummary(reason));
    expect(words(page)).toBe(`theinference: error not graded to the end: ${reason}`);
    expect(elements(page)).toEqual(['<h2>', '<p>', '<ul>', '<li>', '<code>']);
  });

  it('shows a reason that quotes markup as text, in the same markup', () => {
    const plainPage = elements(renderGfm(toSummary(stopped(reason))));
    for (const text of HOSTILE_TEXTS) {
      const page = renderGfm(toSummary(stopped(text)));
      expect(elements(page)).toEqual(plainPage);
      expect(textOf(page)).toContain(oneLine(text));
      expect(elements(renderGfm(toStoppedSummary(text)))).toEqual(elements(renderGfm(toStoppedSummary(reason))));
    }
  });
});

describe("a student's own workflow's report (feedback), and files outside src/ not used", () => {
  const withChanges = (paths: string[], feedback?: boolean): ResultsReport => {
    const base = report('plain words');
    return {
      ...base,
      ...(feedback && { feedback }),
      submission: { ...base.submission, changedOutsideSrc: paths.map((path) => ({ path, change: 'modified' as const })) },
    };
  };
  const words = (page: string) => textOf(page).replace(/\s+/g, ' ').trim();

  it('says it is feedback, and which course files differ from the published ones, before the table', () => {
    const shown = words(renderGfm(toSummary(withChanges(['course.yaml', 'program.ts'], true))));
    expect(shown).toMatch(
      /^theinference: fail feedback: graded with the course as published in theinference 0, without hidden or generated cases; the grade of record is your teacher's\. course files of this repository that differ from the published course's, not used in grading: course\.yaml \(modified\) program\.ts \(modified\) stage title/,
    );
    expect(words(renderGfm(toSummary(withChanges(['notes.txt']))))).toContain(
      'files outside src/ that the submission changed, not used in grading: notes.txt (modified) stage',
    );
    expect(words(renderGfm(toSummary(withChanges([]))))).not.toContain('not used in grading');
  });

  it('names ten files at most, and counts the rest', () => {
    const paths = Array.from({ length: 12 }, (_, index) => `cases/x/${index}.json`);
    const shown = words(renderGfm(toSummary(withChanges(paths, true))));
    expect(shown).toContain('cases/x/9.json (modified) and 2 more');
    expect(shown).not.toContain('cases/x/10.json');
  });

  it("shows a file's name that holds markup as text, in the same markup", () => {
    const plainPage = elements(renderGfm(toSummary(withChanges(['plain.txt'], true))));
    for (const text of HOSTILE_TEXTS) {
      const page = renderGfm(toSummary(withChanges([text], true)));
      expect(elements(page)).toEqual(plainPage);
      expect(textOf(page)).toContain(oneLine(text));
    }
  });
});
