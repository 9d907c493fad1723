// Submissions made on the fly from the reference solution, and CI runs of the real binary each
// with a TMPDIR of its own: every scratch copy lands there, and every process the run started
// carries it in its environment, so that "nothing left behind" can be checked exactly.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ResultsReport } from '../../harness/report/model.ts';
import { REPO, runCli, type CliRun } from '../helpers/cli.ts';

export const REFERENCE = readFileSync(join(REPO, 'src', 'mcp.ts'), 'utf8');

const made: string[] = [];

/** A folder holding `files` (paths relative to it); removed by `cleanUp`. */
export function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ci-test-'));
  made.push(dir);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}

/** A submission whose src/mcp.ts is the reference with `prelude` run first and `replace` applied. */
export function submission(prelude: string, replace: [string, string][] = [], extra: Record<string, string> = {}): string {
  let source = REFERENCE;
  for (const [from, to] of replace) {
    if (!source.includes(from)) throw new Error(`the reference has no "${from}"`);
    source = source.replace(from, to);
  }
  return folder({ 'src/mcp.ts': `${prelude}\n${source}`, ...extra });
}

export function cleanUp(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export interface CiRun extends CliRun {
  /** The TMPDIR the run was given: empty again afterwards if the run cleaned up after itself. */
  tmp: string;
  report?: ResultsReport;
}

/** `theinference <args>` with a TMPDIR of its own; `--report` is added (and read) unless `report: false`. */
export async function runCi(args: string[], options: { report?: boolean; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CiRun> {
  const tmp = folder({});
  const runTmp = join(tmp, 'run');
  mkdirSync(runTmp);
  const reportPath = join(tmp, 'results.json');
  const withReport = options.report === false ? args : [...args, '--report', reportPath];
  const run = await runCli(withReport, { cwd: options.cwd, env: { TMPDIR: runTmp, ...options.env } });
  let report: ResultsReport | undefined;
  try {
    report = JSON.parse(readFileSync(reportPath, 'utf8')) as ResultsReport;
  } catch {
    report = undefined;
  }
  return { ...run, tmp: runTmp, report };
}

/** Processes still running whose environment carries this TMPDIR. */
export function leftBehind(tmp: string): Promise<number[]> {
  const needle = `TMPDIR=${tmp}`;
  return stillRunning((pid) => readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(needle));
}

/** Processes still running (zombies are gone in all but name) for which `matches` holds. One that has
 *  a SIGKILL waiting, or is exiting, is gone: the kernel ends it when it next runs it, which on a loaded
 *  machine may be a while. */
export async function stillRunning(matches: (pid: string) => boolean): Promise<number[]> {
  const find = () =>
    readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return !ending(pid) && matches(pid);
        } catch {
          return false;
        }
      })
      .map(Number);
  // what was killed an instant ago may not show its kill yet
  for (let attempt = 0; attempt < 20 && find().length > 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
  return find();
}

/** A zombie, a process exiting (PF_EXITING in its flags), or one a SIGKILL is waiting for. */
function ending(pid: string): boolean {
  const fields = /^\d+ \(.*\) (.*)$/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))![1]!.split(' ');
  if (fields[0] === 'Z' || (Number(fields[6]) & 0x4) !== 0) return true;
  const pending = /^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm;
  const SIGKILL = 1n << 8n;
  return [...readFileSync(`/proc/${pid}/status`, 'utf8').matchAll(pending)].some(([, mask]) => (BigInt(`0x${mask}`) & SIGKILL) !== 0n);
}

/** What the run left in its TMPDIR of its own making (scratch copies, generated expected outputs). */
export function leftInTmp(tmp: string): string[] {
  return readdirSync(tmp).filter((name) => name.startsWith('theinference-'));
}

export function checks(report: ResultsReport | undefined) {
  if (!report) throw new Error('the run wrote no report');
  return report.stages.flatMap((stage) => stage.checks);
}

/** Stage 1 only, few property runs: the limits tests need the processes, not the coverage. */
export const QUICK = ['test', '--stage', 'config-and-framing', '--runs', '20', '--seed', '3'];
