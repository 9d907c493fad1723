// Streamable HTTP: the cassette served on 127.0.0.1, on a port the grader owns for the case alone;
// the program finds its URL in the variable its endpoint names (course.yaml's `env:`), or reaches it
// through a gate of the case's own when it has no network (reach.ts).
import { InputError } from '../../errors.ts';
import type { Transport } from '../transport.ts';
import { failingOverHttp, notResumed } from './hints.ts';
import { reachFor } from './reach.ts';

export { GATE_SUFFIX, GATE_TOKEN_SUFFIX } from './reach.ts';

export const http: Transport = {
  // a program that talks HTTP has fetch loaded before it starts (run/preload.mjs)
  program: { wire: false, env: { THEINFERENCE_FETCH: '1' }, fetching: true },
  async open(cassette, setting) {
    const { serveCassette } = await import('./serve.ts');
    const served = await serveCassette(cassette);
    let reach: Awaited<ReturnType<typeof reachFor>>;
    try {
      reach = await reachFor(served.url, setting);
    } catch (error) {
      await served.close();
      throw error;
    }
    const { gate } = reach;
    return {
      wiring: { env: reach.env, waitedOn: () => served.waitsForClient(), ...(gate && { own: [gate.path] }) },
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
