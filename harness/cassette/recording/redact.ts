// Secrets never reach disk. What is secret: the values of environment variables whose names look
// like credentials (and of those named explicitly), the values of credential-looking arguments of
// the server command (`--api-key=…`, `--password …`, `Authorization: Bearer …`), and passwords in
// URLs (`scheme://user:password@host`). Each known value is replaced wherever it appears, and a
// password in any URL is replaced whether it was known or not.
import { inJsonText, isObject, type Json } from '../format/model.ts';

/** Words that make an environment variable's name look like a credential. */
const CREDENTIAL_WORDS = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|PASSPHRASE|AUTH|CREDENTIAL|COOKIE|SESSION|PRIVATE/i;
/** The last word of a flag (or header) that carries a secret: --api-key, --access-token, --password;
 *  not --key-file or --session-timeout, whose values are not secrets themselves. */
const SECRET_LAST_WORD = /^(?:token|key|apikey|secret|password|passwd|pwd|pass|passphrase|auth|authorization|credentials?|cookie|bearer)$/i;
/**
 * Shorter values are replaced where they are known to be secret (the argument itself, the password
 * inside its URL) but not searched for elsewhere: replacing "pw" or "1" in every string would wreck
 * the cassette. Environment variables named with --redact-env are searched for whatever their length.
 */
export const MIN_SEARCHED_LENGTH = 4;
/** `scheme://user:password@`: group 1 is everything up to the password. `\/` as JSON may write it. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:(?:\\?\/){2}[^\s:/?#@"<>\\]*:)([^\s/?#"<>\\]+)@/gi;
const URL_PLACEHOLDER = '<redacted:url-password>';

export interface Secret {
  /** What the placeholder names: an environment variable, a flag, a header, `url-password`. */
  name: string;
  value: string;
  /** Named by the user: searched for whatever its length. */
  named?: boolean;
}

export function looksLikeCredential(name: string): boolean {
  return CREDENTIAL_WORDS.test(name);
}

export function placeholder(name: string): string {
  return `<redacted:${name}>`;
}

/** Credential-looking variables, `explicit` names, and the passwords of URLs in any value. */
export function secretsFromEnv(env: NodeJS.ProcessEnv, explicit: readonly string[] = []): Secret[] {
  const secrets: Secret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '') continue;
    if (explicit.includes(name)) secrets.push({ name, value, named: true });
    else if (looksLikeCredential(name)) secrets.push({ name, value });
    secrets.push(...urlPasswords(value));
  }
  return secrets;
}

/** The secrets the server command carries in its arguments and in URLs among them. */
export function secretsFromCommand(command: readonly string[]): Secret[] {
  return [...argumentSecrets(command).map(({ name, value }) => ({ name, value })), ...command.flatMap(urlPasswords)];
}

/** An argument (by index) whose tail, `value`, is a secret. */
export interface ArgumentSecret {
  index: number;
  name: string;
  value: string;
}

/** `--flag=value`, `--flag value` (the next argument unless it is another `--flag`), `Header: [Bearer ]value`. */
export function argumentSecrets(args: readonly string[]): ArgumentSecret[] {
  const found: ArgumentSecret[] = [];
  const header = (index: number, text: string) => {
    const match = /^([A-Za-z][\w-]*):\s+(?:(?:Bearer|Basic|Token)\s+)?(\S.*)$/is.exec(text);
    if (match && isSecretName(match[1]!)) found.push({ index, name: match[1]!, value: match[2]! });
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const assigned = /^(--?[A-Za-z][\w.-]*)=(.*)$/s.exec(arg);
    if (assigned) {
      const [, flag, value] = assigned as unknown as [string, string, string];
      if (isSecretName(flag)) {
        if (value !== '') found.push({ index: i, name: flag, value });
      } else header(i, value);
      continue;
    }
    if (/^--?[A-Za-z]/.test(arg)) {
      const next = args[i + 1];
      if (isSecretName(arg) && next !== undefined && next !== '' && !next.startsWith('--')) {
        found.push({ index: i + 1, name: arg, value: next });
        i++;
      }
      continue;
    }
    header(i, arg);
  }
  return found;
}

/** By its last word, camelCase and `-_.` splitting words; `--no-auth` is a switch, not a secret. */
function isSecretName(name: string): boolean {
  const words = name
    .replace(/^-+/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .split(/[-_.]+/)
    .filter((word) => word !== '');
  if (words.length === 0 || (words[0]!.toLowerCase() === 'no' && words.length > 1)) return false;
  return SECRET_LAST_WORD.test(words.at(-1)!);
}

function urlPasswords(text: string): Secret[] {
  const found: Secret[] = [];
  for (const match of text.matchAll(URL_PASSWORD)) {
    const value = match[2]!;
    found.push({ name: 'url-password', value });
    try {
      const decoded = decodeURIComponent(value); // a server may echo it decoded
      if (decoded !== value) found.push({ name: 'url-password', value: decoded });
    } catch {
      // not percent-encoding: the value as written is enough
    }
  }
  return found;
}

/** The command with its secret arguments replaced in place (whatever their length), then as any text. */
export function redactCommand(command: readonly string[], redactor: Redactor): string[] {
  const result = [...command];
  for (const { index, name, value } of argumentSecrets(command)) {
    const arg = result[index]!;
    result[index] = arg.slice(0, arg.length - value.length) + placeholder(name);
  }
  return result.map((arg) => redactor.text(arg));
}

export class Redactor {
  private readonly pairs: [string, string][] = [];

  /** Values already replaced: a secret found twice (an env value also in the command) is replaced once. */
  private readonly seen = new Set<string>();

  /** `stands`: other values to write as something else (a setup folder's path as `<setup>`). */
  constructor(secrets: readonly Secret[], stands: readonly [string, string][] = []) {
    for (const [value, stand] of [...stands].sort((a, b) => b[0].length - a[0].length)) this.replace(value, stand);
    const searched = secrets
      .filter((secret) => secret.value !== '' && (secret.named === true || secret.value.length >= MIN_SEARCHED_LENGTH))
      .sort((a, b) => b.value.length - a.value.length); // a secret containing another is replaced whole
    for (const { name, value } of searched) this.replace(value, placeholder(name));
  }

  /** `value` becomes `stand`, as it is and as it appears inside JSON text. */
  private replace(value: string, stand: string): void {
    const escaped = inJsonText(value);
    for (const form of escaped === value ? [value] : [value, escaped]) {
      if (this.seen.has(form)) continue;
      this.seen.add(form);
      this.pairs.push([form, stand]);
    }
  }

  text(text: string): string {
    let result = text;
    for (const [value, stand] of this.pairs) if (result.includes(value)) result = result.split(value).join(stand);
    return result.includes('@') ? result.replace(URL_PASSWORD, `$1${URL_PLACEHOLDER}@`) : result;
  }

  json<T extends Json>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.json(item)) as T;
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [this.text(key), this.json(item)])) as T;
    return value;
  }
}
