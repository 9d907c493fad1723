// A case's program with its endpoints played to it: each endpoint's recording opened on its transport
// (an HTTP server listening, a wire for fd 3), the program run once with all of them in reach, then each
// endpoint's session settled and closed. A case with no endpoint is its program alone.
import { resolve } from 'node:path';
import type { Duplex } from 'node:stream';
import { CassetteError, loadCassette, type Cassette, type PlayerSession, type PlayReport } from '../cassette/index.ts';
import type { Case, CaseEndpoint } from '../course.ts';
import { afterProgress } from '../run/progress.ts';
import type { RunResult } from '../run/spawn.ts';
import { TRANSPORTS } from '../transports/index.ts';
import type { EndpointPlayed, OpenEndpoint, Transport, Wiring } from '../transports/transport.ts';

/** An endpoint of a case, ready to play: its transport and its recording. */
export interface Playing {
  endpoint: CaseEndpoint;
  transport: Transport;
  cassette: Cassette;
}

/** Why a case's endpoints cannot be played: the grader's trouble (an unusable recording, a transport
 *  that is not there), said as the case's verdict. */
export class EndpointProblem extends Error {}

/** The transports a case's endpoint may name: harness/transports/index.ts's, or a test's own. */
export type Transports = Readonly<Record<string, Transport>>;

/** The case's endpoints, each with its transport and its recording loaded (`named`: how a recording's
 *  path is said, from where). */
export function playingOf(testCase: Case, transports: Transports = TRANSPORTS, named: (path: string) => string = (path) => path): Playing[] {
  return testCase.endpoints.map((endpoint) => {
    const transport = Object.hasOwn(transports, endpoint.transport) ? transports[endpoint.transport] : undefined;
    if (transport === undefined) throw new EndpointProblem(`no transport named "${endpoint.transport}" to play endpoint ${endpoint.name} on`);
    let cassette: Cassette;
    try {
      cassette = loadCassette(named(endpoint.cassettePath), { diskCache: false });
    } catch (error) {
      if (!(error instanceof CassetteError)) throw error;
      throw new EndpointProblem(`the case's cassette is unusable: ${error.message}`);
    }
    return { endpoint, transport, cassette };
  });
}

/** What the case's program is started with, for its endpoints: the wire on fd 3, their transports'
 *  variables, fetch loaded. */
export function programNeeds(testCase: Case, transports: Transports = TRANSPORTS): { wire: boolean; env: Record<string, string>; fetching: boolean } {
  const used = testCase.endpoints.flatMap((endpoint) => (Object.hasOwn(transports, endpoint.transport) ? [transports[endpoint.transport]!] : []));
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
    for (const { endpoint, transport, cassette } of playing)
      opened.push(await transport.open(cassette, { caseDir, runRoot: setting.runRoot, network: setting.network, ...(endpoint.env && { env: endpoint.env }) }));
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
