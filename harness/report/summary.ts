// A Markdown summary of a results report, for a CI job's summary page (GitHub's $GITHUB_STEP_SUMMARY):
// a table of the stages, then the first failure with its hints. Only what a student may read of any
// case: the check's one-line verdict and its hints, never its details (a diff quotes expected bytes,
// which a hidden case must keep to itself) nor what the program printed.
import type { CheckReport, ResultsReport } from './model.ts';

const MARK: Record<string, string> = { pass: '✅ pass', fail: '❌ fail', error: '❌ error', timeout: '⏱ timeout', crash: '💥 crash', skipped: '— not graded' };

export function toSummary(report: ResultsReport): string {
  const rows = report.stages.map((stage) => {
    const passed = stage.checks.filter((check) => check.status === 'pass').length;
    const advice = stage.advisories > 0 ? ` (${stage.advisories} advice)` : '';
    const total = stage.status === 'skipped' ? stage.planned : stage.checks.length;
    return `| ${cell(stage.slug)} | ${cell(stage.title)} | ${MARK[stage.status] ?? stage.status} | ${passed}/${total}${advice} |`;
  });
  const lines = [
    `## theinference: ${report.status === 'pass' ? 'every graded stage passes' : `${report.status}`}`,
    '',
    '| stage | title | verdict | checks passed |',
    '|---|---|---|---|',
    ...rows,
  ];
  const first = report.stages.flatMap((stage) => stage.checks).find((check) => check.status !== 'pass');
  if (first) lines.push('', ...firstFailure(first));
  lines.push('', `seed ${report.seed}`);
  return `${lines.join('\n')}\n`;
}

function firstFailure(check: CheckReport): string[] {
  const name = check.origin === 'hidden' ? `${check.name} (a hidden case)` : check.name;
  const hints = check.hints.flatMap((hint) => hint.lines.map((line, i) => `${i === 0 ? '- ' : '  '}${text(line)}`));
  return [`### first failure: ${text(name)}`, '', `${check.status}: ${text(check.message)}`, ...(hints.length > 0 ? ['', 'hints:', '', ...hints] : [])];
}

/** Text as Markdown shows it as it is: its markup characters escaped. */
function text(value: string): string {
  return value.replace(/[\\`*_{}[\]<>#|!~]/g, (char) => `\\${char}`);
}

function cell(value: string): string {
  return text(value).replace(/\n/g, ' ');
}
