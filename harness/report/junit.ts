// JUnit XML for CI dashboards, made from a results report (a single run's or a merge's): a
// <testsuite> per stage, a <testcase> per check; fail is a <failure>, timeout, crash and error
// are an <error>, a skipped stage's checks are not listed.
import type { CheckReport, ResultsReport } from './model.ts';

export function toJUnit(report: ResultsReport): string {
  const suites = report.stages.map((stage) => {
    const failures = stage.checks.filter((check) => check.status === 'fail').length;
    const errors = stage.checks.filter((check) => check.status !== 'pass' && check.status !== 'fail').length;
    const time = seconds(stage.durationMs);
    const cases = stage.checks.map((check) => testCase(stage.slug, check)).join('');
    const skipped = stage.status === 'skipped' ? ` skipped="${stage.planned}"` : '';
    return `  <testsuite name="${attr(stage.slug)}" tests="${stage.checks.length}" failures="${failures}" errors="${errors}"${skipped} time="${time}">\n${cases}  </testsuite>\n`;
  });
  const { counts } = report;
  const failures = counts.fail;
  const errors = counts.error + counts.timeout + counts.crash;
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="theinference" tests="${counts.total}" failures="${failures}" errors="${errors}" time="${seconds(report.durationMs)}">\n` +
    `${suites.join('')}</testsuites>\n`
  );
}

function testCase(stage: string, check: CheckReport): string {
  const open = `    <testcase classname="${attr(stage)}" name="${attr(check.name)}" time="${seconds(check.durationMs)}"`;
  if (check.status === 'pass') return `${open}/>\n`;
  const element = check.status === 'fail' ? 'failure' : 'error';
  const body = [check.details?.text, check.stderr ? `stderr:\n${check.stderr.text}` : undefined, check.seed === null ? undefined : `seed: ${check.seed}`]
    .filter((part) => part !== undefined)
    .join('\n');
  return `${open}>\n      <${element} type="${check.status}" message="${attr(check.message)}">${text(body)}</${element}>\n    </testcase>\n`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** XML 1.0 cannot carry most control characters or a lone surrogate, even escaped: show them as \uXXXX. */
function clean(value: string): string {
  return value.replace(
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|\p{Surrogate}/gu,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function text(value: string): string {
  return clean(value.replace(/\x1b\[[\d;]*m/g, ''))
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

function attr(value: string): string {
  return text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\r', '&#13;').replaceAll('\t', '&#9;');
}
