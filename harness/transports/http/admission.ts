// An HTTP request to the MCP endpoint admitted in one place, in one pass, before the player is given
// a message of it: the path and method (404, 405), the session and its version (sessions.ts), the
// credentials (a recorded authorization's rules, or the configured headers the recorded server was
// given), what a POST says of its body (406, 415) and its size (413), and, the body read, the headers
// that mirror it (the stateless revision). A request refused is answered here as the recorded server
// would answer it, the mistake said; one admitted goes on to the face.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthorizationServer } from '../../authorization/index.ts';
import {
  META_CAPABILITIES,
  META_VERSION,
  describeMessage,
  headerMismatch,
  isObject,
  isStatelessMessage,
  kindOf,
  metaOf,
  paramHeaders,
  speaksStateless,
  type Cassette,
  type JsonObject,
  type ParamHeader,
  type Player,
} from '../../cassette/index.ts';
import { BODY_TOO_LARGE, MAX_BODY_BYTES, readBody } from '../../request-body.ts';
import { JSON_TYPE, mirrorHeaders, refuseRequest, requestText, SSE_TYPE } from './refusal.ts';
import type { HttpSessions } from './sessions.ts';

export class Admission {
  /** The recorded server checks the headers that mirror a body (the stateless revision). */
  private readonly checksHeaders: boolean;
  /** The tools' x-mcp-header declarations, as the recorded server listed them. */
  private readonly declarations: Map<string, ParamHeader[]>;

  constructor(
    cassette: Cassette,
    private readonly path: string,
    private readonly player: Player,
    private readonly sessions: HttpSessions,
    private readonly authorization: AuthorizationServer | undefined,
  ) {
    this.checksHeaders = speaksStateless(cassette);
    this.declarations = this.checksHeaders ? paramHeaders(cassette) : new Map();
  }

  /** A request as it comes, before its body: whether it may go on (a POST, to its body). `sent` is
   *  told of each request past its session's check, refused for its credentials or not. */
  request(request: IncomingMessage, response: ServerResponse, url: URL, sent: (method: string) => void): boolean {
    if (url.pathname !== this.path) {
      refuseRequest(this.player, request, response, { status: 404 }, [
        'http-method',
        `your client sent ${request.method} ${url.pathname}; the server was recorded at ${this.path}`,
      ]);
      return false;
    }
    if (request.method !== 'POST' && request.method !== 'GET' && request.method !== 'DELETE') {
      refuseRequest(this.player, request, response, { status: 405, headers: { allow: 'POST, GET, DELETE' } }, [
        'http-method',
        `your client sent ${request.method} ${this.path}: a Streamable HTTP client sends POST, GET or DELETE`,
      ]);
      return false;
    }
    if (!this.sessions.admit(request, response)) return false;
    sent(request.method);
    if (request.method !== 'POST') return !this.refusedCredentials(request, url, response, `${request.method} ${this.path}`);
    const accept = String(request.headers.accept ?? '');
    if (!accept.includes(JSON_TYPE) || !accept.includes(SSE_TYPE)) {
      request.resume();
      refuseRequest(this.player, request, response, { status: 406, error: `Not Acceptable: Client must accept both ${JSON_TYPE} and ${SSE_TYPE}` }, [
        'http-accept',
        `your client's POST says Accept: ${JSON.stringify(accept)}; it must accept both ${JSON_TYPE} and ${SSE_TYPE}`,
      ]);
      return false;
    }
    const type = String(request.headers['content-type'] ?? '');
    if (!type.startsWith(JSON_TYPE)) {
      request.resume();
      refuseRequest(this.player, request, response, { status: 415, error: `Unsupported Media Type: Content-Type must be ${JSON_TYPE}` }, [
        'http-content-type',
        `your client's POST says Content-Type: ${JSON.stringify(type)}; a message is sent as ${JSON_TYPE}`,
      ]);
      return false;
    }
    return true;
  }

