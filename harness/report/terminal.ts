// What a person reads: a line per case, the details of what failed under it, a summary per
// stage. A consumer of verdicts: it decides nothing, it only prints.
import { DEFAULT_RUNS } from '../defaults.ts';
import type { Stage } from '../course.ts';
import type { StageResult } from '../grade/stage.ts';
import type { Difference, Status, StyledLine, Verdict } from '../run/verdict.ts';
import { clip, escapeControls, escapeGraderText } from '../terminal-text.ts';
import { detailLines, differenceLines, hintLines } from './details.ts';
import type { ResultsReport } from './model.ts';
import { painter, type Painter } from './paint.ts';
import type { Reporter } from './reporter.ts';

const MARKS: Record<Status, string> = { pass: '✓', fail: '✗', error: '✗', timeout: '✗', crash: '✗', infra: '!' };
/** Stderr lines relayed per case before the rest is only counted. */
const RELAYED_LINES = 40;
/** Failures shown in full per stage; failures that repeat one already shown, one after another, share one line. */
const DETAILED_FAILURES = 5;
/** Characters of the names a line of repeated failures lists before it only counts the rest. */
const REPEAT_NAMES_CHARS = 80;
/** Lines of one verdict's details printed before the rest is only counted. */
export const DETAIL_LINES = 200;
/** Characters of one printed line (a message, a line of details or of stderr) before it is cut. */
export const LINE_CHARS = 1000;
/** Lines of the first failure's difference the recap repeats: with the rest of it, the recap stays
 *  under 20 lines, on screen at the bottom of a 50-row terminal. */
const RECAP_DIFFERENCE_LINES = 12;
/** Lines of the first failure's first hint the recap repeats. */
const RECAP_HINT_LINES = 3;

export interface TerminalOptions {
  color: boolean;
  /** Relay the program's stderr for passing cases too. */
  verbose: boolean;
  /** End with the first failure again and the command that grades just it (a student's run, not CI's):
   *  the number `--stage` takes for a stage (its place in the course), by its slug. */
  recap?: { stageNumber(slug: string): number | undefined };
  /** Watch mode's runs of each property on a save (no --runs given), said beside the seed. */
  watchRuns?: number;
  /** A sealed grading (grade/sealed-verdict.ts): no check's or stage's duration is shown, since a program could
   *  choose it. */
  sealed?: boolean;
}

export class TerminalReporter implements Reporter {
  /** The kinds of failure (see failureKind) shown in full in this stage. */
  private shown = new Set<string>();
  /** The kinds of advice shown in full in this stage. */
  private advised = new Set<string>();
  private readonly painter: Painter;
  /** The run's first check that did not pass, and the stage it is of, for the recap. */
  private firstFailure: { verdict: Verdict; stage: string } | undefined;
  private stage = '';
  /** Failures of a mistake shown in full above, one after another: told in one line once the run ends. */
  private repeats: Verdict[] = [];
  /** The stage's checks that never ran (the submission was refused): told once, with the reason, at its end. */
  private notRun: Verdict[] = [];

  constructor(
    private readonly write: (text: string) => void,
    private readonly options: TerminalOptions,
  ) {
    this.painter = painter(options.color);
  }

  stageStart(stage: Stage): void {
    this.repeats = []; // a stage stopped before its end (a newer save) told none of them
    this.notRun = [];
    this.shown.clear();
    this.advised.clear();
    this.stage = stage.slug;
    this.write(`${this.bold(stage.slug)} ${this.dim(`· ${stage.title}`)}\n`);
  }

