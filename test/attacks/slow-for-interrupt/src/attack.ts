// Takes its time (a child of its own included), so that the grader is interrupted while cases run.
import { spawn } from 'node:child_process';

spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', 'theinference-attack-slow'], { stdio: 'ignore' });
await new Promise((resolve) => setTimeout(resolve, 60_000));