  /** A POST's body, read whole and handed to `then`; one too large is refused (413). */
  body(request: IncomingMessage, response: ServerResponse, then: (text: string) => void): void {
    readBody(request, (text) => {
      if (text !== undefined) return then(text);
      refuseRequest(this.player, request, response, { status: 413, error: `Payload Too Large: more than ${MAX_BODY_BYTES / 1024 / 1024} MiB` }, [
        'body-too-large',
        `your client sent POST ${this.path} ${BODY_TOO_LARGE}`,
      ]);
    });
  }

  /** A POSTed message, its body read: whether it may go to the player. Its credentials are held to
   *  those of the recorded message it will be judged against (`recordedAuthorization`); a request of
   *  the stateless revision to the headers that mirror it. */
  message(request: IncomingMessage, response: ServerResponse, message: unknown, text: string, recordedAuthorization: string | undefined): boolean {
    const sent = isObject(message) ? message : `POST ${this.path}\n${text}`;
    const named = isObject(message) ? describeMessage(message) : 'a POST';
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (this.refusedCredentials(request, url, response, named, sent, recordedAuthorization)) return false;
    return !(isObject(message) && kindOf(message) === 'request' && this.headersDisagree(message, request, response));
  }

  /** The one check of a request's credentials: what a recorded authorization holds it to (the
   *  authorization's), or else, for a POST whose recorded one carried an Authorization (`recorded`),
   *  that header, as the configured headers go on every request. Refused 401; says whether it was. */
  private refusedCredentials(
    request: IncomingMessage,
    url: URL,
    response: ServerResponse,
    what: string,
    sent: JsonObject | string = requestText(request),
    recorded?: string,
  ): boolean {
    const live = request.headers.authorization;
    const refused =
      this.authorization?.credentials(request.method ?? 'GET', url, live, what, recorded) ??
      (request.method === 'POST' && recorded !== undefined && live === undefined
        ? {
            kind: 'http-auth' as const,
            message: `your client sent ${what} without the Authorization header the server was given: send the configured headers on every request`,
            challenge: 'Bearer',
          }
        : undefined);
    if (refused === undefined) return false;
    const challenge = refused.challenge === undefined ? {} : { headers: { 'www-authenticate': refused.challenge } };
    // a POST's refusal says why in its body, as the SDK's server does; a URL's token is drawn as it was sent
    const body = request.method === 'POST' && refused.kind === 'http-auth' ? { error: 'Unauthorized: missing Authorization header' } : {};
    refuseRequest(this.player, refused.kind === 'oauth-token-in-query' ? request : sent, response, { status: 401, ...challenge, ...body }, [
      refused.kind,
      refused.message,
    ]);
    return true;
  }

  /** A stateless request whose headers disagree with its body: refused (400, -32020) as the recorded
   *  server refuses it, before the player sees it. Only a request whose `_meta` is whole: one
   *  missing its keys is refused for that first (the player says it). */
  private headersDisagree(message: JsonObject, request: IncomingMessage, response: ServerResponse): boolean {
    if (!this.checksHeaders || !isStatelessMessage(message)) return false;
    // a refusal the recording holds (its client sent such headers) is the player's to replay
    if ((this.player.expecting?.http?.reply?.status ?? 200) >= 400) return false;
    const meta = metaOf(message)!;
    if (!(META_VERSION in meta) || !(META_CAPABILITIES in meta)) return false;
    const refusal = headerMismatch(message, mirrorHeaders(request), this.declarations);
    if (refusal === undefined) return false;
    refuseRequest(this.player, message, response, { status: refusal.status, error: refusal.error, id: message.id ?? null }, [
      'http-header-mismatch',
      `your client's POST of ${describeMessage(message, 'your id')} has headers that disagree with its body: ${refusal.error.message.replace(/^Bad Request: the request headers and body disagree: /, '')}; each request mirrors its version, method and name (and a tool's x-mcp-header arguments) into MCP-Protocol-Version, Mcp-Method, Mcp-Name (and Mcp-Param-*)`,
    ]);
    return true;
  }
}
