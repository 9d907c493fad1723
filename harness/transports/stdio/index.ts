// stdio: the cassette played on the program's fd 3 (program.ts hands it to the student's client as
// the server's stdin and stdout). A case with a .mcp.json gets the wire once the server the student's
// spawnWire started has reported how it was started (case-server.ts).
import type { PlayerSession } from '../../cassette/index.ts';
import type { Transport } from '../transport.ts';
import { caseServerEntry, readStartReport, startProblem, type StartReport } from './case-server.ts';
import { attachPlayer, attachStreams } from './face.ts';

/** The fd on which a program reaches the grader's cassette player. */
export const WIRE_FD = 3;

/** Between reads a case cuts a message into: long enough that a program waiting for a core on a
 *  loaded machine still reads them apart, so a line buffer that isn't one cannot pass by luck. */
const CHUNK_GAP_MS = 50;

export const stdio: Transport = {
  program: { wire: true, env: { THEINFERENCE_WIRE_FD: String(WIRE_FD) } },
  async open(cassette, setting) {
    const entry = caseServerEntry(setting.caseDir);
    let started: StartReport | undefined;
    let session: PlayerSession | undefined;
    const play = (wire: Parameters<typeof attachPlayer>[1]) => (session = attachPlayer(cassette, wire, { chunkGapMs: CHUNK_GAP_MS }));
    return {
      wiring: {
        onWire: (wire) =>
          entry
            ? readStartReport(wire, (report, rest) => {
                if (!report) return;
                started = report;
                play(rest);
              })
            : play(wire),
        waitedOn: () => session?.waitsForClient() === true,
      },
      async settle(graced) {
        const played = session as PlayerSession | undefined;
        const start = entry && { reached: started !== undefined, problem: startProblem(entry, started) };
        return { ...(played && { report: await graced(played) }), ...(start && { start }) };
      },
      close: async () => {},
    };
  },
  closing: "the server's output ends only after its input does: close() ends the wire first (spawnWire's close: end the child's stdin), then waits",
  async serve(cassette, options) {
    // the client is this process's own streams: its stdout stays open for what the caller writes after
    return { session: attachStreams(cassette, process.stdin, process.stdout, { ...options, endOutput: false }), close: async () => {} };
  },
  async verify(cassette, server, { timeoutMs }) {
    const { verifyCassette } = await import('../../cassette/recording/verify.ts');
    return verifyCassette(cassette, server.command ?? [], { timeoutMs, secrets: server.secrets });
  },
};
