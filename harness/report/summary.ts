// A Markdown summary of a results report, for a CI job's summary page (GitHub's $GITHUB_STEP_SUMMARY):
// that it is feedback, where a student's own workflow graded it; why the run was not graded to the end,
// where it was not (its `problems`, the one-line reason of an exit 2); the files outside src/ not used;
// a table of the stages, then the first failure with its hints. Only what a student may read of any
// case: the check's one-line verdict and its hints, never its details (a diff quotes expected bytes)
// nor what the program printed; a hidden case's verdict and hints quote nothing of it (grade/sealed-verdict.ts).
//
// The report's texts (a check's name, its message, which may quote a program's error line, its hints)
// are shown literally, never as Markdown: each made one line, then put in a code span (`literal`), where
// GFM sees no markup at all: no heading, list, table or setext underline (the line is one, and starts
// with our words), no link, image, autolink (a bare URL, www.), HTML, entity or emphasis. The table's
// cells (a stage's slug and title) have every ASCII punctuation character escaped instead, which
// CommonMark allows, since a pipe splits a cell even inside a code span.
import { SEALED_NOTE } from '../grade/sealed-verdict.ts';
import { oneLine } from '../terminal-text.ts';
import type { CheckReport, ResultsReport } from './model.ts';

const MARK: Record<string, string> = { pass: '✅ pass', fail: '❌ fail', error: '❌ error', timeout: '⏱ timeout', crash: '💥 crash', skipped: '— not graded' };

export function toSummary(report: ResultsReport): string {
  const rows = report.stages.map((stage) => {
    const passed = stage.checks.filter((check) => check.status === 'pass').length;
    const advice = stage.advisories > 0 ? ` (${stage.advisories} advice)` : '';
    const total = stage.status === 'skipped' ? stage.planned : stage.checks.length;
    const points = `${stage.points.earned}/${stage.points.possible}`;
    return `| ${cell(stage.slug)} | ${cell(stage.title)} | ${MARK[stage.status] ?? cell(stage.status)} | ${passed}/${total}${advice} | ${points} |`;
  });
  const lines = [
    `## theinference: ${report.status === 'pass' ? 'every graded stage passes' : cell(report.status)}`,
    ...aboutTheRun(report),
    '',
    '| stage | title | verdict | checks passed | points |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `points: ${report.points.earned} of ${report.points.possible}`,
  ];
  const first = report.stages.flatMap((stage) => stage.checks).find((check) => check.status !== 'pass');
  if (first) lines.push('', ...firstFailure(first));
  lines.push('', `seed ${report.seed}`);
  return `${lines.join('\n')}\n`;
}

/** The summary of a run that stopped before a report of it could be made (no course to read, shards
 *  that cannot be merged): its one-line reason. */
export function toStoppedSummary(reason: string): string {
  return `## theinference: error\n\nnot graded to the end:\n\n- ${literal(reason)}\n`;
}

/** Files not used in grading that the summary names, at most; the rest are counted. */
const CHANGES_SHOWN = 10;

/** What the reader should know before the table, each part after a blank line: that it is feedback, why it
 *  was not graded to the end, and which files outside src/ were not used. */
function aboutTheRun(report: ResultsReport): string[] {
  const lines: string[] = [];
  if (report.feedback)
    lines.push(
      '',
      `feedback: graded with the course as published in theinference ${cell(report.grader.version)}, without hidden or generated cases; the grade of record is your teacher's.`,
    );
  if (report.sealed) lines.push('', cell(SEALED_NOTE));
  if (report.problems.length > 0) lines.push('', 'not graded to the end:', '', ...report.problems.map((problem) => `- ${literal(problem)}`));
  const changed = report.submission.changedOutsideSrc;
  if (changed.length > 0) {
    const which = report.feedback
      ? "course files of this repository that differ from the published course's"
      : 'files outside src/ that the submission changed';
    const more = changed.length > CHANGES_SHOWN ? [`- and ${changed.length - CHANGES_SHOWN} more`] : [];
    lines.push(
      '',
      `${which}, not used in grading:`,
      '',
      ...changed.slice(0, CHANGES_SHOWN).map(({ path, change }) => `- ${literal(path)} (${cell(change)})`),
      ...more,
    );
  }
  return lines;
}

function firstFailure(check: CheckReport): string[] {
  const hidden = check.origin === 'hidden' ? ' (a hidden case)' : '';
  const hints = check.hints.flatMap((hint) => hint.lines.map((line, i) => `${i === 0 ? '- ' : '  '}${literal(line)}`));
  return [
    `### first failure: ${literal(check.name)}${hidden}`,
    '',
    `${cell(check.status)}: ${literal(check.message)}`,
    ...(hints.length > 0 ? ['', 'hints:', '', ...hints] : []),
  ];
}

/** Text as it is, in a code span: one line, fenced with more backticks than any run of them in it, and
 *  a space inside each fence (the one CommonMark takes off), so that a backtick at either end stays text. */
export function literal(value: string): string {
  const text = oneLine(value);
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence} ${text} ${fence}`;
}

/** Text in a table cell: one line, every ASCII punctuation character backslash-escaped (pipes too). */
export function cell(value: string): string {
  return oneLine(value).replace(/[!-/:-@[-`{-~]/g, (char) => `\\${char}`);
}
