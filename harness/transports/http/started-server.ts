// A server `record --http <url> -- <command>` starts itself: in a process group of its own (a signal
// reaches whatever the command started: npx, a shell), with PORT in its environment, ready once its
// URL's port takes a connection, and stopped when the recording has ended. What it prints is relayed
// as `[server] <line>`.
import { spawn } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';

export interface StartedServer {
  /** Its URL: the one given, with the port record picked for it when that was 0. */
  url: URL;
  /** SIGTERM to its group, SIGKILL to it after KILL_GRACE_MS; resolves once it has exited. */
  stop(): Promise<void>;
}

/** How often the port is tried while the server is starting (it is alive: nothing is late). */
const POLL_MS = 100;
/** How long a server has between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

/** Starts `command` for `url`; rejects, with the server stopped, when it cannot start or exits before it listens. */
export async function startServer(
  command: string[],
  url: URL,
  options: { cwd: string; env: NodeJS.ProcessEnv; log: (line: string) => void },
): Promise<StartedServer> {
  const at = new URL(url);
  if (at.port === '0') at.port = String(await freePort(at.hostname));
  const port = Number(at.port || (at.protocol === 'https:' ? 443 : 80));
  // what answers there must be the server started here, not one already running
  if (await accepts(at.hostname, port))
    throw new Error(`something already listens at ${at.origin}: record starts the server itself; give a port that is free (0 picks one)`);
  const group = process.platform !== 'win32';
  const child = spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: { ...options.env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: group,
  });
  for (const stream of [child.stdout, child.stderr]) createInterface({ input: stream }).on('line', (line) => options.log(`[server] ${line}`));
  let failed: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'ENOENT' ? 'no such command' : error.code === 'EACCES' ? 'not executable' : error.message;
      failed = `cannot start the server command ${JSON.stringify(command[0])}: ${why}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      failed ??= `the server exited (${signal ?? `code ${code}`}) before it listened at ${at.origin}`;
      resolve();
    });
  });
  const signal = (name: NodeJS.Signals) => {
    try {
      if (group && child.pid !== undefined) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      // already gone
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      signal('SIGTERM');
      const grace = setTimeout(() => signal('SIGKILL'), KILL_GRACE_MS);
      await exited;
      clearTimeout(grace);
    })());
  while (!(await accepts(at.hostname, port))) {
    if (failed !== undefined) break;
    await Promise.race([sleep(POLL_MS), exited]);
  }
  if (failed !== undefined) {
    await stop();
    throw new Error(failed);
  }
  return { url: at, stop };
}

/** Whether something listens on host:port right now. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: host.replace(/^\[|\]$/g, ''), port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port nobody listens on right now on `host` (the OS's pick, released at once). */
function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host.replace(/^\[|\]$/g, ''), () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
