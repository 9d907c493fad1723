// An API played over HTTP to a case's program: the recording served on 127.0.0.1 for the case alone,
// its base URL in the variable the endpoint names (reached through the case's gate without network),
// and a key of the run's own in <variable>_KEY, which every request must carry.
import { randomBytes } from 'node:crypto';
import type { PlayReport, PlayerSession } from '../../cassette/index.ts';
import { reachFor } from '../../transports/http/reach.ts';
import type { Transport } from '../../transports/transport.ts';
import type { ApiRecording } from './model.ts';
import { serveRecording } from './serve.ts';

/** Beside the URL's variable (X): the API key the program sends, in X_KEY. */
export const KEY_SUFFIX = '_KEY';

export const overHttp: Transport<ApiRecording> = {
  // a program that talks HTTP has fetch loaded before it starts (run/preload.mjs)
  program: { wire: false, env: { THEINFERENCE_FETCH: '1' }, fetching: true },
  async open(recording, setting) {
    // a fresh key each run: a program that sends a key it did not read from its environment is found out
    const apiKey = `sk-theinference-${randomBytes(12).toString('hex')}`;
    const replay = await serveRecording(recording, { apiKey });
    let reach: Awaited<ReturnType<typeof reachFor>>;
    try {
      reach = await reachFor(replay.url, setting);
    } catch (error) {
      await replay.close();
      throw error;
    }
    const { gate, variable } = reach;
    // an API session has no end of its own: it is over when the program is (or, sooner, once every
    // connection to it has closed)
    const session: PlayerSession = {
      done: new Promise<PlayReport>(() => {}),
      finish: () => replay.report(),
      get diagnoses() {
        return replay.report().diagnoses;
      },
      waitsForClient: () => replay.waitsForClient(),
    };
    return {
      wiring: { env: { ...reach.env, [`${variable}${KEY_SUFFIX}`]: apiKey }, waitedOn: () => replay.waitsForClient(), ...(gate && { own: [gate.path] }) },
      async settle(graced) {
        const report = await graced(session, async () => {
          await gate?.allClosed();
          await replay.allClosed();
        });
        return { report };
      },
      async close() {
        try {
          await gate?.close();
        } finally {
          await replay.close();
        }
      },
    };
  },
  closing: 'over HTTP an API keeps nothing open: a client that is done sends nothing more and ends its program',
};
