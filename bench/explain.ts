// The diff explainer on big outputs: 1 MiB of frames with one wrong frame near the end, and 1 MiB on
// one line with one wrong byte, each against the obvious alternative in the same run (a line diff of
// the two outputs split into lines, what a generic test runner prints).
// Run: node --import tsx bench/explain.ts [rounds]
import { explainDifference } from '../harness/grade/explain.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

const rounds = Number(process.argv[2] ?? 20);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

function frames(space: boolean): Buffer {
  const framed = Array.from({ length: 9000 }, (_, id) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { text: 'x'.repeat(80) } })}\n`);
  if (space) framed[8999] = framed[8999]!.replace('"id":8999', '"id": 8999');
  return Buffer.from(`${JSON.stringify({ frames: framed }, null, 2)}\n`);
}

/** The obvious alternative: the first differing line of the two outputs, found by splitting both. */
function lineDiff(expected: Buffer, actual: Buffer): number {
  const left = expected.toString('utf8').split('\n');
  const right = actual.toString('utf8').split('\n');
  let line = 0;
  while (line < left.length && left[line] === right[line]) line++;
  return line;
}

const oneLine = Buffer.alloc(1024 * 1024, 'a');
const oneLineWrong = Buffer.from(oneLine);
oneLineWrong[700_000] = 0x62;
const cases = { 'frames, 1 MiB': [frames(false), frames(true)], 'one line, 1 MiB': [oneLine, oneLineWrong] } as const;

for (const [name, [expected, actual]] of Object.entries(cases)) {
  if (explainDifference(expected, actual) === undefined) throw new Error(`${name}: the two outputs are the same`);
  const times = { explainer: [] as number[], 'line diff': [] as number[] };
  for (let round = 0; round < rounds; round++) {
    let started = performance.now();
    explainDifference(expected, actual, { hintRules: COURSE_CONTENT.hintRules('config-and-framing') });
    times.explainer.push(performance.now() - started);
    started = performance.now();
    lineDiff(expected, actual);
    times['line diff'].push(performance.now() - started);
  }
  const [explainer, alternative] = [median(times.explainer), median(times['line diff'])];
  console.log(
    `${name} (${expected.length} bytes): explainer ${explainer.toFixed(1)} ms, line diff ${alternative.toFixed(1)} ms, ratio ${(explainer / alternative).toFixed(2)}`,
  );
}
