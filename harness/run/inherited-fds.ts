// The file descriptors a grader was started with beyond stdin, stdout and stderr: a lock file held
// open around the command (flock(1)'s idiom, `200>lock`), a CI runner's own pipes. A child process
// inherits every fd that is not marked close-on-exec, and neither Node's spawn (it sets only the fds
// it is given) nor bubblewrap (it passes the rest on to the program) closes one: a sandboxed program
// could read the host's file through it. Node and libuv mark every fd they open close-on-exec, so an fd
// without the mark was inherited; the grader never uses one (it writes its reports by a rename, never
// to /dev/fd/N), and closes them all before it starts a program. Linux: where there is no
// /proc/self/fdinfo there is no sandbox either, and nothing is closed.
import { closeSync, readdirSync, readFileSync } from 'node:fs';

/** The close-on-exec bit of the flags /proc/self/fdinfo shows (octal). */
const O_CLOEXEC = 0o2000000;

let closed = false;

/** Closes, once per process, every fd above 2 it inherited without close-on-exec; never the channel a
 *  parent Node process talks to it on (a vitest worker's, a forked grader's). */
export function closeInheritedFds(): void {
  if (closed) return;
  closed = true;
  let fds: string[];
  try {
    fds = readdirSync('/proc/self/fd');
  } catch {
    return;
  }
  const channel = (process.channel as { fd?: number } | undefined)?.fd;
  for (const name of fds) {
    const fd = Number(name);
    if (fd <= 2 || fd === channel || !inheritable(fd)) continue;
    try {
      closeSync(fd);
    } catch {
      // closed meanwhile
    }
  }
}

/** Whether an open fd lacks close-on-exec; false when it cannot be told (it was the listing's own fd, now closed). */
function inheritable(fd: number): boolean {
  try {
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1'))?.[1];
    return flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0;
  } catch {
    return false;
  }
}
