// One authorization session (stage 7) against its cassette against the live servers it was recorded
// from, alternating in the same run: the official SDK client with an OAuth client provider through
// the whole flow (401, discovery, authorize, token, initialize, tools/list, DELETE), once with the
// registration kept from an earlier run (cassettes/oidc-registration-kept-http.yaml) and once
// registering (cassettes/oidc-oauth-http.yaml). Live is oidc-provider in front of server-everything
// (scripts/oidc-gateway.ts), started once; the player is served in this process, a new one each
// session, as every case gets. Target: the player faster than live.
// Run: node --import tsx bench/authorization.ts [rounds]
import { join } from 'node:path';
import { loadCassette } from '../harness/cassette/index.ts';
import { serveCassette } from '../harness/transports/http/serve.ts';
import { KEPT_REGISTRATION } from '../scripts/course-client.ts';
import { runOAuthSession, type SessionPlan, startOidcGateway } from '../scripts/oauth-session.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 10);
const SESSIONS: { name: string; file: string; plan: SessionPlan }[] = [
  { name: 'registration kept', file: 'oidc-registration-kept-http.yaml', plan: { registered: KEPT_REGISTRATION } },
  { name: 'registering', file: 'oidc-oauth-http.yaml', plan: {} },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const live = await startOidcGateway();
try {
  for (const session of SESSIONS) {
    const cassette = loadCassette(join(root, 'cassettes', session.file));
    const times = { live: [] as number[], player: [] as number[] };
    // one of each first, untimed: the modules and the servers warm
    await runOAuthSession(live.url, {}, session.plan);
    for (let round = 0; round < rounds; round++) {
      times.live.push(await timed(() => runOAuthSession(live.url, {}, session.plan)));
      times.player.push(
        await timed(async () => {
          const served = await serveCassette(cassette);
          await runOAuthSession(served.url, {}, session.plan);
          await served.close();
          const report = served.finish();
          if (!report.ok) throw new Error(`the player refused the SDK client: ${report.diagnoses.map((one) => one.message).join('; ')}`);
        }),
      );
    }
    const [player, liveMs] = [median(times.player), median(times.live)];
    console.log(
      `${session.name}: player ${player.toFixed(1)} ms, live ${liveMs.toFixed(1)} ms (median of ${rounds}): player/live ${(player / liveMs).toFixed(2)}`,
    );
  }
} finally {
  await live.stop();
}
