// A transport, as a case runs on it: how the program is started to meet the played server, and how
// the cassette is played to it; and, for the commands, how a cassette is served to a client started
// outside (replay) and played against its live server (verify). Each transport is a folder of
// harness/transports/ (its face, its recorder, its run) listed once in index.ts; grading and the
// commands ask the transport, never its name.
import type { Duplex } from 'node:stream';
import type { Cassette, Drift, FaceOptions, PlayReport, PlayerSession, RoleSecret, Secret } from '../cassette/index.ts';
import type { Hint } from '../hint.ts';

/** How a case's program meets its player, once it runs (a program started ahead gets it at its release). */
export interface Wiring {
  /** The program's extra pipe (fd 3, given when `program.wire`): the wire the cassette is played on. */
  onWire?: (wire: Duplex) => void;
  /** Variables known only as the case runs (an HTTP player's URL). */
  env?: Record<string, string>;
  /** Whether the player now waits for the program with nothing left to send it (a program that then does nothing is stuck). */
  waitedOn?: () => boolean;
  /** Sockets made in the grader's socketsFolder (sockets.ts) for this program alone (an HTTP player's
   *  gate): shown to it, and to no other. */
  own?: readonly string[];
}

/** Where the case runs, and the endpoint of it this transport plays. */
export interface PlaySetting {
  /** The case's input folder, as the grader sees it. */
  caseDir: string;
  /** The folder the program runs in. */
  runRoot: string;
  /** Whether the program may reach 127.0.0.1 itself (no sandbox, or one with network). */
  network: boolean;
  /** The variable that tells the program where the endpoint is (an HTTP endpoint's URL). */
  env?: string;
}

/** What an endpoint played to one run of the program found, once it ended. */
export interface EndpointPlayed {
  /** The session's report, when the program reached the endpoint. */
  report?: PlayReport;
  /** For a case whose .mcp.json says how the program starts its server: whether the start reached the
   *  grader at all, and what was wrong with it (nothing: it was right). */
  start?: { reached: boolean; problem?: string };
  /** Values the session made that nothing of the grader's shows as they are (an authorization's
   *  tokens): what the program printed of them is shown by their role, `<access-token>`. */
  secrets?: readonly RoleSecret[];
}

/** An endpoint open for one run of the case's program: what the program is given to reach it, and,
 *  once the program has ended, what it found. */
export interface OpenEndpoint {
  wiring: Wiring;
  /** Once the program ended: its session's report, at once, or after a grace for the program's last
   *  messages (`graced`), or as soon as all it sent has reached the player; `printed`: what the program
   *  printed, stdout and stderr (for what a session forbids printing). */
  settle(graced: (session: PlayerSession, arrived?: () => Promise<void>) => Promise<PlayReport>, printed: string): Promise<EndpointPlayed>;
  /** Whatever the program left open ends here (a stream it never read to the end). */
  close(): Promise<void>;
}

/** A transport, as one protocol plays on it (`Recording`: that protocol's; the MCP cassette by default). */
export interface Transport<Recording = Cassette> {
  /** How the program is started, ahead of time or not: with the wire on fd 3, these variables, fetch loaded. */
  program: { wire: boolean; env?: Record<string, string>; fetching?: boolean };
  /** Opens the cassette for one run of the program (its server listening, its wire made). */
  open(recording: Recording, setting: PlaySetting): Promise<OpenEndpoint>;
  /** What close() does on this transport: said to a program that waits after the whole session was played. */
  closing: string;
  /** For a case that failed: hints of its own, said first, and the kinds of the output's hints they make moot. */
  failing?(recording: Recording, report: PlayReport | undefined): { hints: Hint[]; moot: string[] };
  /** The client left the session unfinished though every message was exchanged (a stream it never resumed). */
  unfinished?(report: PlayReport): boolean;
  /** `theinference replay`: the cassette served to a client started outside (on this process's
   *  stdin and stdout, or on a port of 127.0.0.1). A transport only grading plays on has none. */
  serve?(recording: Recording, options: ServeOptions): Promise<Served>;
  /** The replay options only this transport takes (`port`, `pace` over HTTP). */
  serveOptions?: readonly (keyof ServeOptions)[];
  /** `theinference verify`: the cassette's client side played against the live server, started with
   *  `server.command` or (where this transport can reach one running) found at `server.url`; `file`
   *  is the cassette's, named in what it says. */
  verify?(recording: Recording, server: LiveServer, options: { timeoutMs: number; file: string }): Promise<Drift[]>;
  /** Whether verify can reach a server that runs already, at a URL. */
  verifiesUrl?: boolean;
}

export interface ServeOptions extends FaceOptions {
  /** A port of 127.0.0.1 to listen on (0: a free one). */
  port?: number;
  /** recorded: each stream keeps the recorded gaps between its events; none (default): at once. */
  pace?: 'recorded' | 'none';
}

export interface Served {
  session: PlayerSession;
  /** Where a client finds it (a URL), said on stdout; none where the client is this process's own streams. */
  where?: string;
  close(): Promise<void>;
}

/** The live server verify plays against: the command that starts it, or the URL of one running, and
 *  the secrets of this run (sent where the cassette has their placeholders). */
export interface LiveServer {
  command?: string[];
  url?: string;
  secrets: readonly Secret[];
}
