// `--no-network` without a sandbox: each case's program starts in a network namespace of its own, with only a
// loopback of its own, so that it can reach nothing. Linux only, through util-linux's
// `unshare`: as root directly, otherwise with a user namespace (which some distributions
// restrict). Checked once before grading, so that a machine that cannot do it says so at once.
import { spawnSync } from 'node:child_process';
import { HostError } from '../errors.ts';

/** An invocation: what to start, its arguments, and how it is given the rest (its options fd, variables). */
export interface Invocation {
  command: string;
  args: string[];
  /** Arguments it reads on fd ARGS_FD (spawn.ts), NUL-terminated, kept off its command line. */
  argsFd?: string;
  /** Variables set over the environment it is given. */
  env?: Record<string, string>;
  /** Run once its run has ended: removes what was made for this one start (a case's input folder). */
  cleanup?: () => void;
  /** Run just before the program runs (one started ahead: at its go, its bundle written since it
   *  started): what it is shown of the run root is brought up to date, and `own`, files of the run root
   *  made for it alone (its case's gate), are shown to it (sandbox.ts's withRunRoot). */
  update?: (own?: readonly string[]) => void;
}

const LOOPBACK_UP = 'ip link set lo up 2>/dev/null; exec "$@"';

function unshareArgs(): string[] {
  const root = process.getuid?.() === 0;
  return root ? ['--net'] : ['--net', '--map-root-user'];
}

/** A wrapper that starts a launcher's program without network; throws a HostError when this machine cannot. */
export function withoutNetwork(): (start: Invocation) => Invocation {
  const args = unshareArgs();
  const probe = spawnSync('unshare', [...args, '--', 'true'], { encoding: 'utf8', timeout: 5000 });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? ((probe.error as NodeJS.ErrnoException).code ?? probe.error.message) : probe.stderr.trim().split('\n')[0];
    throw new HostError(
      `--no-network: cannot start a program without network here (unshare ${args.join(' ')}: ${why}); see docs/ci.md for the CI platforms' own ways`,
    );
  }
  // Its loopback up, where `ip` is there to do it (it reaches nothing but the namespace itself): a program of
  // an HTTP stage reaches the grader's player through a port on it that program.ts relays.
  return (start) => ({ command: 'unshare', args: [...args, '--', 'sh', '-c', LOOPBACK_UP, 'sh', start.command, ...start.args] });
}
