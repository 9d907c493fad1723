// A submission that probes the hidden cases: the reference, except on a case whose input it has never
// seen (none of the public cases'), where it tells all it can of it: it prints that input on stderr,
// then gets the output a little wrong (its frames' keys sorted, its last server left out) so that the
// grader explains the difference, or crashes with the input in its error line. Beside them a hidden
// handshake case it passes, whose recording has a server name of its own. Graded as CI grades, with
// every report asked for: no report, nor the terminal, holds the hidden cases' key names, values,
// server names, the offsets of a difference, or the hidden folder's path; each hidden check tells
// its verdict and its hints, and results.json stays a version 1 report.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HIDDEN_DETAILS } from '../../harness/grade/sealed-verdict.ts';
import { checkResultsReport, type ResultsReport } from '../../harness/report/model.ts';
import { checks, cleanUp, folder, runCi, submission, type CiRun } from '../ci/helpers.ts';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

/** What only the hidden cases hold: none of it may reach a report. */
const SECRETS = [
  'answerKeyOnly',
  'hidden-value-4d1c',
  'answerServerOnly',
  'hidden-command-9e2b',
  'crashKeyOnly',
  'hidden-value-c7a2',
  'hidden-server-only-5a7',
];

const course = courseCopy();
trimCourse(course);
afterAll(() => {
  rmSync(course, { recursive: true, force: true });
  cleanUp();
});

/** Every file of the public cases of stages 1 and 2: what the probing submission knows by heart. */
function publicInputs(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? files(join(dir, entry.name)) : [join(dir, entry.name)]));
  return [...files(join(REPO, 'cases/config-and-framing')), ...files(join(REPO, 'cases/handshake'))].map((file) => readFileSync(file, 'utf8'));
}

/** Hidden cases laid out as docs/ci.md says, each expected.json what the course's reference prints. */
function hiddenCases(): string {
  const numbers = JSON.parse(readFileSync(join(REPO, 'cases/config-and-framing/mcp-frame/numbers/messages.json'), 'utf8')) as { params: object }[];
  numbers[0]!.params = { ...numbers[0]!.params, answerKeyOnly: 'hidden-value-4d1c' };
  const inputs = {
    'mcp-frame/probe-output': ['messages.json', `${JSON.stringify(numbers, null, 2)}\n`],
    'mcp-frame/probe-crash': ['messages.json', '[{"jsonrpc":"2.0","method":"notifications/crashKeyOnly","params":{"crashKeyOnly":"hidden-value-c7a2"}}]\n'],
    'mcp-config/probe-output': ['.mcp.json', '{"mcpServers":{"alpha":{"command":"a"},"answerServerOnly":{"command":"hidden-command-9e2b"}}}\n'],
  } as const;
  const dir = folder(Object.fromEntries(Object.entries(inputs).map(([name, [file, text]]) => [`cases/config-and-framing/${name}/${file}`, text])));
  for (const name of Object.keys(inputs)) {
    const expected = execFileSync(join(REPO, 'your_program.sh'), [name.split('/')[0]!, join(dir, 'cases/config-and-framing', name)], { cwd: REPO });
    mkdirSync(join(dir, 'fixtures/config-and-framing', name), { recursive: true });
    writeFileSync(join(dir, 'fixtures/config-and-framing', name, 'expected.json'), expected);
  }
  // a public handshake's recording, its server renamed (as long a name: the recording's bytes keep their lengths)
  const renamed = (file: string) =>
    readFileSync(join(REPO, 'fixtures/handshake/everything-server', file), 'utf8').replaceAll('mcp-servers/everything', 'hidden-server-only-5a7');
  for (const file of ['cassette.yaml', 'expected.json']) {
    mkdirSync(join(dir, 'fixtures/handshake/probe-session'), { recursive: true });
    writeFileSync(join(dir, 'fixtures/handshake/probe-session', file), renamed(file));
  }
  mkdirSync(join(dir, 'cases/handshake/probe-session'), { recursive: true });
  cpSync(join(REPO, 'cases/handshake/everything-server/case.md'), join(dir, 'cases/handshake/probe-session/case.md'));
  return dir;
}

/** The reference, probing every case it does not know. */
function prober(): string {
  const prelude = `import { readdirSync as listProbed, readFileSync as readProbed } from 'node:fs';
const PUBLIC_INPUTS: string[] = ${JSON.stringify(publicInputs())};
/** Set on a case the submission has never seen: then it tells the report what it can of it. */
let probing = false;
const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([key, item]) => [key, sortedKeys(item)]))
      : value;
{
  const dir = process.argv[3] ?? '';
  let unseen: string[] = [];
  try {
    unseen = listProbed(dir).map((file) => readProbed(dir + '/' + file, 'utf8')).filter((text) => !PUBLIC_INPUTS.includes(text));
  } catch {
    unseen = []; // the property oracle: no case
  }
  if (unseen.length > 0) {
    probing = true;
    const input = unseen.join(' ');
    console.error('the hidden input: ' + input);
    if (input.includes('crashKeyOnly')) throw new Error('the hidden input: ' + input.replace(/\\s+/g, ' '));
  }
}`;
  return submission(prelude, [
    ["return JSON.stringify(msg) + '\\n';", "return JSON.stringify(probing ? sortedKeys(msg) : msg) + '\\n';"],
    [
      'return Object.entries(servers).map(([name, entry]) => parseServer(name.slice(KEY_MARK.length), unmarkKeys(entry)));',
      'return Object.entries(servers).map(([name, entry]) => parseServer(name.slice(KEY_MARK.length), unmarkKeys(entry))).slice(0, probing ? -1 : undefined);',
    ],
  ]);
}

