// What the terminal reporter prints under a verdict stays bounded whatever the verdict holds, and
// shows a program's control characters as text, while the grader's own colours and the diff
// explainer's output pass through unchanged.
import { describe, expect, it } from 'vitest';
import { explainDifference } from '../../harness/grade/explain.ts';
import { detailLines } from '../../harness/report/details.ts';
import { painter } from '../../harness/report/paint.ts';
import type { Stage } from '../../harness/course.ts';
import type { Span, Verdict } from '../../harness/run/verdict.ts';
import { reportOf } from '../helpers/reports.ts';
import { clip, escapeControls, escapeGraderText, headLines, oneLine } from '../../harness/terminal-text.ts';
import { DETAIL_LINES, LINE_CHARS, TerminalReporter } from '../../harness/report/terminal.ts';
import { COURSE_CONTENT } from '../../harness/stages/index.ts';

function printed(verdict: Partial<Verdict>, color = false): string[] {
  let out = '';
  const reporter = new TerminalReporter((text) => (out += text), { color, verbose: true });
  reporter.verdict({ name: 'case', status: 'fail', message: 'output differs from expected.json', durationMs: 10, ...verdict });
  return out.split('\n').slice(1, -1);
}

describe('escaping', () => {
  it('shows control characters as \\xNN (\\r, \\n) and keeps tab; C1 and DEL too for program bytes', () => {
    expect(escapeControls('\x1b[31mred\x1b[39m\ttab\r\n\x00\x7f\u0085\u009b2J é')).toBe('\\x1b[31mred\\x1b[39m\ttab\\r\\n\\x00\\x7f\\x85\\x9b2J é');
    expect(escapeControls(escapeControls('\x1b]0;title\x07'))).toBe('\\x1b]0;title\\x07'); // twice is once
  });

  it('in grader text, keeps colour sequences only when asked, newlines and tabs; C1 controls (U+009B is CSI) and bidi controls escaped', () => {
    const text = '\x1b[31mred\x1b[0m \x1b[2J\x1b]8;;x\x07 \u0080\u009b\r\u2028\u202e\t\n';
    expect(escapeGraderText(text, true)).toBe('\x1b[31mred\x1b[0m \\x1b[2J\\x1b]8;;x\\x07 \\x80\\x9b\\r\\u2028\\u202e\t\n');
    expect(escapeGraderText(text, false)).toBe('\\x1b[31mred\\x1b[0m \\x1b[2J\\x1b]8;;x\\x07 \\x80\\x9b\\r\\u2028\\u202e\t\n');
  });

  it('makes one line of any text: every line break (CR, LF, NEL, LS, PS), control, tab and bidi control escaped, then cut', () => {
    expect(oneLine('a\rb\nc\u0085d\u2028e\u2029f\tg\x0bh\x0ci\x1b[2Jj\u202ek\u2066l\u200fm')).toBe(
      'a\\rb\\nc\\x85d\\u2028e\\u2029f\\tg\\x0bh\\x0ci\\x1b[2Jj\\u202ek\\u2066l\\u200fm',
    );
    expect(oneLine(oneLine('\r\n'))).toBe('\\r\\n'); // twice is once
    expect(oneLine('all stages pass é ✓')).toBe('all stages pass é ✓');
    expect(oneLine('abcdef', 3)).toBe('abc…');
  });

  it('clips without splitting a surrogate pair, and counts the lines it leaves out', () => {
    expect(clip('abc', 3)).toBe('abc');
    expect(clip('ab😀', 3)).toBe('ab…');
    expect(headLines('a\nb\nc\n', 2)).toEqual({ lines: ['a', 'b'], more: 2 });
    expect(headLines('a\nb', 5)).toEqual({ lines: ['a', 'b'], more: 0 });
    expect(headLines('a\n', 1)).toEqual({ lines: ['a'], more: 1 });
  });
});

