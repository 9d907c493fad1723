// MCP's diagnosis kinds (what the cassette player says a client did wrong), one row each, joined from
// the tables of the protocol's areas (every protocol's are joined in protocols/index.ts). The row is the kind's whole declaration: the type of kinds,
// the rule and level, the hint, whether the server refuses it, the docs' rows (scripts/docs-kinds.ts).
import { AUTHORIZATION_KINDS } from './authorization.ts';
import { HTTP_KINDS } from './http.ts';
import type { DiagnosisKind } from '../../exchange/diagnosis.ts';
import { isAdviceRow, type KindRow } from '../../exchange/rows.ts';
import { SESSION_KINDS } from './session.ts';
import { STATELESS_KINDS } from './stateless.ts';

export { COURSE, type KindRow, type Rule, type RuleLevel } from '../../exchange/rows.ts';

// In this order the docs list the kinds, and a case shows their hints (grade/hints.ts).
const JOINED = { ...SESSION_KINDS, ...HTTP_KINDS, ...AUTHORIZATION_KINDS, ...STATELESS_KINDS };

/** MCP's kinds, registered with the exchange core (exchange/diagnosis.ts), which names none itself. */
type Joined = { [Kind in keyof typeof JOINED]: KindRow };
declare module '../../exchange/diagnosis.ts' {
  interface DiagnosisKinds extends Joined {}
}

export type { DiagnosisKind } from '../../exchange/diagnosis.ts';

/** Each MCP kind's row. */
export const MCP_KINDS: Readonly<Record<keyof typeof JOINED, KindRow>> = JOINED;

/** Whether a diagnosis of an MCP kind fails its case or is advice. */
export function isAdvice(kind: DiagnosisKind): boolean {
  return isAdviceRow((MCP_KINDS as Readonly<Record<string, KindRow>>)[kind]!);
}
