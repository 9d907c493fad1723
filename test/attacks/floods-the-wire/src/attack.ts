// Floods every fd a grader might read: 130,000 lines of garbage on the cassette wire (fd 3) and on
// stderr, each its own diagnosis or relayed line, then exits.
import { writeSync } from 'node:fs';

const line = 'not json, and not a message of any protocol\n';
const block = line.repeat(1000);
for (const fd of [3, 2]) {
  try {
    for (let sent = 0; sent < 130; sent++) writeSync(fd, block);
  } catch {
    // closed, or not open here
  }
}
process.exit(0);
