// A toy transport, to show what a new one takes: this folder and one entry in a transports table.
// The program gets the wire on its fd 3, as on stdio, and the grader's end of it is an in-memory
// pipe into the player (the engine's memory wire) instead of the stdio face.
import type { Duplex } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createMemoryWire } from '../../../harness/cassette/player/memory-wire.ts';
import type { PlayerSession } from '../../../harness/cassette/player/session.ts';
import type { Transport } from '../../../harness/transports/transport.ts';

/** How many sessions it played: a test sees that the case ran on it. */
export const played = { sessions: 0 };

export const memoryPipe: Transport = {
  program: { wire: true, env: { THEINFERENCE_WIRE_FD: '3' } },
  async open(cassette) {
    let session: PlayerSession | undefined;
    return {
      wiring: {
        onWire: (pipe: Duplex) => {
          played.sessions += 1;
          const memory = createMemoryWire(cassette);
          session = memory.session;
          const text = new StringDecoder('utf8');
          pipe.on('data', (chunk: Buffer) => memory.wire.write(text.write(chunk)));
          pipe.on('end', () => memory.wire.close());
          pipe.on('error', () => memory.wire.close());
          void (async () => {
            for await (const chunk of memory.wire.chunks) pipe.write(chunk);
            pipe.end();
          })();
        },
        waitedOn: () => session?.waitsForClient() === true,
      },
      settle: async (graced) => {
        const ended = session as PlayerSession | undefined;
        return ended ? { report: await graced(ended) } : {};
      },
      close: async () => {},
    };
  },
  closing: 'over the memory pipe, close() ends the wire, then waits for the server to end its side',
};