  verdict(verdict: Verdict): void {
    const passed = verdict.status === 'pass';
    if (!passed) this.firstFailure ??= { verdict, stage: this.stage };
    if (verdict.notRun !== undefined && !this.options.verbose) return void this.notRun.push(verdict);
    if (!passed && !this.options.verbose && this.shown.has(failureKind(verdict)) && (verdict.advice ?? []).length === 0) {
      // the same mistake as one shown in full: it joins the run of them before it, told in one line
      if (this.repeats[0] !== undefined && failureKind(this.repeats[0]) !== failureKind(verdict)) this.tellRepeats();
      this.repeats.push(verdict);
      return;
    }
    this.tellRepeats();
    const time = this.options.sealed ? undefined : this.dim(`${(verdict.durationMs / 1000).toFixed(2)} s`);
    this.write(`${this.verdictLine(verdict, time)}\n`);
    this.adviceUnder(verdict);
    if (passed && !this.options.verbose) return;
    if (!passed && !this.options.verbose) {
      const kind = failureKind(verdict);
      if (this.shown.has(kind) || this.shown.size >= DETAILED_FAILURES) {
        this.write(this.dim(`      (${this.shown.has(kind) ? 'the same mistake as above' : 'details left out'}; --verbose shows every one)\n`));
        return;
      }
      this.shown.add(kind);
    }
    // The grader's own colours survive; a program's escapes, inside the text they paint, do not.
    const details = detailLines(verdict, this.painter);
    for (const line of details.slice(0, DETAIL_LINES)) this.write(`      ${this.line(line, this.options.color)}\n`);
    const more = details.length - DETAIL_LINES;
    if (more > 0) this.write(`      ${this.dim(`… ${more} more line${more === 1 ? '' : 's'}`)}\n`);
    if (verdict.stderr) for (const line of relay(verdict.stderr)) this.write(`      ${this.dim(line)}\n`);
  }

