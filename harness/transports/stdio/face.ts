// The player attached to byte streams: a Duplex the grader owns (a socket, a child's extra stdio
// pipe), or stdin/stdout for the stdio server. Chunks that must reach the reader as separate
// reads are written one at a time, each after the previous one was flushed and a short gap.
import type { Duplex, Readable, Writable } from 'node:stream';
import { Player, type Cassette, type FaceOptions, type Piece, type PlayReport, type PlayerSession } from '../../cassette/index.ts';

/** How long the initialize result is held back: long enough that a client which sends
 *  notifications/initialized (or anything but ping) without waiting for it is seen to, even when
 *  a loaded machine preempts it between its two writes (20 ms let one through, with both cores busy). */
export const INITIALIZE_HOLD_MS = 50;

export interface StreamFaceOptions extends FaceOptions {
  /** Milliseconds the initialize result is held back (default INITIALIZE_HOLD_MS). */
  initializeHoldMs?: number;
  /** End the output once the session is over and everything is written (default true). */
  endOutput?: boolean;
}

/** The player on one duplex byte stream: reads the client's bytes from it, writes the server's into it. */
export function attachPlayer(cassette: Cassette, stream: Duplex, options: StreamFaceOptions = {}): PlayerSession {
  return attachStreams(cassette, stream, stream, options);
}

export function attachStreams(cassette: Cassette, input: Readable, output: Writable, options: StreamFaceOptions = {}): PlayerSession {
  const writer = new PacedWriter(output, options.chunkGapMs ?? 10, options.initializeHoldMs ?? INITIALIZE_HOLD_MS);
  const player = new Player(
    cassette,
    {
      write: (piece) => writer.push(piece),
      stderr: (line) => options.onStderr?.(line),
      diagnose: (diagnosis) => options.onDiagnosis?.(diagnosis),
      cut: () => input.destroy(),
    },
    options,
  );
  let resolveDone!: (report: PlayReport) => void;
  const done = new Promise<PlayReport>((resolve) => (resolveDone = resolve));
  const onData = (chunk: string) => player.receiveChunk(chunk, () => ({ beforeInitializeResult: writer.holding() }));
  let report: PlayReport | undefined;
  const finish = (): PlayReport => {
    if (report) return report;
    player.endOfInput();
    report = player.finish();
    return settle(report);
  };
  /** The client closed its side: the report waits for the schema check of what it sent. */
  const closed = () => {
    if (report) return;
    player.endOfInput();
    void player.validated().then(() => {
      if (!report) settle((report = player.finish()));
    });
  };
  const settle = (report: PlayReport): PlayReport => {
    input.off('data', onData);
    const finalReport = report;
    void writer.drained().then(() => {
      if (options.endOutput !== false && !output.destroyed) output.end();
      resolveDone(finalReport);
    });
    return report;
  };
  input.setEncoding('utf8');
  input.on('data', onData);
  input.once('end', closed);
  input.once('close', closed);
  input.on('error', closed); // the client vanished: what it sent so far is what it sent
  output.on('error', () => writer.broken());
  player.start();
  return {
    done,
    finish,
    get diagnoses() {
      return player.diagnoses;
    },
    waitsForClient: () => report === undefined && player.expecting !== undefined && !player.paused && !writer.sending(),
  };
}

/** Writes pieces in order; a `pause` piece is followed by a drain and a gap so that it is read on its own. */
class PacedWriter {
  private queue: { bytes: string | Uint8Array; pause: boolean; hold: boolean }[] = [];
  /** Held pieces queued or waiting out their hold. */
  private held = 0;
  private glued: string | Uint8Array = '';
  private busy = false;
  private dead = false;
  private idle: (() => void)[] = [];

  constructor(
    private readonly output: Writable,
    private readonly gapMs: number,
    private readonly holdMs: number,
  ) {}

  /** An initialize result is still held back. */
  holding(): boolean {
    return this.held > 0;
  }

  /** Pieces are queued, waiting out a gap or a hold, or glued to the next one. */
  sending(): boolean {
    return this.busy || this.glued.length > 0;
  }

  push(piece: Piece): void {
    if (this.dead) return;
    const bytes = join(this.glued, piece.bytes);
    this.glued = '';
    if (piece.after === 'glue') {
      this.glued = bytes;
      return;
    }
    const hold = piece.initializeResult === true && this.holdMs > 0;
    if (!this.busy && piece.after === 'write' && !hold) {
      this.output.write(bytes);
      return;
    }
    if (hold) this.held += 1;
    this.queue.push({ bytes, pause: piece.after === 'pause', hold });
    if (!this.busy) void this.pump();
  }

  broken(): void {
    this.dead = true;
    this.queue = [];
  }

  /** Resolves once every piece pushed so far has been handed to the stream. */
  drained(): Promise<void> {
    if (this.glued.length > 0) {
      this.push({ bytes: '', after: 'write' });
    }
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  private async pump(): Promise<void> {
    this.busy = true;
    while (this.queue.length > 0 && !this.dead) {
      const { bytes, pause, hold } = this.queue.shift()!;
      if (hold) {
        await new Promise((resolve) => setTimeout(resolve, this.holdMs));
        // After the timers comes the poll for I/O, then setImmediate: whatever the client sent while
        // the grader was busy is read (and judged early) before the held result goes out.
        await new Promise((resolve) => setImmediate(resolve));
      }
      await new Promise<void>((resolve) => this.output.write(bytes, () => resolve()));
      if (hold) this.held -= 1;
      if (pause) await new Promise((resolve) => setTimeout(resolve, this.gapMs));
    }
    this.busy = false;
    for (const resolve of this.idle.splice(0)) resolve();
  }
}

function join(a: string | Uint8Array, b: string | Uint8Array): string | Uint8Array {
  if (a.length === 0) return b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  return Buffer.concat([Buffer.from(a), Buffer.from(b)]);
}
