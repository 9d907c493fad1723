// What the rest of theinference uses of the cassette engine; everything else in this folder is detail.
export type { Diagnosis, DiagnosisKind, PlayReport, RecordedRef } from './diagnosis.ts';
export { formatDiagnosis, formatDiagnoses } from './diagnosis.ts';
export { CassetteError, loadCassette, parseCassette } from './format.ts';
export { saveCassette } from './save.ts';
export type { MemoryWire } from './memory-wire.ts';
export { createMemoryWire } from './memory-wire.ts';
export type { AuthFrame, Cassette, ClientFrame, Frame, Json, JsonObject, Provenance } from './model.ts';
export type { FaceOptions, PlayerSession } from './session.ts';
/** Awaiting this once before grading makes every schema check synchronous (no check can miss a report). */
export { loadSchemas } from './schema.ts';
