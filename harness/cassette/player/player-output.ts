// How a face and the player meet: the pieces of the server's bytes the player puts out (and what
// separates them), where they go, when a client message arrived, and the player's options.
import type { Diagnosis } from '../../exchange/diagnosis.ts';
import type { JsonObject, ServerFrame, SseFrame } from '../format/model.ts';

/** How bytes leave the player: `then` says what separates them from the next piece. */
export interface Piece {
  /** Text, or raw bytes when a read ends inside a multi-byte character. */
  bytes: string | Uint8Array;
  /** write: a write of its own; glue: the next piece joins this write; pause: the reader must see a separate read. */
  after: 'write' | 'glue' | 'pause';
  /** The answer to initialize: a face may hold it back a moment, so that a client that does not wait for it shows. */
  initializeResult?: boolean;
  /** On the first piece of a server message: the message as sent (ids mapped to the live client's)
   *  and the recorded frame it plays (none for the player's own error replies), for a face that
   *  frames messages its own way (HTTP). `status`: the HTTP status the player's own answer goes
   *  with, where a real server answers it with an error status (a stateless server's 400). */
  from?: { message: JsonObject; frame?: ServerFrame; status?: number };
}

/** When a client message arrived, as the face that carried it saw it. */
export interface Arrival {
  /** The initialize result had not been written yet. */
  beforeInitializeResult?: boolean;
}

export interface PlayerOutput {
  write(piece: Piece): void;
  /** A line the recorded server wrote on stderr. */
  stderr?(line: string): void;
  /** Called as each kept diagnosis happens (the report has them at the end too, and counts the rest). */
  diagnose?(diagnosis: Diagnosis): void;
  /** The player reads nothing more from this client (it wrote a line too long to hold): stop the input. */
  cut?(): void;
  /** An HTTP stream event that carries no message (a priming event, a keep-alive), at its place; a
   *  byte-stream face has nowhere to put it. */
  sse?(frame: SseFrame): void;
  /** The face holds as much as it should (a stream the client reads slower than it is written): the
   *  player puts out nothing more until `resume()`, and the face hands over no client message until then. */
  full?(): boolean;
}

export interface PlayerOptions {
  /** Check the client's messages against the MCP schema (default true). */
  validate?: boolean;
}
