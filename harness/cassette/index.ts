// What the rest of theinference uses of the cassette engine, its one entry: harness code outside this
// folder imports it from here (a lazy import() of what a command runs may name its module). Inside:
// format/ (the model, reading, saving, lint, placeholders), matching/, player/, recording/, kinds/.
// loadSchemas (player/schema.ts): awaiting it once before grading makes every schema check synchronous.
export { CassetteError, loadCassette, parseCassette } from './format/format.ts';
export type { Fail } from './format/format.ts';
export { CASSETTE_VERSION, compactLine, describeMessage, isObject, kindOf } from './format/model.ts';
export type {
  AuthFrame,
  AuthReply,
  AuthRequest,
  Cassette,
  ClientFrame,
  Frame,
  Headers,
  HttpPlacement,
  HttpReply,
  HttpSession,
  Json,
  JsonObject,
  Provenance,
} from './format/model.ts';
export { AUTHORIZATION_SERVER, MCP_SERVER, PLACEHOLDERS, UNPRINTABLE_ROLES, byRole, hasPlaceholder, roleOf, roleOfField } from './format/placeholders.ts';
export type { RoleSecret } from './format/placeholders.ts';
export { countDifferences, FreePaths, firstDifference, formatPath, getAt, parsePath } from '../exchange/json-path.ts';
export type { MatchDifference, Segment } from '../exchange/json-path.ts';
export { saveCassette } from './format/save.ts';
export { COURSE, isAdvice, MCP_KINDS } from './kinds/index.ts';
export type { KindRow } from './kinds/index.ts';
export { readClientLine } from './player/client-line.ts';
export { formatDiagnoses, formatDiagnosis, moreDiagnosesLine } from '../exchange/diagnosis.ts';
export type { Diagnosis, DiagnosisKind, PlayReport, RecordedRef } from '../exchange/diagnosis.ts';
export { ExchangeLog, exchangeStep, transportStep, keptMessage, responseOutcome, statusLine } from './player/exchange.ts';
export type { Exchange, ExchangeStep } from './player/exchange.ts';
export { LineSplitter } from '../exchange/lines.ts';
export { KeptDiagnoses } from '../exchange/kept.ts';
export { createMemoryWire } from './player/memory-wire.ts';
export type { MemoryWire } from './player/memory-wire.ts';
export type { Piece } from './player/player-output.ts';
export { Player } from './player/player.ts';
export { loadSchemas } from './player/schema.ts';
export type { FaceOptions, PlayerSession } from './player/session.ts';
export {
  META_CAPABILITIES,
  META_VERSION,
  headerMismatch,
  isSessionless,
  isStatelessMessage,
  lacksRequiredMeta,
  metaOf,
  paramHeaders,
  speaksStateless,
} from './player/stateless.ts';
export type { MirrorHeaders, ParamHeader } from './player/stateless.ts';
export { carryOverHttp } from './recording/normalise.ts';
export { DEFAULT_FREE, Recording, targetProblem } from './recording/recording.ts';
export type { Written } from './recording/recording.ts';
export { Redactor, secretsFromCommand, secretsFromEnv } from './recording/redact.ts';
export type { Secret } from './recording/redact.ts';
export type { ScriptOAuth, SessionScript } from './recording/script.ts';
export { expandEnv, prepareSetup } from './recording/setup.ts';
export type { Setup } from './recording/setup.ts';
export { parseOrUndefined, playClientSide } from './recording/verify.ts';
export type { Drift, Heard, Link, VerifyOptions } from './recording/verify.ts';
export { OUTPUT_RULES } from './rules.ts';
