// Plays a recorded JSON-over-HTTP API to a client: each request is held to the API's own rules, then
// answered with the first recorded response not yet used whose request it is; one that is none of
// them is answered as the API answers a bad request, and diagnosed. What it saw comes out as the
// cassette player's report does (PlayReport), so that a grading shows it beside the other endpoints.
import type { IncomingMessage, ServerResponse } from 'node:http';
// the steps of an HTTP exchange and the table of kinds are shared with MCP over HTTP (the cassette's)
import { statusLine, transportStep } from '../../cassette/index.ts';
import type { Diagnosis, DiagnosisKind, ExchangeStep, PlayReport, RecordedRef } from '../../exchange/diagnosis.ts';
import { isObject } from '../../exchange/json-path.ts';
import { KeptDiagnoses } from '../../exchange/kept.ts';
import { isAdvice } from './kinds.ts';
import { ExchangeLog, keptMessage } from '../../exchange/log.ts';
import type { Json } from '../../json.ts';
import { clip } from '../../terminal-text.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../json-depth.ts';
import { BODY_TOO_LARGE, readBody } from '../../request-body.ts';
import { inTurn, turns } from '../../transports/http/channel.ts';
import { distance, type LiveRequest, type RequestDifference, requestDifference } from './matching.ts';
import type { RecordedExchange, RecordedResponse, ApiRecording } from './model.ts';
import { ruleProblem } from './rules.ts';
import { eventWrites } from './stream.ts';

export interface ApiPlayerOptions {
  /** The key the program was given: every request must carry it in `x-api-key`. */
  apiKey: string;
}

/** A gap between the writes of a cut event, so that the client reads them apart (as the cassette's HTTP face does). */
const CUT_GAP_MS = 50;

/** Characters of a value a diagnosis's message quotes (the whole value is in its expected and actual). */
const SHOWN_CHARS = 200;

/** The error types the Messages API answers with, by status (api/errors). */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  404: 'not_found_error',
  413: 'request_too_large',
};

export class ApiPlayer {
  private readonly used: boolean[];
  private readonly log = new ExchangeLog();
  private readonly kept: KeptDiagnoses;
  /** Requests received, for the words of a diagnosis ("your 4th request"). */
  private requests = 0;
  /** Requests whose response is not yet written to the end. */
  private answering = 0;

  constructor(
    readonly recording: ApiRecording,
    private readonly options: ApiPlayerOptions,
  ) {
    this.used = recording.exchanges.map(() => false);
    this.kept = new KeptDiagnoses(recording.file, isAdvice);
  }

  /** Answers one request (read whole first, and bounded). */
  handle(request: IncomingMessage, response: ServerResponse): void {
    this.answering++;
    response.once('close', () => this.answering--);
    const path = (request.url ?? '/').split('?')[0]!;
    const line = `${request.method ?? '?'} ${path}`;
    readBody(request, (text) => this.answer(request, response, line, path, text));
  }

