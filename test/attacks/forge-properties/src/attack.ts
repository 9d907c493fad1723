// Claims that every framing property held, in the runner's own words, on every fd a grader might
// read, then leaves before anything can be checked.
import { writeSync } from 'node:fs';

const properties = ['one-line', 'compact-json', 'line-endings', 'round-trip'];
const claims = [
  { type: 'ready' },
  ...properties.flatMap((property) => [
    { type: 'start', property },
    { type: 'outcome', property, passed: true, numRuns: 1000, numShrinks: 0, seed: 0, durationMs: 1 },
  ]),
  { type: 'done' },
];
const text = claims.map((claim) => JSON.stringify(claim)).join('\n') + '\n';
for (let fd = 3; fd < 10; fd++) {
  try {
    writeSync(fd, text);
  } catch {
    // not open here
  }
}
process.exit(0);
