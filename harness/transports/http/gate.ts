// A program graded without network (`--no-network`) has a loopback of its own and cannot reach the
// HTTP player on the grader's 127.0.0.1. It reaches it through a Unix socket instead, in the grader's
// folder of sockets (sockets.ts): this gate listens there and passes each connection on to the
// player's port, byte for byte (program.ts offers the student's client a port on its own loopback and
// relays it here). A sandbox shows its program its own case's gate alone; a program without one
// (`--no-network --no-sandbox`) sees them all, so a connection must open with the case's token: no
// program can reach another case's player.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { OpenConnections } from './connections.ts';

export interface PlayerGate {
  /** The socket's path. */
  readonly path: string;
  /** What a connection sends first, followed by "\n". */
  readonly token: string;
  close(): Promise<void>;
  /** Resolves once no connection through the gate is open, on either side (to the program, to the player). */
  allClosed(): Promise<void>;
}

/** As many connections as the player itself holds (face.ts). */
const MAX_CONNECTIONS = 32;

/** Opens the gate at `path` (a stale file there is replaced) to the player listening on 127.0.0.1:`port`. */
export async function openGate(path: string, port: number): Promise<PlayerGate> {
  const token = randomBytes(16).toString('hex');
  const open = new Set<Socket>();
  const connections = new OpenConnections();
  const gate = createServer({ allowHalfOpen: true }, (client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    connections.add(client);
    admit(client, token, port, (player) => connections.add(player));
  });
  gate.maxConnections = MAX_CONNECTIONS;
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => gate.once('error', reject).listen(path, resolve));
  return {
    path,
    token,
    close: () =>
      new Promise((resolve) => {
        gate.close(() => resolve()); // and the socket file goes with it
        for (const client of open) client.destroy();
      }),
    allClosed: () => connections.allClosed(),
  };
}

/** The token line first; then everything after it, both ways, to the player. */
function admit(client: Socket, token: string, port: number, onPlayer: (player: Socket) => void): void {
  let head = Buffer.alloc(0);
  client.on('error', () => client.destroy());
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(0x0a);
    if (end < 0) {
      if (head.length > token.length) client.destroy();
      return;
    }
    client.off('data', onData);
    if (head.subarray(0, end).toString('latin1') !== token) return void client.destroy();
    // Each side's end is passed on (pipe), and what it still had to say with it: half-open both ways.
    // noDelay: each read passed on as it comes, as program.ts's relay does (it says why)
    const player = connect({ port, host: '127.0.0.1', allowHalfOpen: true, noDelay: true });
    onPlayer(player);
    player.on('error', () => client.destroy());
    client.on('error', () => player.destroy());
    if (end + 1 < head.length) player.write(head.subarray(end + 1));
    client.pipe(player);
    player.pipe(client);
  };
  client.on('data', onData);
}
