// The sessions of a Streamable HTTP replay: a fresh session id for each the recording gave (from the
// reply that gives it), none once the recorded server lost it, and what every later request must say
// of it (Mcp-Session-Id, and MCP-Protocol-Version once initialize agreed one). A recording without
// sessions (the stateless revision) makes none, and a request that sends one is said to.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isSessionless, type Cassette, type DiagnosisKind, type HttpReply, type JsonObject } from '../../cassette/index.ts';
import type { Refusal } from './refusal.ts';

/** What the sessions need of the face. */
export interface SessionHost {
  mistake(kind: DiagnosisKind, message: string): void;
  refuse(request: IncomingMessage, response: ServerResponse, refusal: Refusal, mistake?: [DiagnosisKind, string]): void;
}

export class HttpSessions {
  /** The session id in use: a fresh one for each the recording gave, once given; none once the
   *  recorded server said the session was lost (until the next initialize gives another). */
  private sessionId: string | undefined;
  /** The fresh id given for each session id of the recording. */
  private readonly liveSessions = new Map<string, string>();
  /** The recorded server lost the session, and no other has been given since. */
  private sessionLost = false;
  /** The protocol version the initialize result agreed on, once sent. */
  private version: string | undefined;
  /** The recording has no session: none is made, and one the client sends is a mistake. */
  private readonly sessionless: boolean;
  private saidSession = false;

  constructor(
    private readonly cassette: Cassette,
    private readonly path: string,
    private readonly host: SessionHost,
  ) {
    this.sessionless = isSessionless(cassette);
  }

  /** A session was given in this replay. */
  get live(): boolean {
    return this.liveSessions.size > 0;
  }

  /** Whether the request may go on: refused (and said) when it does not carry the session as it must. */
  admit(request: IncomingMessage, response: ServerResponse): boolean {
    if (!this.sessionOk(request, response)) return false;
    this.checkVersion(request);
    if (this.sessionless) {
      if (request.headers['mcp-session-id'] !== undefined && !this.saidSession) {
        this.saidSession = true;
        this.host.mistake(
          'stateless-session',
          `your client sent ${request.method} ${this.path} with Mcp-Session-Id ${JSON.stringify(request.headers['mcp-session-id'])}, but the server gave no session (the stateless revision has none): the server ignores it; a client of the revision need not send it`,
        );
      }
      // the recorded server holds no session: no stream of its own, nothing to end
      const recorded = request.method === 'GET' ? this.cassette.http?.get : request.method === 'DELETE' ? this.cassette.http?.delete : undefined;
      if (request.method !== 'POST' && recorded === undefined) {
        this.host.refuse(request, response, { status: 405, error: 'Method not allowed.', headers: { allow: 'POST' } });
        return false;
      }
    }
    return true;
  }

  /** The recorded server lost the session: the client starts another with initialize, without the old id. */
  lost(): void {
    this.sessionId = undefined;
    this.sessionLost = true;
    this.version = undefined;
  }

  /** The initialize result is out: from now on each request says the version it agreed, with a session
   *  or without (until the session is lost: a new one agrees anew). */
  agreed(result: JsonObject): void {
    const version = (result.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version === 'string') this.version = version;
  }

  /** After the server gave a session id, every request carries it (400 without, 404 with another); once
   *  the server lost it, the new session starts without one (400, as the SDK's servers answer an id
   *  they do not know on an initialize). */
  private sessionOk(request: IncomingMessage, response: ServerResponse): boolean {
    if (this.sessionId === undefined) {
      const sent = request.headers['mcp-session-id'];
      if (!this.sessionLost || sent === undefined) return true;
      this.host.refuse(request, response, { status: 400, error: 'Bad Request: No valid session ID provided' }, [
        'http-session',
        `your client sent ${request.method} ${this.path} with an Mcp-Session-Id after the server lost the session: a new session starts with initialize, without a session id`,
      ]);
      return false;
    }
    const sent = request.headers['mcp-session-id'];
    if (sent === this.sessionId) return true;
    const what = `${request.method} ${this.path}`;
    if (sent === undefined) {
      this.host.refuse(request, response, { status: 400, error: 'Bad Request: Mcp-Session-Id header is required' }, [
        'http-session',
        `your client sent ${what} without the Mcp-Session-Id header: send the session id the initialize response gave on every later request`,
      ]);
    } else {
      this.host.refuse(request, response, { status: 404, error: 'Session not found' }, [
        'http-session',
        `your client sent ${what} with Mcp-Session-Id ${JSON.stringify(sent)}, not the one the initialize response gave in this session`,
      ]);
    }
    return false;
  }

  private checkVersion(request: IncomingMessage): void {
    if (this.version === undefined) return;
    const sent = request.headers['mcp-protocol-version'];
    if (sent === this.version) return;
    this.host.mistake(
      'http-protocol-version',
      sent === undefined
        ? `your client sent ${request.method} ${this.path} without the MCP-Protocol-Version header: after initialize, every request says the version agreed (${this.version})`
        : `your client sent MCP-Protocol-Version ${JSON.stringify(sent)}; the version agreed at initialize is ${this.version}`,
    );
  }

  /** The fresh id standing for a recorded session id, in use from the reply that gives it. */
  private liveSession(recorded: string): string {
    let live = this.liveSessions.get(recorded);
    if (live === undefined) {
      live = randomUUID();
      this.liveSessions.set(recorded, live);
      this.sessionId = live;
      this.sessionLost = false;
    }
    return live;
  }

  /** A recorded reply's headers, the session id replaced by this replay's own. */
  headers(reply: HttpReply | undefined): Record<string, string> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply?.headers ?? {})) {
      if (name === 'content-type' || name === 'content-length') continue;
      if (name === 'mcp-session-id') headers[name] = this.liveSession(value);
      else headers[name] = value;
    }
    return headers;
  }
}
