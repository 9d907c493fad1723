// What every recorder shares, whatever its transport: the skeleton of a recording. It opens (the
// target refused before anything starts when it exists without --force or its folder does not),
// taps messages into frames as they cross (keeping count of the client's requests still
// unanswered), stops on the first SIGINT or SIGTERM, and ends by building the cassette (redacted by
// the transport, nondeterministic values marked free; over the earlier recording it replaces, that
// one's values carried over and its hand edits kept) and writing it, or, after a session that was
// not clean, `<out>.partial` only. A recorder adds its transport's parts: how it forwards, what a
// frame holds, what makes its session not clean.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { escapeControls } from '../../terminal-text.ts';
import { loadCassette } from '../format/format.ts';
import { PLACEHOLDERS, SECRET_FIELDS } from '../format/placeholders.ts';
import {
  describeMessage,
  isObject,
  kindOf,
  type Cassette,
  type ClientFrame,
  type Frame,
  type Json,
  type JsonObject,
  type Provenance,
  type ServerFrame,
} from '../format/model.ts';
import { carryOver, markNondeterministic } from './normalise.ts';
import { redactCommand, type Redactor } from './redact.ts';
import { keepHandEdits } from './rerecord.ts';
import { saveCassette } from '../format/save.ts';
import { findPackage, portableCommand } from './server-command.ts';

/** Paths free in every client message of a recording, unless told otherwise. */
export const DEFAULT_FREE = ['params.clientInfo'];

/** What the write at the end did: the cassette, `.partial` (the session was not clean), or neither. */
export type Written = 'cassette' | 'partial' | 'nothing';

export interface RecordingPlace {
  /** The cassette's path as the author typed it (said in every line), from `cwd`. */
  out: string;
  force?: boolean;
  cwd?: string;
  /** Where the recorder's lines go (each escaped of control characters first). */
  log?: (line: string) => void;
}

export class Recording {
  readonly frames: Frame[] = [];
  readonly target: string;
  readonly cwd: string;
  readonly log: (line: string) => void;
  /** Client requests the server has not answered yet, by JSON id. */
  private readonly pending = new Map<string, JsonObject>();

  constructor(private readonly place: RecordingPlace) {
    this.cwd = place.cwd ?? process.cwd();
    this.target = resolve(this.cwd, place.out);
    const sink = place.log ?? ((line: string) => process.stderr.write(`theinference record: ${line}\n`));
    this.log = (line) => sink(escapeControls(line));
  }

  /** Why the target cannot be recorded to, said in one line; none when it can. */
  refusal(): string | undefined {
    return targetProblem(this.place.out, this.target, this.place.force);
  }

  /** A client message crossed: a request now awaits its answer; a cancelled one needs none. */
  tapClient(frame: ClientFrame): void {
    this.frames.push(frame);
    const { message } = frame;
    if (kindOf(message) === 'request') this.pending.set(JSON.stringify(message.id), message);
    else if (message.method === 'notifications/cancelled' && isObject(message.params)) this.answered(message.params.requestId as Json);
  }

  /** A server message crossed: a response answers its request. */
  tapServer(frame: ServerFrame): void {
    this.frames.push(frame);
    if (kindOf(frame.message) === 'response') this.answered(frame.message.id as Json);
  }

  /** The request `id` needs no more answer (answered, cancelled, or refused below the protocol). */
  answered(id: Json | undefined): void {
    this.pending.delete(JSON.stringify(id));
  }

  awaits(id: Json | undefined): boolean {
    return this.pending.has(JSON.stringify(id));
  }

  /** Leaves the session out of the recording: the message never reached the server. */
  untap(frame: ClientFrame): void {
    this.frames.splice(this.frames.indexOf(frame), 1);
    if (kindOf(frame.message) === 'request') this.answered(frame.message.id as Json);
  }

  /** The requests still unanswered, each as a line names it. */
  unanswered(): string[] {
    return [...this.pending.values()].map((message) => describeMessage(message));
  }

  /** Calls `stop` on each SIGINT or SIGTERM until the returned function is called. */
  onStop(stop: (signal: NodeJS.Signals) => void): () => void {
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    };
  }

  /** What the provenance says of how the server was started, when the recorder knows: the command as
   *  typed (portable, redacted) and its package. */
  startedBy(command: string[] | undefined, redactor: Redactor): Pick<Provenance, 'command' | 'package' | 'packageVersion'> {
    if (command === undefined) return {};
    return { command: redactCommand(portableCommand(command, this.cwd), redactor), ...findPackage(command, this.cwd) };
  }

  /** Builds the cassette from `redacted` frames (normalised unless `keepNondeterministic`, carried
   *  over from the earlier recording; `make` given that one, for what else it carries over) and
   *  writes it, or `.partial` when `flaws` says what made the session not clean. */
  write(
    redacted: Frame[],
    make: (frames: Frame[], previous: Cassette | undefined) => Cassette,
    flaws: string | undefined,
    { keepNondeterministic = false } = {},
  ): { written: Written; cassette: Cassette } {
    const previous = previousCassette(this.target);
    if (!keepNondeterministic) {
      markNondeterministic(redacted);
      if (previous) carryOver(previous.cassette.frames, redacted);
    }
    const cassette = make(redacted, previous?.cassette);
    const lost = previous ? keepHandEdits(previous.cassette, previous.text, cassette) : [];
    const written = writeRecording(cassette, { out: this.place.out, target: this.target, force: this.place.force }, flaws, this.log);
    if (written !== 'nothing') logRedactions(cassette, this.log);
    if (written === 'cassette') for (const line of lost) this.log(`not kept from the earlier recording: ${line}`);
    return { written, cassette };
  }
}