  private answer(request: IncomingMessage, response: ServerResponse, line: string, path: string, text: string | undefined): void {
    this.requests++;
    const step = this.log.add(() => ({ from: 'client', kind: 'request', method: line, message: text === undefined ? '(too large)' : keptText(text) }));
    const refuse = (status: number, kind: DiagnosisKind, message: string, fields: Omit<Diagnosis, 'kind' | 'message'> = {}) => {
      this.kept.add(kind, () => message, fields, step);
      this.refuse(response, status, message);
    };
    if (text === undefined) return refuse(413, 'api-body', `your client sent ${line} ${BODY_TOO_LARGE}`);
    if (!this.recording.exchanges.some((exchange) => `${exchange.request.method} ${exchange.request.path}` === line)) {
      const known = [...new Set(this.recording.exchanges.map((exchange) => `${exchange.request.method} ${exchange.request.path}`))].join(', ');
      return refuse(404, 'api-path', `your client sent ${line}; the recording has ${known}`);
    }
    const key = keyOf(request);
    if (key !== this.options.apiKey) {
      return refuse(
        401,
        'api-key',
        `your client sent ${line} ${key === undefined ? 'without the x-api-key header' : 'with a key other than the one it was given'}: send the key the environment gives on every request`,
      );
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json')
      return refuse(400, 'api-body', `your client sent ${line} with content-type ${JSON.stringify(type)}: a request body is JSON, sent as application/json`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return refuse(400, 'api-body', `your client sent ${line} with a body that is not JSON`, { received: keptText(text) });
    }
    if (!isObject(body)) return refuse(400, 'api-body', `your client sent ${line} with a body that is not a JSON object`, { received: keptText(text) });
    if (nestedDeeperThan(body))
      return refuse(400, 'api-body', `your client sent ${line} with a body nested deeper than ${MAX_JSON_DEPTH} levels, which the grader does not read`);
    if (step) step.message = keptMessage(body);
    const version = request.headers['anthropic-version'];
    if (version === undefined)
      return refuse(400, 'api-version', `your client sent ${line} without the anthropic-version header: every request says the API version`);
    const problem = ruleProblem(this.recording.api, body);
    if (problem) return refuse(400, problem.kind, problem.message, { path: problem.path.join('.') });
    const live: LiveRequest = { method: request.method ?? '', path, headers: request.headers, body };
    const found = this.recording.exchanges.findIndex(
      (exchange, i) => !this.used[i] && requestDifference(this.recording.api, exchange.request, live) === undefined,
    );
    if (found === -1) return this.unmatched(response, live, step);
    this.used[found] = true;
    const exchange = this.recording.exchanges[found]!;
    if (step) step.recorded = keptMessage(exchange.request.body);
    this.log.add(() => ({ from: 'server', kind: 'response', method: statusLine(exchange.response.status), message: shownResponse(exchange.response) }));
    this.play(response, exchange.response);
  }

  /** A request that is no recorded one left: the nearest (among those left, or all once none is
   *  left: the recording is exhausted) says where it differs. */
  private unmatched(response: ServerResponse, live: LiveRequest, step: ExchangeStep | undefined): void {
    const api = this.recording.api;
    const left = this.recording.exchanges.map((exchange, i) => ({ exchange, i })).filter(({ i }) => !this.used[i]);
    const pool = left.length > 0 ? left : this.recording.exchanges.map((exchange, i) => ({ exchange, i }));
    let nearest = pool[0]!;
    let best = Number.POSITIVE_INFINITY;
    for (const candidate of pool) {
      const far = distance(api, candidate.exchange.request, live);
      if (far < best) [nearest, best] = [candidate, far];
    }
    const difference = requestDifference(api, nearest.exchange.request, live);
    if (step) step.recorded = keptMessage(nearest.exchange.request.body);
    const where = `the recorded request at line ${nearest.exchange.line ?? '?'}`;
    const fields = {
      nearest: this.ref(nearest.exchange, nearest.i),
      ...(difference && { path: difference.path, expected: difference.expected, actual: difference.actual }),
    };
    let kind: DiagnosisKind = 'api-request-differs';
    let message: string;
    if (left.length === 0) {
      kind = 'api-exhausted';
      const count = this.recording.exchanges.length;
      message = `the recording is exhausted: your request #${this.requests} came after the ${count} recorded response${count === 1 ? ' was' : 's were'} used; ${
        difference ? `the nearest, ${where}, ${differs(difference)}` : `it is the same request as ${where}, sent again`
      }`;
    } else if (difference?.path === 'headers.anthropic-version') {
      kind = 'api-version';
      message = `your client sent anthropic-version ${JSON.stringify(difference.actual)}; the recording was made with ${JSON.stringify(difference.expected)}`;
    } else {
      message = `your request #${this.requests} is none of the ${left.length} recorded request${left.length === 1 ? '' : 's'} not yet answered; the nearest, ${where}, ${differs(difference!)}`;
    }
    this.kept.add(kind, () => message, fields, step);
    this.refuse(response, 400, message);
  }

  private ref(exchange: RecordedExchange, index: number): RecordedRef {
    return { frame: index, ...(exchange.line !== undefined && { line: exchange.line }), message: exchange.request.body };
  }

  /** Answers as the API answers an error: `{type: "error", error: {type, message}}`, and says not to
   *  retry (x-should-retry, which the official SDKs obey): a request the recording refused is refused again. */
  private refuse(response: ServerResponse, status: number, message: string): void {
    this.log.add(() => transportStep('server', statusLine(status, message)));
    const body = JSON.stringify({ type: 'error', error: { type: ERROR_TYPES[status] ?? 'invalid_request_error', message } });
    if (response.destroyed) return;
    response.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' }).end(body);
  }

  /** A recorded response: a JSON body at once, or its events in order, each cut event in its writes. */
  private play(response: ServerResponse, recorded: RecordedResponse): void {
    if (response.destroyed) return;
    const { body } = recorded;
    if ('json' in body) {
      response.writeHead(recorded.status, { 'content-type': 'application/json', ...recorded.headers }).end(body.text ?? JSON.stringify(body.json));
      return;
    }
    response.writeHead(recorded.status, { 'content-type': 'text/event-stream; charset=utf-8', ...recorded.headers });
    response.flushHeaders();
    const order = turns();
    for (const event of body.events) {
      eventWrites(event).forEach((bytes, i) => {
        inTurn(false, order, undefined, () => void (response.destroyed || response.write(bytes)), i === 0 ? 0 : CUT_GAP_MS);
      });
    }
    inTurn(false, order, undefined, () => void response.end());
  }

  /** Whether it has answered every request it was sent (and now waits for the client's next, if any). */
  waitsForClient(): boolean {
    return this.answering === 0;
  }

  /** What the session did: as the cassette player reports, and with the recorded requests never sent. */
  report(): PlayReport {
    const consumed = this.used.filter(Boolean).length;
    const expected = this.used.length;
    const diagnoses = [...this.kept.misses];
    let moreDiagnoses = this.kept.more;
    const unused = this.used.indexOf(false);
    if (unused !== -1) {
      const exchange = this.recording.exchanges[unused]!;
      const diagnosis: Diagnosis = {
        kind: 'api-unused',
        message: `the session ended before your client sent ${expected - consumed === 1 ? 'the recorded request' : `${expected - consumed} recorded requests`} (the first of them: line ${exchange.line ?? '?'})`,
        ...(this.recording.file && { cassette: this.recording.file }),
        nearest: this.ref(exchange, unused),
        unusedCount: expected - consumed,
      };
      if (this.kept.full) moreDiagnoses++;
      else diagnoses.push(diagnosis);
    }
    return {
      ok: diagnoses.length === 0 && moreDiagnoses === 0,
      complete: consumed === expected,
      consumed,
      expected,
      diagnoses,
      advice: [...this.kept.advice],
      moreDiagnoses,
      exchange: this.log.exchange,
    };
  }
}

/** The key a request carries: in x-api-key, or as a bearer token (the official TypeScript SDK, from
 *  1.x, sends its API key as `Authorization: Bearer`). */
function keyOf(request: IncomingMessage): string | undefined {
  const key = request.headers['x-api-key'];
  if (key !== undefined) return key as string;
  return /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
}

function differs(difference: RequestDifference): string {
  return `differs at ${difference.path}: expected ${shown(difference.expected)}, got ${shown(difference.actual)}`;
}

function shown(value: Json | undefined): string {
  return value === undefined ? 'nothing' : clip(JSON.stringify(value), SHOWN_CHARS);
}

function keptText(text: string): Json {
  return keptMessage(text);
}

/** A response as the exchange shows it: its JSON body, or its events' data in order. */
function shownResponse(response: RecordedResponse): Json {
  return 'json' in response.body ? keptMessage(response.body.json) : keptMessage(response.body.events.map((event) => event.data));
}
