// What the rest of theinference uses of the cassette engine; everything else in this folder is detail.
export type { Diagnosis, DiagnosisKind, PlayReport, RecordedRef } from './player/diagnosis.ts';
export { formatDiagnosis, formatDiagnoses } from './player/diagnosis.ts';
export { CassetteError, loadCassette, parseCassette } from './format/format.ts';
export { saveCassette } from './format/save.ts';
export type { MemoryWire } from './player/memory-wire.ts';
export { createMemoryWire } from './player/memory-wire.ts';
export type { AuthFrame, Cassette, ClientFrame, Frame, Json, JsonObject, Provenance } from './format/model.ts';
export type { FaceOptions, PlayerSession } from './player/session.ts';
/** Awaiting this once before grading makes every schema check synchronous (no check can miss a report). */
export { loadSchemas } from './player/schema.ts';
