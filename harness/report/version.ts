// The grader's version, as its package.json says: reports name the grader that wrote them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let version: string | undefined;

export function graderVersion(): string {
  version ??= (JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  return version;
}
