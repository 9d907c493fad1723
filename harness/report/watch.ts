// What watch mode says between gradings: which save started one, that it waits, its keys and its
// filter. The gradings themselves are told by the terminal reporter; this is only watch's own lines.
import { painter, type Painter } from './paint.ts';

const CLEAR_SCREEN = '\x1b[2J\x1b[3J\x1b[H';
/** Back to the start of the line, and the line wiped: the pattern being typed is drawn again on each key. */
const REDRAW_LINE = '\r\x1b[2K';

export interface WatchTerminalOptions {
  color: boolean;
  /** Clear the screen before each grading (a terminal: only the last grading is worth reading). */
  clear: boolean;
  /** The keys are listened to (stdin is a terminal): say so under each grading. */
  keys: boolean;
  /** Where the HTML report is served live (`--html`), said under each grading. */
  page?: string;
}

/** The keys as `h` shows them. */
const HELP = [
  ['a or Enter', 'grade every case again'],
  ['f', 'grade again only the checks that failed'],
  ['p', 'filter the cases by name: a pattern as --case takes it, then Enter'],
  ['q', 'quit'],
  ['h', 'show this help'],
] as const;

export class WatchTerminal {
  private readonly painter: Painter;

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: WatchTerminalOptions,
  ) {
    this.painter = painter(options.color);
  }

  /** A grading starts, and why. */
  gradingStarts(reason: string): void {
    if (this.options.clear) this.write(CLEAR_SCREEN);
    this.write(`[watch] ${new Date().toLocaleTimeString()} ${reason}\n\n`);
  }

  /** A save whose code is the last grading's (LastGrading): nothing graded, the screen kept, a line under it. */
  unchanged(reason: string): void {
    const again = this.options.keys ? 'press a to grade it again' : 'save a change to grade again';
    this.write(`\n[watch] ${new Date().toLocaleTimeString()} ${reason}, but not the code that runs: the grading above stands (${again})\n`);
  }

  /** What stopped a grading before it began: the course could not be read, a pattern named no case. */
  problem(message: string): void {
    this.write(`theinference: ${message}\n`);
  }

  /** The grading is over: what the next one waits for, and under it the keys. `filter`: what is graded when not all. */
  waiting(filter: string | undefined): void {
    // a filter can only be set, and cleared, with the keys
    const graded = filter === undefined || !this.options.keys ? '' : ` (grading ${filter}; a grades all)`;
    this.write(`\n[watch] waiting for changes in src/${graded}${this.options.keys ? '' : ' (Ctrl-C to stop)'}\n`);
    if (this.options.page) this.write(this.painter.paint('dim', `the HTML report, which reloads after each grading: ${this.options.page}\n`));
    if (this.options.keys) this.write(this.painter.paint('dim', 'press h to show help, q to quit\n'));
  }

  help(): void {
    this.write(`\n${this.painter.paint('bold', 'watch keys')}\n`);
    for (const [key, what] of HELP) this.write(`  press ${this.painter.paint('bold', key.padEnd(10))}  ${what}\n`);
  }

  /** A word from watch that changes nothing (nothing failed to grade again). */
  note(text: string): void {
    this.write(`\n[watch] ${text}\n`);
  }

  /** The pattern as typed so far, on its own line, drawn again on each key. */
  typingPattern(typed: string): void {
    this.write(`${REDRAW_LINE}pattern (Enter to filter, Esc to cancel, empty for all): ${typed}`);
  }

  /** Typing ended (Enter or Esc): the prompt's line is left. */
  patternDone(): void {
    this.write('\n');
  }

  stopped(): void {
    this.write('\n[watch] stopped\n');
  }
}