const hidden = hiddenCases();
const out = folder({});
const files = { summary: join(out, 'summary.md'), junit: join(out, 'junit.xml'), html: join(out, 'report.html') };
let run: CiRun;
let report: ResultsReport;

beforeAll(async () => {
  run = await runCi(
    [
      'test',
      '--stage',
      'handshake',
      '--runs',
      '20',
      '--seed',
      '5',
      '--random',
      '0',
      '--submission',
      prober(),
      '--cases',
      hidden,
      '--summary',
      files.summary,
      '--junit',
      files.junit,
      '--html',
      files.html,
    ],
    { cwd: course },
  );
  report = run.report!;
});

describe('probes-hidden-cases: a hidden case tells its verdict and hints, nothing of itself', () => {
  it('the probes ran: the hidden cases fail as they should, the public ones pass', () => {
    expect(run.code).toBe(1);
    const verdicts = Object.fromEntries(checks(report).map((check) => [check.name, { origin: check.origin, status: check.status }]));
    expect(verdicts).toMatchObject({
      'hidden-mcp-config/probe-output': { origin: 'hidden', status: 'fail' },
      'hidden-mcp-frame/probe-crash': { origin: 'hidden', status: 'crash' },
      'hidden-mcp-frame/probe-output': { origin: 'hidden', status: 'fail' },
      'hidden-handshake/probe-session': { origin: 'hidden', status: 'pass' },
    });
    const others = checks(report).filter((check) => check.origin !== 'hidden');
    expect(others.length).toBeGreaterThan(2);
    for (const check of others) expect(check.status, check.name).toBe('pass');
  });

  it('no report and no line of the terminal holds what the hidden cases hold, or where they are', () => {
    const written = {
      terminal: run.stdout + run.stderr,
      'results.json': readFileSync(join(run.tmp, '..', 'results.json'), 'utf8'),
      summary: readFileSync(files.summary, 'utf8'),
      junit: readFileSync(files.junit, 'utf8'),
      html: readFileSync(files.html, 'utf8'),
    };
    for (const [where, text] of Object.entries(written)) {
      for (const secret of [...SECRETS, hidden]) expect(text.includes(secret), `${where} holds ${secret}`).toBe(false);
    }
  });

  it("each hidden check has its verdict, a message in the grader's words and its hints in general words; its other fields empty", () => {
    const hiddenChecks = checks(report).filter((check) => check.origin === 'hidden');
    expect(hiddenChecks).toHaveLength(4);
    for (const check of hiddenChecks) {
      expect(check, check.name).toMatchObject({
        difference: null,
        sessions: [],
        output: null,
        stderr: null,
        advice: [],
        durationMs: 0,
      });
      // no offset, line or column of the expected output, no JSON path, no run-it-yourself line naming a path the student does not have
      expect(JSON.stringify(check), check.name).not.toMatch(/offset|line \d|column|frames\[|servers\[|parsed\[|run it yourself/);
    }
    const byName = (name: string) => hiddenChecks.find((check) => check.name === name)!;
    expect(byName('hidden-mcp-frame/probe-crash').message).toBe('it exited with an error, was killed, or used too much memory');
    const frame = byName('hidden-mcp-frame/probe-output');
    expect(frame.message).toBe('its output is not the expected one');
    expect(frame.hints.map((hint) => hint.kind)).toContain('frame-key-order');
    expect(frame.details?.text).toContain(HIDDEN_DETAILS);
    expect(frame.details?.text).toContain("hint: a frame of yours has the message's keys in another order");
    expect(byName('hidden-mcp-config/probe-output').hints).toContainEqual({
      kind: 'config-missing',
      lines: ['parseConfig left out a server: return every server in mcpServers'],
    });
    expect(checkResultsReport(report, '')).toBe(report);
  });

  it('the job summary shows the first hidden failure by its verdict and hints', () => {
    const summary = readFileSync(files.summary, 'utf8');
    expect(summary).toContain('### first failure: ` hidden-mcp-config/probe-output ` (a hidden case)');
    expect(summary).toContain('fail: ` its output is not the expected one `');
    expect(summary).toContain('- ` parseConfig left out a server: return every server in mcpServers `');
  });
});
