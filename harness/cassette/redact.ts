// Secrets never reach disk: the values of environment variables whose names look like credentials
// (and of those named explicitly) are replaced wherever they appear, before anything is written.
import { isObject, type Json } from './model.ts';

/** Words that make an environment variable's name look like a credential. */
const CREDENTIAL_WORDS = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASSPHRASE|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE/i;
/** Shorter values of look-alike names are left alone: replacing "1" or "true" everywhere would wreck the cassette. */
const MIN_GUESSED_LENGTH = 4;

export interface Secret {
  name: string;
  value: string;
}

export function looksLikeCredential(name: string): boolean {
  return CREDENTIAL_WORDS.test(name);
}

/** The secrets to redact: credential-looking names, plus `explicit` names whatever their value's length. */
export function secretsFromEnv(env: NodeJS.ProcessEnv, explicit: readonly string[] = []): Secret[] {
  const secrets: Secret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (explicit.includes(name) || (looksLikeCredential(name) && value.length >= MIN_GUESSED_LENGTH)) secrets.push({ name, value });
  }
  // Longest first, so that a secret containing another is replaced whole.
  return secrets.sort((a, b) => b.value.length - a.value.length);
}

export class Redactor {
  private readonly pairs: [string, string][];
  constructor(secrets: readonly Secret[]) {
    this.pairs = [];
    for (const { name, value } of secrets) {
      const stand = `<redacted:${name}>`;
      this.pairs.push([value, stand]);
      const escaped = JSON.stringify(value).slice(1, -1); // as it appears inside JSON text
      if (escaped !== value) this.pairs.push([escaped, stand]);
    }
  }

  text(text: string): string {
    let result = text;
    for (const [value, stand] of this.pairs) if (result.includes(value)) result = result.split(value).join(stand);
    return result;
  }

  json<T extends Json>(value: T): T {
    if (this.pairs.length === 0) return value;
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.json(item)) as T;
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.json(item)])) as T;
    return value;
  }
}
