// Streamable HTTP: the cassette served on 127.0.0.1, on a port the grader owns for the case alone;
// the program finds its URL in the variable its endpoint names (course.yaml's `env:`). A program without network reaches it
// through a gate of the case's own, a Unix socket (gate.ts).
import { join } from 'node:path';
import { InputError } from '../../errors.ts';
import { socketsFolder } from '../sockets.ts';
import type { Transport } from '../transport.ts';
import { openGate, type PlayerGate } from './gate.ts';
import { failingOverHttp, notResumed } from './hints.ts';

/** Where a program finds an HTTP endpoint that course.yaml gives no variable for (a replay by hand). */
const SERVER_URL_VARIABLE = 'THEINFERENCE_SERVER_URL';
/** Where a program without network finds the endpoint instead, beside its URL's variable (X): the player's
 *  gate, a Unix socket (its path, in X_GATE), and the token its connections open with (X_GATE_TOKEN).
 *  program.ts offers the student's client a port on the program's own loopback, relayed there, at the
 *  URL's path. */
export const GATE_SUFFIX = '_GATE';
export const GATE_TOKEN_SUFFIX = '_GATE_TOKEN';

export const http: Transport = {
  // a program that talks HTTP has fetch loaded before it starts (run/preload.mjs)
  program: { wire: false, env: { THEINFERENCE_FETCH: '1' }, fetching: true },
  async open(cassette, setting) {
    const { serveCassette } = await import('./serve.ts');
    const served = await serveCassette(cassette);
    let gate: PlayerGate | undefined;
    try {
      gate = setting.network ? undefined : await openGate(playerSocket(), Number(new URL(served.url).port));
    } catch (error) {
      await served.close();
      throw error;
    }
    const variable = setting.env ?? SERVER_URL_VARIABLE;
    const reach: Record<string, string> = { [variable]: served.url };
    if (gate) Object.assign(reach, { [`${variable}${GATE_SUFFIX}`]: gate.path, [`${variable}${GATE_TOKEN_SUFFIX}`]: gate.token });
    return {
      wiring: { env: reach, waitedOn: () => served.waitsForClient(), ...(gate && { own: [gate.path] }) },
      async settle(graced, printed) {
        // the gate's connections first: each of them closes only after the player's end of it has
        const settled = await graced(served, async () => {
          await gate?.allClosed();
          await served.allClosed();
        });
        const leaks = served.leaks(printed);
        const report = leaks.length === 0 ? settled : { ...settled, ok: false, diagnoses: [...settled.diagnoses, ...leaks] };
        // the session as the report draws it: a URL the program put a token in shows it by its role
        return { report: served.byRole(report), secrets: served.secrets() };
      },
      async close() {
        try {
          await gate?.close();
        } finally {
          await served.close(); // whatever the program left open (a stream it never read to the end) ends here
        }
      },
    };
  },
  closing:
    'over HTTP the server closes nothing of its own accord: close() sends DELETE, then stops reading what is still open (abort its fetches) and ends messages',
  failing: failingOverHttp,
  unfinished: notResumed,
  async serve(cassette, options) {
    const { serveCassette } = await import('./serve.ts');
    // a replay without sessions is over once every recorded client message was played and answered
    const served = await serveCassette(cassette, { ...options, endWhenPlayed: true });
    return { session: served, where: served.url, close: () => served.close() };
  },
  serveOptions: ['port', 'pace'],
  async verify(cassette, server, { timeoutMs, file }) {
    const { verifyHttpCassette } = await import('./verify-link.ts');
    if (server.url !== undefined) return verifyHttpCassette(cassette, server.url, { timeoutMs });
    // the server started here, on a free port (given it in PORT), as record started it
    const { startServer } = await import('./started-server.ts');
    let started: Awaited<ReturnType<typeof startServer>>;
    try {
      started = await startServer(server.command ?? [], new URL(`http://127.0.0.1:0${cassette.http?.path ?? '/mcp'}`), {
        cwd: process.cwd(),
        env: process.env,
        log: () => {}, // what the server prints is not the drift
      });
    } catch (error) {
      throw new InputError(`${file}: ${(error as Error).message}`);
    }
    try {
      return await verifyHttpCassette(cassette, started.url.href, { timeoutMs });
    } finally {
      await started.stop();
    }
  },
  verifiesUrl: true,
};

let sockets = 0;
/** A socket path of its own for each case's player gate, in the grader's folder of sockets (a sandbox
 *  shows its program its own gate there, and no other). */
function playerSocket(): string {
  sockets += 1;
  return join(socketsFolder(), `player-${process.pid}-${sockets}.sock`);
}
