// The client's messages held to the MCP schema of the version the session speaks. The schemas load
// once, in the background: a message that comes before they are there is checked when they are, and
// the player waits for those checks (done) before it reports.
import { clip } from '../../terminal-text.ts';
import type { DiagnosisKind } from '../../exchange/diagnosis.ts';
import type { ExchangeStep } from './exchange.ts';
import type { Json, JsonObject } from '../format/model.ts';
import type { Fields } from '../../exchange/kept.ts';
import { describeMessage } from './player-words.ts';
import { checkClientMessage, loadSchemas, PENDING } from './schema.ts';

export class SchemaChecks {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly diagnose: (kind: DiagnosisKind, message: () => string, fields: Fields, step: ExchangeStep | undefined) => void) {}

  /** Checks `message` (said as `received` in a diagnosis, noted on `step`), now or once the schemas are there. */
  check(message: JsonObject, version: string | undefined, received: Json, step: ExchangeStep | undefined): void {
    const problem = checkClientMessage(message, version);
    if (problem !== PENDING) return this.report(message, version, problem, received, step);
    const check = loadSchemas().then(() => {
      this.pending.delete(check);
      this.report(message, version, checkClientMessage(message, version) as string | undefined, received, step);
    });
    this.pending.add(check);
  }

  /** Resolves once every message given so far has been checked. */
  async done(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private report(message: JsonObject, version: string | undefined, problem: string | undefined, received: Json, step: ExchangeStep | undefined): void {
    if (!problem) return;
    this.diagnose(
      'invalid-message',
      () => `${describeMessage(message)} is not valid MCP${version ? ` ${version}` : ''}: ${clip(problem, 300)}`,
      { received },
      step,
    );
  }
}