describe('the terminal reporter', () => {
  it('prints 128k lines of details as its first lines and a count, without a RangeError', () => {
    const details = Array.from({ length: 128_000 }, (_, index) => `line ${index}`).join('\n');
    const lines = printed({ details });
    expect(lines).toHaveLength(DETAIL_LINES + 1);
    expect(lines[0]).toBe('      line 0');
    expect(lines.at(-1)).toBe(`      … ${128_000 - DETAIL_LINES} more lines`);
  });

  it('cuts long lines of details, of the message and of stderr', () => {
    const lines = printed({ message: 'm'.repeat(5000), details: 'd'.repeat(1_000_000), stderr: `${'e'.repeat(1_000_000)}\n` });
    expect(lines[0]).toBe(`      ${'d'.repeat(LINE_CHARS)}…`);
    expect(lines[1]).toBe(`      [your_program] ${'e'.repeat(LINE_CHARS)}…`);
    let out = '';
    new TerminalReporter((text) => (out += text), { color: false, verbose: false }).verdict({
      name: 'c',
      status: 'crash',
      message: 'x'.repeat(5000),
      durationMs: 1,
    });
    expect(out.split('\n')[0]!.length).toBeLessThan(LINE_CHARS + 40);
  });

  it('relays 40 lines of stderr and counts the rest', () => {
    const lines = printed({ stderr: Array.from({ length: 1000 }, (_, index) => `e${index}`).join('\n') });
    expect(lines).toHaveLength(41);
    expect(lines.at(-1)).toBe('      [your_program] … 960 more lines of stderr');
  });

  it('shows the escapes a program writes as text, on stderr, in the message and in details; its own colours still work', () => {
    const evil = '\x1b[31mred\x1b[2J\x1b]0;pwned\x07\r\u009b1A';
    const plain = printed({ message: `exited with code 1: Error: ${evil}`, details: `  not-json: ${evil}`, stderr: evil }, false);
    expect(plain.join('\n')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/);
    expect(plain).toContain('      [your_program] \\x1b[31mred\\x1b[2J\\x1b]0;pwned\\x07\\r\\x9b1A');
    const coloured = printed({ stderr: evil }, true);
    expect(coloured).toEqual(['      \x1b[2m[your_program] \\x1b[31mred\\x1b[2J\\x1b]0;pwned\\x07\\r\\x9b1A\x1b[0m']);
  });

  it("prints the diff explainer's output exactly as it made it, with colours or without", () => {
    const expected = Buffer.from('{"a":"x\\u001b","b":[1,2]}\n');
    const actual = Buffer.from('{"a":"x\x1b","b":[1,2]}\r\n\x00\x7f\xff');
    const explanation = explainDifference(expected, actual, { hintRules: COURSE_CONTENT.hintRules() })!;
    for (const color of [false, true]) {
      const lines = detailLines(explanation, painter(color));
      if (color) expect(lines.join('\n')).toContain('\x1b[');
      expect(printed(explanation, color)).toEqual(lines.map((line) => `      ${line}`));
    }
  });
});

describe('one mistake shown once', () => {
  const expected = Buffer.from(`${JSON.stringify({ frames: ['{"jsonrpc":"2.0","id":1,"method":"ping"}\n'] }, null, 2)}\n`);
  const crlf = Buffer.from(expected.toString().replaceAll('\n', '\r\n'));
  const pretty = Buffer.from(`${JSON.stringify({ frames: [`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }, null, 2)}\n`] }, null, 2)}\n`);
  const failing = (name: string, actual: Buffer): Verdict => ({
    name,
    status: 'fail',
    message: 'output differs from expected.json',
    durationMs: 1,
    ...explainDifference(expected, actual, { hintRules: COURSE_CONTENT.hintRules() }),
  });

  for (const color of [false, true]) {
    it(`tells a CRLF failure and a pretty-printing one apart, and folds a repeat, colour ${color ? 'on' : 'off'}`, () => {
      let out = '';
      const reporter = new TerminalReporter((text) => (out += text), { color, verbose: false });
      for (const [name, actual] of [
        ['crlf', crlf],
        ['pretty', pretty],
        ['pretty-again', pretty],
      ] as const)
        reporter.verdict(failing(name, actual));
      reporter.verdict({ name: 'ok', status: 'pass', message: '', durationMs: 1 }); // ends the run of repeats
      const plain = out.replace(/\x1b\[[\d;]*m/g, '');
      const [, afterCrlf = '', afterPretty = ''] = plain.split(/^ {2}✗ .*$/m);
      expect(afterCrlf).toContain('CRLF');
      expect(afterPretty).toContain('pretty-printed');
      expect(afterPretty).not.toContain('the same mistake as above');
      expect(plain.split('\n')).toContain('  ✗ pretty-again  the same mistake as above; --verbose shows every one');
    });
  }

  it('tells a run of repeats in one line with its count, and a run another mistake breaks in two', () => {
    let out = '';
    const reporter = new TerminalReporter((text) => (out += text), { color: false, verbose: false });
    for (const [name, actual] of [
      ['crlf', crlf],
      ['pretty', pretty],
      ['a', pretty],
      ['b', pretty],
      ['c', pretty],
      ['crlf-again', crlf],
      ['d', pretty],
    ] as const)
      reporter.verdict(failing(name, actual));
    reporter.stageEnd({ stage: { slug: 's', title: 's', timeoutMs: 1, points: 1, cases: [] }, verdicts: [], passed: false, durationMs: 1 });
    const lines = out.split('\n').filter((line) => line.startsWith('  ✗'));
    expect(lines.slice(2).map((line) => line.replace(/^ {2}✗ /, ''))).toEqual([
      'a, b and c  3 checks, the same mistake as above; --verbose shows every one',
      'crlf-again  the same mistake as above; --verbose shows every one',
      'd  the same mistake as above; --verbose shows every one',
    ]);
  });

  it('folds two time-outs that differ only in the CPU each had used', () => {
    let out = '';
    const reporter = new TerminalReporter((text) => (out += text), { color: false, verbose: false });
    for (const [name, cpu] of [
      ['a', '0.16'],
      ['b', '0.21'],
    ])
      reporter.verdict({
        name,
        status: 'timeout',
        message: `was still running after 3 s of wall time, having used ${cpu} s of CPU, and was stopped`,
        durationMs: 1,
        details: 'it printed nothing',
      });
    reporter.stageEnd({ stage: { slug: 's', title: 's', timeoutMs: 1, points: 1, cases: [] }, verdicts: [], passed: false, durationMs: 1 });
    expect(out).toContain('  ✗ b  the same mistake as above; --verbose shows every one');
  });
});

