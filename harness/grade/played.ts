// A case's program with its endpoints played to it: each endpoint's recording opened on its transport
// (an HTTP server listening, a wire for fd 3), the program run once with all of them in reach, then each
// endpoint's session settled and closed. A case with no endpoint is its program alone.
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import type { PlayerSession, PlayReport } from '../cassette/index.ts';
import type { Case, CaseEndpoint } from '../course.ts';
import { InputError } from '../errors.ts';
import type { Hint } from '../hint.ts';
import { PROTOCOLS, type Protocol } from '../protocols/index.ts';
import { afterProgress } from '../run/progress.ts';
import type { RunResult } from '../run/spawn.ts';
import type { EndpointPlayed, OpenEndpoint, PlaySetting, Transport, Wiring } from '../transports/transport.ts';

/** An endpoint of a case, ready to play: its protocol's recording, bound to the transport it plays on. */
export interface Playing {
  endpoint: CaseEndpoint;
  /** Its recording's path, as said (playingOf's `named`). */
  file: string;
  /** What is unsound in its recording (its protocol's lint), each at its line when it has one. */
  lint(): Promise<{ line?: number; message: string }[]>;
  /** How the program is started to meet it (transport.ts). */
  program: Transport['program'];
  open(setting: PlaySetting): Promise<OpenEndpoint>;
  /** What close() does on its transport. */
  closing: string;
  /** For a case that failed: its transport's own hints (transport.ts). */
  failing?(report: PlayReport | undefined): { hints: Hint[]; moot: string[] };
  unfinished?(report: PlayReport): boolean;
}

/** Why a case's endpoints cannot be played: the grader's trouble (an unusable recording, a protocol or
 *  transport that is not there), said as the case's verdict. */
export class EndpointProblem extends Error {}

/** The protocols a case's endpoint may name: harness/protocols/index.ts's, or a test's own. */
export type Protocols = Readonly<Record<string, Protocol>>;

/** The case's endpoints, each with its recording loaded by its protocol (`named`: how a recording's
 *  path is said, from where). */
export function playingOf(testCase: Case, protocols: Protocols = PROTOCOLS, named: (path: string) => string = (path) => path): Playing[] {
  return testCase.endpoints.map((endpoint) => {
    const [protocol, transport, file] = [protocolOf(endpoint, protocols), transportOf(endpoint, protocols), named(endpoint.cassettePath)];
    let recording: unknown;
    try {
      recording = protocol.load(file);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
      throw new EndpointProblem(`the case's cassette is unusable: ${error.message}`);
    }
    return {
      endpoint,
      file,
      lint: async () => (protocol.lint ? protocol.lint(recording) : []),
      program: transport.program,
      open: (setting) => transport.open(recording, setting),
      closing: transport.closing,
      ...(transport.failing && { failing: (report: PlayReport | undefined) => transport.failing!(recording, report) }),
      ...(transport.unfinished && { unfinished: (report: PlayReport) => transport.unfinished!(report) }),
    };
  });
}

function protocolOf(endpoint: CaseEndpoint, protocols: Protocols): Protocol {
  const protocol = Object.hasOwn(protocols, endpoint.protocol) ? protocols[endpoint.protocol] : undefined;
  if (protocol === undefined) throw new EndpointProblem(`no protocol named "${endpoint.protocol}" to play endpoint ${endpoint.name} with`);
  return protocol;
}

function transportOf(endpoint: CaseEndpoint, protocols: Protocols): Transport<unknown> {
  const { transports } = protocolOf(endpoint, protocols);
  const transport = Object.hasOwn(transports, endpoint.transport) ? transports[endpoint.transport] : undefined;
  if (transport === undefined) throw new EndpointProblem(`no transport named "${endpoint.transport}" to play endpoint ${endpoint.name} on`);
  return transport;
}

/** What the case's program is started with, for its endpoints: the wire on fd 3, their transports'
 *  variables, fetch loaded. */