  /** A run of failures that repeat a mistake shown above, in one line: `  ✗ a, b and 3 more  5 checks,
   *  the same mistake as above`. */
  private tellRepeats(): void {
    const run = this.repeats;
    if (run.length === 0) return;
    this.repeats = [];
    const names: string[] = [];
    for (const { name } of run) {
      if (names.length > 0 && [...names, name].join(', ').length > REPEAT_NAMES_CHARS) break;
      names.push(name);
    }
    const more = run.length - names.length;
    const listed = more > 0 ? `${names.join(', ')} and ${more} more` : names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0]!;
    const mark = this.paint(run[0]!.status === 'infra' ? 'yellow' : 'red', MARKS[run[0]!.status]);
    const count = run.length === 1 ? '' : `${run.length} checks, `;
    this.write(`  ${mark} ${this.line(listed, false)}  ${this.dim(`${count}the same mistake as above; --verbose shows every one`)}\n`);
  }

  /** Why the stage's checks never ran, once (a compile error with its code frame), and how many they are. */
  private tellNotRun(): void {
    const [first] = this.notRun;
    if (first === undefined) return;
    this.write(`  ${this.paint('red', MARKS[first.status])} ${this.line(first.notRun!, false)}\n`);
    for (const line of (first.details ?? '').split('\n').filter((line) => line !== '')) this.write(`      ${this.line(line, false)}\n`);
    const count = this.notRun.length;
    this.write(`      ${this.dim(`${count} check${count === 1 ? '' : 's'} not run; --verbose lists ${count === 1 ? 'it' : 'them'}`)}\n`);
    this.notRun = [];
  }

  /** `  ✗ <name>  <time>  <status>: <message>`: a check's line (`time` left out in the recap). */
  private verdictLine(verdict: Verdict, time: string | undefined): string {
    const passed = verdict.status === 'pass';
    const mark = this.paint(passed ? 'green' : verdict.status === 'infra' ? 'yellow' : 'red', MARKS[verdict.status]);
    const what = passed ? '' : `  ${this.paint('red', verdict.status)}: ${this.line(verdict.message, false)}`;
    return `  ${mark} ${this.line(verdict.name, false)}${time === undefined ? '' : `  ${time}`}${what}`;
  }

  /** The first failure again, last of all, so that it is on screen whatever scrolled by above: its line,
   *  its difference and its first hint as shown above, and the command that grades only it. */
  private recap(seed: number): void {
    const failure = this.firstFailure;
    if (!this.options.recap || failure === undefined) return;
    const { verdict, stage } = failure;
    this.write(`\n${this.bold('first failure')} ${this.dim(`(${stage})`)}\n${this.verdictLine(verdict, undefined)}\n`);
    const difference = verdict.difference ? pointedLines(verdict.difference) : [];
    for (const line of differenceLines({ lines: difference }, this.painter)) this.write(`      ${this.line(line, this.options.color)}\n`);
    const [hint] = verdict.hints ?? [];
    const lines = hint ? hintLines(hint, this.painter) : [];
    for (const line of lines.slice(0, RECAP_HINT_LINES)) this.write(`      ${this.line(line, this.options.color)}\n`);
    if (lines.length > RECAP_HINT_LINES) this.write(`      ${this.dim('… (the whole hint is above)')}\n`);
    const number = this.options.recap.stageNumber(stage) ?? stage;
    // a property is no case --case can name: its seed replays it
    const only = verdict.name.startsWith('property: ') ? `--seed ${seed}` : `--case ${verdict.name}`;
    this.write(`grade just it: ${this.bold(`npx theinference test --stage ${number} ${only}`)}\n`);
  }

  /** Advice, each kind in full once a stage (the spec's words with it), then only named. */
  private adviceUnder(verdict: Verdict): void {
    const advice = verdict.advice ?? [];
    const fresh = advice.filter((piece) => this.options.verbose || !this.advised.has(piece.kind));
    for (const piece of fresh) {
      this.advised.add(piece.kind);
      this.write(`      ${this.paint('yellow', 'advice:')} ${this.line(`${piece.kind}: ${piece.message}`, false)}\n`);
      this.write(`      ${this.dim(this.line(`the spec (${piece.source}): "${piece.words}"`, false))}\n`);
    }
    if (fresh.length < advice.length)
      this.write(
        this.dim(
          `      (advice as above: ${advice
            .filter((piece) => !fresh.includes(piece))
            .map((piece) => piece.kind)
            .join(', ')})\n`,
        ),
      );
  }

  /** One line of grader text, cut to LINE_CHARS and with control characters made visible. */
  private line(text: string, keepColour: boolean): string {
    const shown = escapeGraderText(clip(text, LINE_CHARS), keepColour);
    // A line cut inside a coloured span must not leave the terminal coloured.
    return keepColour && text.length > LINE_CHARS && shown.includes('\x1b[') ? `${shown}\x1b[0m` : shown;
  }

  stageEnd(result: StageResult): void {
    this.tellRepeats();
    this.tellNotRun();
    const counts = count(result.verdicts);
    const seconds = this.options.sealed ? '' : ` ${this.dim(`in ${(result.durationMs / 1000).toFixed(1)} s`)}`;
    const line = [
      `${counts.passed} passed`,
      (counts.failed > 0 || counts.notRun === 0) && `${counts.failed} failed`,
      counts.notRun > 0 && `${counts.notRun} not run`,
    ]
      .filter(Boolean)
      .join(', ');
    const advice = result.verdicts.reduce((sum, verdict) => sum + (verdict.advice?.length ?? 0), 0);
    const advised = advice === 0 ? '' : `; ${result.passed ? 'passes, with' : 'and'} ${pieces(advice)} of advice`;
    this.write(`  ${result.passed ? this.paint('green', line) : this.paint('red', line)}${seconds}${advised}\n\n`);
  }

  /** The last word: where the student stands and what to do next. */
  finish(report: ResultsReport): void {
    const graded = report.stages.filter((stage) => stage.status !== 'skipped');
    const failed = graded.find((stage) => stage.status !== 'pass');
    if (failed && this.firstFailure?.verdict.notRun !== undefined) {
      // nothing ran: no seed to replay, no first failure to repeat (the stage's lines are its only ones)
      this.write(this.paint('red', `stage ${failed.slug} fails: none of its ${failed.checks.length} checks ran; fix the error above, then save again\n`));
      return;
    }
    if (graded.some((stage) => stage.checks.some((check) => check.origin === 'property'))) {
      const runs =
        this.options.watchRuns === undefined
          ? ''
          : `, ${this.options.watchRuns} runs each (a save in watch mode; a grading without --watch makes ${DEFAULT_RUNS})`;
      this.write(this.dim(`property tests ran with --seed ${report.seed}${runs}\n`));
    }
    if (!failed) {
      const advice = graded.reduce((sum, stage) => sum + stage.advisories, 0);
      const advised = advice === 0 ? '' : `, with ${pieces(advice)} of advice above`;
      this.write(this.paint('green', `all graded stages pass: ${graded.map((stage) => stage.slug).join(', ')}${advised}\n`));
      return;
    }
    const passed = failed.checks.filter((check) => check.status === 'pass').length;
    this.write(
      this.paint(
        'red',
        `stage ${failed.slug} fails: ${failed.checks.length - passed} of ${failed.checks.length} checks; fix the first one above, then save again\n`,
      ),
    );
    this.recap(report.seed);
  }

  private bold(text: string): string {
    return this.painter.paint('bold', text);
  }

  private dim(text: string): string {
    return this.painter.paint('dim', text);
  }

  private paint(colour: 'red' | 'green' | 'yellow', text: string): string {
    return this.painter.paint(colour, text);
  }
}

