// A program started ahead as watch mode starts a case's: `node warm-start.mjs <script>`, in the sandbox
// of a run root of its own, waiting for its release. The processes it is made of (bwrap's, node) are
// found by the script's path on their command lines.
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, onTestFinished } from 'vitest';
import { prestart, type Prestart } from '../../harness/run/prestart.ts';
import { jailFor } from '../../harness/run/sandbox.ts';
import { stillRunning } from '../ci/helpers.ts';
import { REPO } from './cli.ts';

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

export interface StartedAhead {
  started: Prestart;
  /** The state (R, S, T: stopped, ...) and CPU ticks of each of its processes still there. */
  processes(): { state: string; ticks: number }[];
  /** Its processes once a SIGSTOP sent them is taken: the kernel takes it when it next runs one, on a
   *  loaded machine a while after it was sent. Waits while one runs, and while they compute no more
   *  than a fifth of a second between them (one not stopped spins on). */
  afterStop(): Promise<{ state: string; ticks: number }[]>;
  /** None of its processes is left (a kill is given the moment the kernel takes to deliver it). */
  gone(): Promise<boolean>;
}

/** `body` (an ES module) started ahead; cancelled when the test ends. */
export function startAhead(body: string): StartedAhead {
  const root = mkdtempSync(join(tmpdir(), 'started-ahead-'));
  roots.push(root);
  mkdirSync(join(root, '.theinference'));
  mkdirSync(join(root, 'src'));
  const warmStart = join(root, '.theinference', 'warm-start.mjs');
  copyFileSync(join(REPO, 'harness', 'run', 'warm-start.mjs'), warmStart);
  copyFileSync(join(REPO, 'harness', 'run', 'preload.mjs'), join(root, '.theinference', 'preload.mjs'));
  const script = join(root, 'src', 'program.mjs');
  writeFileSync(script, body);
  const jail = jailFor(root, { sandbox: true });
  if (jail.kind !== 'bwrap') throw new Error('no sandbox here: install bubblewrap (scripts/machine-packages.sh)');
  const started = prestart(jail.withRunRoot(jail.wrap(process.execPath, [warmStart])), [script], {
    cwd: root,
    env: { PATH: process.env.PATH },
    limits: { timeoutMs: 10_000, outputCap: 8 * 1024 * 1024 },
    contained: true,
  });
  onTestFinished(() => started.cancel());
  const gone = async () => (await stillRunning((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(script))).length === 0;
  return { started, processes: () => processesOf(script), afterStop: () => afterStop(script), gone };
}

async function afterStop(script: string): Promise<{ state: string; ticks: number }[]> {
  const ticks = (processes: { ticks: number }[]) => processes.reduce((sum, process) => sum + process.ticks, 0);
  let processes = processesOf(script);
  const first = ticks(processes);
  while (processes.some(({ state }) => state === 'R') && ticks(processes) - first < 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    processes = processesOf(script);
  }
  return processes;
}

function processesOf(text: string): { state: string; ticks: number }[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text)) return [];
        const fields = /^\d+ \(.*\) (.*)$/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8').trim())![1]!.split(' ');
        return [{ state: fields[0]!, ticks: Number(fields[11]) + Number(fields[12]) }];
      } catch {
        return []; // it ended while we looked
      }
    })
    .filter(({ state }) => state !== 'Z');
}
