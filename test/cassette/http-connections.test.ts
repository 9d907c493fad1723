// An HTTP case's session ends as soon as the program has exited and every connection it made is
// closed, through the gate and at the player: by then all it sent has been read. Here the player
// reads nothing until the test lets it, well after the program is gone: the end must wait for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OpenConnections } from '../../harness/transports/http/connections.ts';
import { openGate } from '../../harness/transports/http/gate.ts';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A player on 127.0.0.1 that reads nothing of a connection until `release()`, then all of it. */
async function heldPlayer() {
  const received: Buffer[] = [];
  const connections = new OpenConnections();
  let released = false;
  const held: Socket[] = [];
  const release = () => {
    released = true;
    for (const socket of held.splice(0)) socket.resume();
  };
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    if (!released) {
      socket.pause();
      held.push(socket);
    }
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('end', () => socket.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => {
    release(); // a failed assertion left it holding: let it read and end
    return new Promise((resolve) => server.close(resolve));
  });
  return { port: (server.address() as { port: number }).port, connections, release, received: () => Buffer.concat(received).toString() };
}

describe('the connections of an HTTP case', () => {
  it('are all closed only once the player has read all the program sent through the gate, however late it reads', async () => {
    const player = await heldPlayer();
    const folder = mkdtempSync(join(tmpdir(), 'gate-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const gate = await openGate(join(folder, 'player.sock'), player.port);
    cleanups.push(() => gate.close());

    const body = 'POST /mcp HTTP/1.1\r\n'.repeat(2000); // more than one read
    const program: Socket = connect(gate.path);
    await new Promise<void>((resolve) => program.once('connect', resolve));
    // the program exits once its bytes are with the kernel: its end of the connection is gone at once
    await new Promise<void>((resolve) => program.end(`${gate.token}\n${body}`, resolve));
    program.destroy();

    let ended = false;
    const arrived = (async () => {
      await gate.allClosed();
      await player.connections.allClosed();
      ended = true;
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ended).toBe(false); // the player has read nothing yet, however long that took
    player.release();
    await arrived;
    expect(player.received()).toBe(body);
  });

  it('pass each write on as it comes: one is not held behind the last until the player acknowledges it (Nagle)', async () => {
    // A client's kernel delays its ACK (40 ms and more) on a connection that has gone back and forth, as
    // an HTTP client's kept-alive one has; a relay with Nagle's algorithm holds a small write until then,
    // and what the program wrote later on another connection gets there first.
    const arrived: string[] = [];
    const waiters: [string, () => void][] = [];
    const accepted: Socket[] = [];
    const server = createServer({ allowHalfOpen: true }, (socket) => {
      accepted.push(socket);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        for (const piece of chunk.match(/[a-z]+\d*;/g) ?? []) {
          arrived.push(piece);
          if (piece.startsWith('ping')) socket.write('ok;');
          for (const [wanted, resolve] of waiters) if (wanted === piece) resolve();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of accepted) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    });
    const heard = (piece: string) => new Promise<void>((resolve) => (arrived.includes(piece) ? resolve() : waiters.push([piece, resolve])));
    const folder = mkdtempSync(join(tmpdir(), 'gate-'));
    cleanups.push(() => rmSync(folder, { recursive: true, force: true }));
    const gate = await openGate(join(folder, 'player.sock'), (server.address() as { port: number }).port);
    cleanups.push(() => gate.close());
    const through = async (first: string) => {
      const socket = connect(gate.path);
      cleanups.push(() => socket.destroy());
      socket.write(`${gate.token}\n${first}`);
      await heard(first);
      return socket;
    };

    const kept = await through('open;');
    for (let round = 1; round <= 5; round++) {
      const answered = new Promise((resolve) => kept.once('data', resolve));
      kept.write(`ping${round};`);
      await answered;
    }
    const other = await through('other;');
    kept.write('event1;');
    await heard('event1;');
    kept.write('event2;');
    other.write('later;');
    await Promise.all([heard('event2;'), heard('later;')]);
    expect(arrived.slice(-2)).toEqual(['event2;', 'later;']);
  });

  it('resolves at once where none was ever opened', async () => {
    await expect(new OpenConnections().allClosed()).resolves.toBeUndefined();
  });
});
