// What a hidden case's verdict keeps of a full one: its status, a fixed message (an error names the
// kind of rule broken), its hints in general words, a line saying what is not shown; nothing else.
import { describe, expect, it } from 'vitest';
import { HIDDEN_DETAILS, toldOfHidden } from '../../harness/grade/hidden-verdict.ts';
import type { Verdict } from '../../harness/run/verdict.ts';

const full: Verdict = {
  name: 'hidden-mcp-frame/secret',
  status: 'error',
  message: 'your client sent tools/call "answerKeyOnly" where the recording has tools/list',
  details: 'then your client did nothing for 2 s',
  difference: { offset: 48, line: 3, column: 9, lines: [[{ text: 'first difference at byte offset 48' }]] },
  hints: [
    {
      kind: 'key-order',
      lines: ['frames[0].params: the same keys in another order'],
      general: ['an object of your output has the same keys in another order'],
    },
    { kind: 'id-reused', lines: ['an id names one request'] },
    {
      kind: 'sse-line-ends',
      aboutTheCase: true,
      lines: ["this case's event streams end their lines in CRLF"],
      general: ['an event stream may end its lines in CRLF'],
    },
  ],
  protocol: { cassette: '/hidden/fixtures/x/cassette.yaml', diagnoses: [{ kind: 'unexpected-method', message: 'expected "answerKeyOnly"' }], more: 0 },
  advice: [{ kind: 'before-initialize-result', message: 'sent answerKeyOnly early', source: 's', words: 'w' }],
  exchange: { steps: [], more: 0 },
  rerun: './your_program.sh mcp-frame cases/config-and-framing/hidden-mcp-frame/secret',
  stderr: 'answerKeyOnly',
  stdout: Buffer.from('{"answerKeyOnly":1}\n'),
  durationMs: 1234,
};

describe('a hidden case tells', () => {
  it('its verdict and hints in general words, and nothing else of what grading found', () => {
    expect(toldOfHidden(full)).toEqual({
      name: 'hidden-mcp-frame/secret',
      status: 'error',
      message: 'your client broke the protocol of the recorded session (unexpected-method)',
      details: HIDDEN_DETAILS,
      hints: [
        { kind: 'key-order', lines: ['an object of your output has the same keys in another order'] },
        { kind: 'id-reused', lines: ['an id names one request'] },
        { kind: 'sse-line-ends', aboutTheCase: true, lines: ['an event stream may end its lines in CRLF'] },
      ],
      durationMs: 0,
    });
  });

  it('a fixed message for each status, whatever the program made the full one say', () => {
    const said = (status: Verdict['status'], message: string) => toldOfHidden({ name: 'x', status, message, durationMs: 1 }).message;
    expect(said('crash', 'exited with code 42: Error: answerKeyOnly')).toBe('it exited with an error, was killed, or used too much memory');
    expect(said('timeout', 'was still running after 30 s of wall time, having used 4.20 s of CPU')).toBe('it ran out of time and was stopped');
    expect(said('fail', 'output differs from expected.json')).toBe('its output is not the expected one');
    expect(said('infra', "the case's cassette is unusable: /hidden/fixtures/x/cassette.yaml:3: answerKeyOnly")).toBe('the grader could not run it');
    expect(toldOfHidden({ name: 'x', status: 'pass', message: 'passed', durationMs: 1, stdout: Buffer.from('x') })).toEqual({
      name: 'x',
      status: 'pass',
      message: 'passed',
      durationMs: 0,
    });
  });
});
