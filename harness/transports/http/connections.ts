// The connections a server of the grader holds for a case's program (the player, the gate). Once the
// program has exited, none is opened again: when every one is closed, all it sent has been read and
// handled (a server reads a request whole before its connection closes), so its session can end at
// once rather than after the grace that covers a grader too loaded to have read it yet.
import type { Socket } from 'node:net';

export class OpenConnections {
  private readonly open = new Set<Socket>();
  private readonly waiting: (() => void)[] = [];

  add(socket: Socket): void {
    this.open.add(socket);
    socket.once('close', () => {
      this.open.delete(socket);
      this.wake();
    });
  }

  /** Resolves once none is open. Asked after the program exited: a connection it made just before is
   *  accepted in the same turn of the event loop as its exit was seen, so the check waits for that turn's end. */
  allClosed(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      setImmediate(() => this.wake());
    });
  }

  private wake(): void {
    if (this.open.size > 0) return;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}