export function programNeeds(testCase: Case, protocols: Protocols = PROTOCOLS): { wire: boolean; env: Record<string, string>; fetching: boolean } {
  const used = testCase.endpoints.flatMap((endpoint) => {
    try {
      return [transportOf(endpoint, protocols)];
    } catch (error) {
      if (error instanceof EndpointProblem) return []; // said as the case's verdict when it is played
      throw error;
    }
  });
  return {
    wire: used.some((transport) => transport.program.wire),
    env: Object.assign({}, ...used.map((transport) => transport.program.env ?? {})),
    fetching: used.some((transport) => transport.program.fetching === true),
  };
}

/** Where the case runs. */
export interface CaseSetting {
  /** The folder the program runs in. */
  runRoot: string;
  /** Whether the program may reach 127.0.0.1 itself. */
  network: boolean;
}

/** What the run and each endpoint (in the case's order) came to. */
export interface PlayedCase {
  result: RunResult;
  endpoints: EndpointPlayed[];
}

/** How long a player may take, after the program exits, to check the last messages it sent: in the
 *  grader's progress (progress.ts), so that a grader starved of a core still checks them all. A
 *  transport that can tell when they have all arrived (HTTP: every connection closed) ends it sooner. */
const REPORT_GRACE_MS = 1000;

/** The program, run by `run` once every endpoint of the case is open, each endpoint's session settled after. */
export async function playCase(
  testCase: Case,
  playing: readonly Playing[],
  setting: CaseSetting,
  run: (wiring: Wiring) => Promise<RunResult>,
): Promise<PlayedCase> {
  if (playing.length === 0) return { result: await run({}), endpoints: [] };
  const caseDir = resolve(setting.runRoot, testCase.casePath);
  const opened: OpenEndpoint[] = [];
  try {
    for (const { endpoint, open } of playing)
      opened.push(await open({ caseDir, runRoot: setting.runRoot, network: setting.network, ...(endpoint.env && { env: endpoint.env }) }));
    const result = await run(together(opened.map((open) => open.wiring)));
    const printed = `${result.stdout.toString('utf8')}\n${result.stderr.toString('utf8')}`;
    const endpoints = await Promise.all(opened.map((open) => open.settle(graced, printed)));
    return { result, endpoints };
  } finally {
    await Promise.all(opened.map((open) => open.close()));
  }
}

/** A session's report once the program ended: when it says it is done, when all the program sent has
 *  arrived (`arrived`), or after the grace, whichever comes first. */
function graced(session: PlayerSession, arrived?: () => Promise<void>): Promise<PlayReport> {
  const grace = new Promise<void>((resolve) => afterProgress(REPORT_GRACE_MS, resolve));
  const ended = arrived ? [arrived().then(() => session.finish())] : [];
  return Promise.race([session.done, ...ended, grace.then(() => session.finish())]);
}

/** The endpoints' wirings as one: their variables together, the one wire (a command has at most one
 *  endpoint on fd 3: course.ts), its sockets, and waited on when every endpoint waits for the program. */
function together(wirings: readonly Wiring[]): Wiring {
  const wires = wirings.flatMap((wiring) => (wiring.onWire ? [wiring.onWire] : []));
  if (wires.length > 1) throw new EndpointProblem("two endpoints of the case are played on the program's one wire (fd 3): give one of them another transport");
  const waits = wirings.flatMap((wiring) => (wiring.waitedOn ? [wiring.waitedOn] : []));
  const own = wirings.flatMap((wiring) => wiring.own ?? []);
  const env = Object.assign({}, ...wirings.map((wiring) => wiring.env ?? {})) as Record<string, string>;
  return {
    ...(wires[0] && { onWire: (wire: Duplex) => wires[0]!(wire) }),
    ...(Object.keys(env).length > 0 && { env }),
    ...(waits.length > 0 && { waitedOn: () => waits.every((waitedOn) => waitedOn()) }),
    ...(own.length > 0 && { own }),
  };
}
