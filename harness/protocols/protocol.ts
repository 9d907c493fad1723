// A protocol plug-in, as grading and the commands see it (one folder of harness/protocols/ each).
import type { KindRow } from '../exchange/rows.ts';
import type { Transport } from '../transports/transport.ts';

export interface Protocol<Recording = unknown> {
  /** Reads an endpoint's recording; an unusable one throws an InputError that names its file, line
   *  and what was expected. */
  load(path: string): Recording;
  /** The transports it plays on, by the name course.yaml gives them. */
  transports: Readonly<Record<string, Transport<Recording>>>;
  /** What its players can say of a client: a row per diagnosis kind (each also registered with the
   *  exchange core's DiagnosisKinds, by its table's module). */
  kinds: Readonly<Record<string, KindRow>>;
  /** What is unsound in a recording (`theinference lint`'s findings), each at its line when it has one. */
  lint?(recording: Recording): Promise<{ line?: number; message: string }[]>;
}
