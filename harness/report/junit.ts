// JUnit XML for CI dashboards, made from a results report (a single run's or a merge's): a
// <testsuite> per stage, a <testcase> per check; fail is a <failure>, timeout, crash and error
// are an <error>, a skipped stage's checks are not listed.
import { escapeGraderText } from '../terminal-text.ts';
import type { CheckReport, ResultsReport } from './model.ts';

export function toJUnit(report: ResultsReport): string {
  const suites = report.stages.map((stage) => {
    const failures = stage.checks.filter((check) => check.status === 'fail').length;
    const errors = stage.checks.filter((check) => check.status !== 'pass' && check.status !== 'fail').length;
    const time = seconds(stage.durationMs);
    const cases = stage.checks.map((check) => testCase(stage.slug, check)).join('');
    const skipped = stage.status === 'skipped' ? ` skipped="${stage.planned}"` : '';
    // what the stage earned of its points (course.yaml's points:), as JUnit's properties
    const points = `    <properties>\n      <property name="points" value="${stage.points.earned}"/>\n      <property name="points possible" value="${stage.points.possible}"/>\n    </properties>\n`;
    return `  <testsuite name="${attr(stage.slug)}" tests="${stage.checks.length}" failures="${failures}" errors="${errors}"${skipped} time="${time}">\n${points}${cases}  </testsuite>\n`;
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

/**
 * Text as XML 1.0 carries it: control characters shown escaped (`\x1b`, `\r`), as the terminal shows a
 * program's words, newlines and tabs kept. Most C0 controls cannot be in an XML 1.0 document even as
 * a character reference; a CR would be read back as a newline; C1 and bidi controls would act in a
 * viewer. U+FFFE, U+FFFF and a lone surrogate, which XML cannot carry either, as `\uXXXX`. Then the
 * markup characters as entities (there is no CDATA section here, so no `]]>` to split).
 */
function text(value: string): string {
  return escapeGraderText(value, false)
    .replace(/[\ufffe\uffff]|\p{Surrogate}/gu, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;');
}

/** In an attribute, a newline or tab would be read back as a space: written as character references. */
function attr(value: string): string {
  return text(value).replaceAll('"', '&quot;').replaceAll('\n', '&#10;').replaceAll('\t', '&#9;');
}
