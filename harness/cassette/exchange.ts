// The exchange of one played session, message by message, as a sequence diagram draws it: who
// sent what, in order, what the recording expected where the client spoke, and where the client
// first strayed. Plain data (it crosses into results.json and the HTML report); bounded.
import type { DiagnosisKind } from './diagnosis.ts';
import type { Json } from './model.ts';

export interface ExchangeStep {
  from: 'client' | 'server';
  /** A JSON-RPC request, notification or response; `line`: a line that is not a JSON-RPC message. */
  kind: 'request' | 'notification' | 'response' | 'line';
  method?: string;
  id?: Json;
  /** What went over the wire: the parsed message, or the text (clipped) when it is not JSON or too big to keep. */
  message: Json;
  /** For a client message: the recorded client message the player expected at this point. */
  recorded?: Json;
  /** For a client message the player objected to: the diagnosis it caused. */
  diagnosis?: { kind: DiagnosisKind; message: string };
}

export interface Exchange {
  /** The first steps, in the order they went over the wire. */
  steps: ExchangeStep[];
  /** How many more steps there were, counted and not kept. */
  more: number;
}
