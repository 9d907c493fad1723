// The player behind an in-memory wire, for unit tests: the same shape as the course's `Wire`
// (write strings, read chunks), no process and no pipe. Each chunk the player emits is one item.
import type { PlayReport } from '../../exchange/diagnosis.ts';
import { StringDecoder } from 'node:string_decoder';
import type { Cassette } from '../format/model.ts';
import { Player } from './player.ts';
import type { FaceOptions, PlayerSession } from './session.ts';

export interface MemoryWire {
  write(data: string): void;
  readonly chunks: AsyncIterable<string>;
  close(): void;
}

export function createMemoryWire(cassette: Cassette, options: FaceOptions = {}): { wire: MemoryWire; session: PlayerSession } {
  const ready: string[] = [];
  let glued = '';
  let ended = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  const decoder = new StringDecoder('utf8');
  const player = new Player(
    cassette,
    {
      write(piece) {
        if (piece.after === 'glue') {
          glued += typeof piece.bytes === 'string' ? decoder.end() + piece.bytes : decoder.write(piece.bytes);
          return;
        }
        // Bytes cut inside a character: the character is completed in the next chunk (strings cannot hold half of one).
        const text = glued + (typeof piece.bytes === 'string' ? decoder.end() + piece.bytes : decoder.write(piece.bytes));
        glued = '';
        if (text === '') return;
        ready.push(text);
        signal();
      },
      stderr: (line) => options.onStderr?.(line),
      diagnose: (diagnosis) => options.onDiagnosis?.(diagnosis),
    },
    options,
  );
  let resolveDone!: (report: PlayReport) => void;
  const done = new Promise<PlayReport>((resolve) => (resolveDone = resolve));
  const finish = (): PlayReport => {
    const report = player.finish();
    if (glued !== '') ready.push(glued);
    glued = '';
    ended = true;
    signal();
    resolveDone(report);
    return report;
  };
  const wire: MemoryWire = {
    write(data) {
      if (ended) throw new Error('write after close');
      player.receiveChunk(data);
    },
    chunks: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (ready.length > 0) yield ready.shift()!;
          else if (ended) return;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
    close() {
      player.endOfInput();
      void player.validated().then(finish);
    },
  };
  player.start();
  return {
    wire,
    session: {
      done,
      finish,
      get diagnoses() {
        return player.diagnoses;
      },
      waitsForClient: () => !ended && player.expecting !== undefined && ready.length === 0 && glued === '',
    },
  };
}