/** Of a difference, what says where it is, in at most RECAP_DIFFERENCE_LINES: its headings, and of each
 *  side's excerpt the line a caret points at and the caret (the lines around them are above). */
function pointedLines(difference: Difference): StyledLine[] {
  const isCaret = (line: StyledLine) => line.some((span) => span.style === 'caret-expected' || span.style === 'caret-actual');
  const inExcerpt = (line: StyledLine) => line.some((span) => span.text.includes('│'));
  const { lines } = difference;
  const pointed = lines.some(isCaret)
    ? lines.filter((line, at) => !inExcerpt(line) || isCaret(line) || (lines[at + 1] !== undefined && isCaret(lines[at + 1]!)))
    : lines;
  return pointed.slice(0, RECAP_DIFFERENCE_LINES);
}

/** Two failures are the same mistake when they say the same and name the same kinds of mistake. */
function failureKind(verdict: Verdict): string {
  // Measured figures (the CPU a timed-out case used) differ between cases that made the same mistake.
  const message = verdict.message.replace(/\d+(\.\d+)?/g, '#');
  const mistakes = (verdict.hints ?? []).filter((hint) => !hint.aboutTheCase);
  return [verdict.status, message, ...mistakes.map((hint) => hint.kind)].join('\n');
}

/** Node's own stack frames and version banner say nothing about the student's code. */
const NODE_NOISE = /^\s+at .*\(node:internal\/|^\s+at node:internal\/|^Node\.js v\d+/;

/** The program's stderr as the student reads it: its first lines, each escaped and cut; the rest counted. */
function relay(stderr: string): string[] {
  const shown: string[] = [];
  let more = 0;
  const text = stderr.endsWith('\n') ? stderr.slice(0, -1) : stderr;
  for (let start = 0; start <= text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    // Only the start of a line decides whether it is noise: a long line is not scanned whole.
    const line = text.slice(start, Math.min(end, start + LINE_CHARS + 1));
    if (!NODE_NOISE.test(line)) {
      if (shown.length < RELAYED_LINES) shown.push(`[your_program] ${escapeControls(clip(line, LINE_CHARS))}`);
      else more++;
    }
    if (newline === -1) break;
    start = newline + 1;
  }
  if (more > 0) shown.push(`[your_program] … ${more} more lines of stderr`);
  return shown;
}

function pieces(count: number): string {
  return count === 1 ? 'a piece' : `${count} pieces`;
}

function count(verdicts: Verdict[]): { passed: number; failed: number; notRun: number } {
  const passed = verdicts.filter((verdict) => verdict.status === 'pass').length;
  const notRun = verdicts.filter((verdict) => verdict.notRun !== undefined).length;
  return { passed, failed: verdicts.length - passed - notRun, notRun };
}
