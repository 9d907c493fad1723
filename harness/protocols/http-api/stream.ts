// A recorded event stream as bytes on the wire: each event as a server writes it (`event:` and one
// `data:` line, then the blank line), cut where the recording says into separate writes.
import { formatSseEvent } from '../../transports/http/sse.ts';
import type { RecordedEvent } from './model.ts';

/** The bytes of one event: the data's exact text where the recording gives it, else its compact JSON. */
export function formatEvent(event: RecordedEvent): string {
  return formatSseEvent({ event: event.event }, event.text ?? JSON.stringify(event.data));
}

/** The writes an event goes out in: its bytes cut at its `cuts` (inside a character, too). */
export function eventWrites(event: RecordedEvent): Buffer[] {
  const bytes = Buffer.from(formatEvent(event));
  const bounds = [0, ...(event.cuts ?? []), bytes.length];
  const writes: Buffer[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) writes.push(bytes.subarray(bounds[i], bounds[i + 1]));
  return writes;
}