describe("the recap at the end of a student's grading", () => {
  /** A stage whose second check fails with a long difference and two hints, reported to the end. */
  function graded(recap: boolean): string[] {
    let out = '';
    const stage: Stage = { slug: 'tools', title: 'tools', timeoutMs: 1000, points: 1, cases: [] };
    const caret = (side: 'expected' | 'actual'): Span[] => [{ text: '  │ ' }, { text: '^', style: side === 'expected' ? 'caret-expected' : 'caret-actual' }];
    // 15 lines of a side, the caret under its 8th
    const excerpt = (side: 'expected' | 'actual') => {
      const lines = Array.from({ length: 15 }, (_, at): Span[] => [{ text: `${at + 1} │ `, style: 'mark' }, { text: `line ${at + 1} ${side}` }]);
      return [...lines.slice(0, 8), caret(side), ...lines.slice(8)];
    };
    const difference = {
      offset: 0,
      line: 8,
      column: 1,
      lines: [[{ text: 'first difference at line 8' }], [{ text: 'expected.json:' }], ...excerpt('expected'), [{ text: 'your stdout:' }], ...excerpt('actual')],
    };
    const reporter = new TerminalReporter((text) => (out += text), { color: false, verbose: false, ...(recap && { recap: { stageNumber: () => 3 } }) });
    reporter.stageStart(stage);
    reporter.verdict({ name: 'list/one-tool', status: 'pass', message: '', durationMs: 1 });
    const failing: Verdict = {
      name: 'list/paged',
      status: 'fail',
      message: 'output differs from expected.json',
      durationMs: 1,
      difference,
      hints: [
        { kind: 'first', lines: ['the first hint', 'its second line'] },
        { kind: 'second', lines: ['the second hint'] },
      ],
    };
    reporter.verdict(failing);
    reporter.finish(
      reportOf({
        stages: [{ slug: 'tools', title: 'tools', status: 'fail', points: { earned: 0, possible: 1 }, durationMs: 1, planned: 2, advisories: 0, checks: [] }],
      }),
    );
    return out.split('\n');
  }

  it('ends with the first failure: its line, where its difference points, its first hint, and the command that grades just it', () => {
    const lines = graded(true);
    const recap = lines.slice(lines.indexOf('first failure (tools)'));
    expect(recap).toEqual([
      'first failure (tools)',
      '  ✗ list/paged  fail: output differs from expected.json',
      '      first difference at line 8',
      '      expected.json:',
      '      8 │ line 8 expected',
      '        │ ^',
      '      your stdout:',
      '      8 │ line 8 actual',
      '        │ ^',
      '      hint: the first hint',
      '            its second line',
      'grade just it: npx theinference test --stage 3 --case list/paged',
      '',
    ]);
    expect(recap.length).toBeLessThanOrEqual(20);
  });

  it('is left out where not asked for (CI)', () => {
    expect(graded(false).join('\n')).not.toContain('first failure');
  });
});
