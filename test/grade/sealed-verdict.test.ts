// What a check of a sealed grading keeps of its full verdict: its status, a fixed message (an error names
// the kind of rule broken), its first hint in general words, a line saying what is not shown; nothing else.
// A hidden case's says it is one; a check that never ran keeps the submission's words.
import { describe, expect, it } from 'vitest';
import { HIDDEN_DETAILS, SEALED_DETAILS, sealedVerdict } from '../../harness/grade/sealed-verdict.ts';
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
  sessions: [
    {
      endpoint: 'mcp',
      cassette: '/hidden/fixtures/x/cassette.yaml',
      diagnoses: [{ kind: 'unexpected-method', message: 'expected "answerKeyOnly"' }],
      more: 0,
      exchange: { steps: [], more: 0 },
    },
  ],
  advice: [{ kind: 'before-initialize-result', message: 'sent answerKeyOnly early', source: 's', words: 'w' }],
  rerun: './your_program.sh mcp-frame cases/config-and-framing/hidden-mcp-frame/secret',
  stderr: 'answerKeyOnly',
  stdout: Buffer.from('{"answerKeyOnly":1}\n'),
  durationMs: 1234,
};

describe('a sealed check tells', () => {
  it('its verdict and first hint in general words, and nothing else of what grading found', () => {
    expect(sealedVerdict(full, { hidden: true })).toEqual({
      name: 'hidden-mcp-frame/secret',
      status: 'error',
      message: 'your client broke the protocol of the recorded session (unexpected-method)',
      details: HIDDEN_DETAILS,
      hints: [{ kind: 'key-order', lines: ['an object of your output has the same keys in another order'] }],
      durationMs: 0,
    });
  });

  it("a public check of a sealed grading: the same, the details saying why, and a property's seed kept", () => {
    const property: Verdict = { ...full, name: 'property: frame', status: 'fail', message: 'frame(answerKeyOnly) threw', seed: 7, hints: full.hints!.slice(1) };
    expect(sealedVerdict(property)).toEqual({
      name: 'property: frame',
      status: 'fail',
      message: 'a generated input found a counterexample',
      details: SEALED_DETAILS,
      hints: [{ kind: 'id-reused', lines: ['an id names one request'] }],
      seed: 7,
      durationMs: 0,
    });
  });

  it('a fixed message for each status, whatever the program made the full one say', () => {
    const said = (status: Verdict['status'], message: string) => sealedVerdict({ name: 'x', status, message, durationMs: 1 }).message;
    expect(said('crash', 'exited with code 42: Error: answerKeyOnly')).toBe('it exited with an error, was killed, or used too much memory');
    expect(said('timeout', 'was still running after 30 s of wall time, having used 4.20 s of CPU')).toBe('it ran out of time and was stopped');
    expect(said('fail', 'output differs from expected.json')).toBe('its output is not the expected one');
    expect(said('infra', "the case's cassette is unusable: /hidden/fixtures/x/cassette.yaml:3: answerKeyOnly")).toBe('the grader could not run it');
    expect(sealedVerdict({ name: 'x', status: 'pass', message: 'passed', durationMs: 1, stdout: Buffer.from('x'), stderr: 'answerKeyOnly' })).toEqual({
      name: 'x',
      status: 'pass',
      message: 'passed',
      durationMs: 0,
    });
  });

  it("a check that never ran keeps the submission's words (its compile error), not its duration", () => {
    const notRun: Verdict = {
      name: 'x',
      status: 'fail',
      message: 'not run: src/mcp.ts:3:1: Expected ";"',
      notRun: 'src/mcp.ts:3:1: Expected ";"',
      durationMs: 4,
    };
    expect(sealedVerdict(notRun)).toEqual({ ...notRun, durationMs: 0 });
  });
});
