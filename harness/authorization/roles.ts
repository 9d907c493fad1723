// A recording's learning of the values random by design: each value the client or a server sent,
// by the role of its field, to the placeholder that stands for it in the cassette.
import { roleOfField } from '../cassette/index.ts';

/** A path segment that is an id made to be unguessable: 20 or more base64url characters, a digit among them. */
const RANDOM_SEGMENT = /^(?=.*\d)[A-Za-z0-9_-]{20,}$/;

/** Shorter values are not taken for random ones: a word such as a client's fixed name may be one. */
const SHORTEST_RANDOM = 8;

/** The values a recording has learned, each to the placeholder of its role. */
export class Roles {
  private readonly placeholderOf = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  /** A field of a request the client sent (`sent`) or of a reply. A client_id is random only where a
   *  server minted it (a registration's reply): one the client brings (given beforehand, kept from an
   *  earlier run, or its metadata document's URL) is the client's own, kept as it is. */
  learnField(name: string, value: string, sent = false): void {
    const role = roleOfField(name);
    if (role === 'client-id' && sent) return;
    if (role !== undefined) this.learn(role, value);
  }

  /** An Authorization header: a bearer token is an access token; Basic credentials are a client's. */
  learnCredential(header: string | string[] | undefined): void {
    if (typeof header !== 'string') return;
    const [, scheme, value] = /^(\S+)\s+(\S+)$/.exec(header) ?? [];
    if (value === undefined) return;
    this.learn(scheme!.toLowerCase() === 'bearer' ? 'access-token' : 'client-credentials', value);
  }

  /** A redirect's Location: its query's fields, and a random path segment (a sign-in's interaction id). */
  learnLocation(location: string): void {
    let url: URL;
    try {
      url = new URL(location, 'http://127.0.0.1');
    } catch {
      return;
    }
    for (const [name, value] of url.searchParams) this.learnField(name, value);
    for (const segment of url.pathname.split('/')) if (RANDOM_SEGMENT.test(segment)) this.learn('interaction', segment);
  }

  learn(role: string, value: string): void {
    if (value.length < SHORTEST_RANDOM || this.placeholderOf.has(value)) return;
    const count = (this.counts.get(role) ?? 0) + 1;
    this.counts.set(role, count);
    this.placeholderOf.set(value, count === 1 ? `<${role}>` : `<${role}-${count}>`);
  }

  /** The values learned, each as the text it is to be replaced with. */
  secrets(): string[] {
    return [...this.placeholderOf.keys()];
  }

  /** `text` with every learned value (as it is, or URL-encoded) replaced by its placeholder. */
  portable(text: string): string {
    let result = text;
    const longestFirst = [...this.placeholderOf].sort(([a], [b]) => b.length - a.length);
    for (const [value, placeholder] of longestFirst) result = result.replaceAll(value, placeholder).replaceAll(encodeURIComponent(value), placeholder);
    return result;
  }
}