/** How many values record replaced, by what they were (the placeholder's name: a variable, a flag, a
 *  header, or the role of an authorization's value, `access-token`) and where. */
function logRedactions(cassette: Cassette, log: (line: string) => void): void {
  const places = new Map<string, Map<string, number>>();
  const note = (name: string, where: string) => {
    const byPlace = places.get(name) ?? new Map<string, number>();
    byPlace.set(where, (byPlace.get(where) ?? 0) + 1);
    places.set(name, byPlace);
  };
  const count = (text: string, where: string) => {
    for (const [, name] of text.matchAll(/<redacted:([^>]+)>/g)) note(name!, where);
    // the authorization's values random by design, each by its role (<access-token>, <code-2>)
    for (const [, role] of text.matchAll(PLACEHOLDERS)) if (SECRET_ROLES.has(role!)) note(role!, where);
  };
  // Place by place, in a fixed order: the streams interleave differently from one recording to the next.
  for (const arg of cassette.provenance.command ?? []) count(arg, 'the command');
  for (const frame of cassette.frames) {
    if (frame.from !== 'client') continue;
    // a credential header is kept as "<redacted>", by its name
    for (const [name, value] of Object.entries(frame.http?.headers ?? {})) {
      if (value === '<redacted>') note(name, 'request headers');
      else count(value, 'request headers');
    }
  }
  for (const from of ['client', 'server', 'sse', 'stdout', 'stderr', 'auth'] as const) {
    for (const frame of cassette.frames) {
      if (frame.from !== from) continue;
      if (frame.from === 'stderr' || frame.from === 'stdout') count(frame.text, `${frame.from} lines`);
      else if (frame.from === 'sse') count(frame.data ?? '', 'event data');
      else if (frame.from === 'auth') count(JSON.stringify([frame.request, frame.reply]), "the authorization's exchanges");
      else count(JSON.stringify(frame.message), `${frame.from} messages`);
    }
  }
  if (places.size === 0) return;
  const total = [...places.values()].reduce((sum, byPlace) => sum + [...byPlace.values()].reduce((a, b) => a + b, 0), 0);
  const named = [...places].map(([name, byPlace]) => `${name} (${[...byPlace].map(([where, times]) => `${times} in ${where}`).join(', ')})`);
  log(`redacted ${total} value${total === 1 ? '' : 's'}: ${named.join('; ')}`);
}

/** The roles of the values an authorization keeps only by role (its secrets, and the state and PKCE challenge). */
const SECRET_ROLES: ReadonlySet<string> = new Set(SECRET_FIELDS.values());

/** Why `out` (resolved: `target`) cannot be recorded to, said in one line; none when it can. */
export function targetProblem(out: string, target: string, force: boolean | undefined): string | undefined {
  if (existsSync(target) && !force) return `${out} exists; pass --force to replace it`;
  if (!existsSync(dirname(target))) return `${out}: the folder ${dirname(out)} does not exist`;
  return undefined;
}

/** The cassette a re-recording replaces, and its text, if there is a readable one. */
function previousCassette(target: string): { cassette: Cassette; text: string } | undefined {
  if (!existsSync(target)) return undefined;
  try {
    return { cassette: loadCassette(target), text: readFileSync(target, 'utf8') };
  } catch {
    return undefined;
  }
}

/** Writes the cassette, or `<out>.partial` when `flaws` says what made the session not clean; says
 *  which in one line. */
function writeRecording(
  cassette: Cassette,
  where: { out: string; target: string; force?: boolean },
  flaws: string | undefined,
  log: (line: string) => void,
): Written {
  const { out, target } = where;
  const counts = `${cassette.frames.filter((frame) => frame.from === 'client').length} client and ${cassette.frames.filter((frame) => frame.from === 'server').length} server messages`;
  if (flaws !== undefined) {
    try {
      saveCassette(cassette, `${target}.partial`, { overwrite: true });
    } catch (error) {
      log(`${flaws}; and cannot write ${out}.partial: ${(error as Error).message}`);
      return 'nothing';
    }
    log(`${flaws}; ${out} not written, what was recorded (${counts}) is in ${out}.partial`);
    return 'partial';
  }
  try {
    saveCassette(cassette, target, { overwrite: where.force === true });
  } catch (error) {
    log(`cannot write ${out}: ${(error as Error).message}`);
    return 'nothing';
  }
  log(`wrote ${out}: ${counts}`);
  return 'cassette';
}
