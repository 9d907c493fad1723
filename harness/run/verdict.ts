// What grading one case (or one property) comes to. Everything the reporters print or write
// is read off these values; nothing downstream looks at processes or bytes again. Kept as data
// (kinds, positions, styled spans): each reporter turns it into its own text.
import type { Diagnosis, DiagnosisKind, Exchange } from '../cassette/index.ts';
import type { Hint } from '../hint.ts';

export type { Hint };

export type Status =
  | 'pass'
  | 'fail' // the output differs from expected.json, or a property found a counterexample
  | 'error' // the cassette's verdict: the client broke the protocol
  | 'timeout'
  | 'crash' // non-zero exit or killed by a signal
  | 'infra'; // the grader itself could not run it

export interface Verdict {
  /** The case folder's name, or `property: <name>`. */
  name: string;
  status: Status;
  /** One line: what happened, in the grader's words (a crash quotes the program's error line). Made one
   *  line (oneLine) where every verdict leaves grading: gradeStage. */
  message: string;
  /** Plain lines from the grader that come first: a property's counterexample, what a stopped program had done. */
  details?: string;
  /** Where and how stdout differs from expected.json. */
  difference?: Difference;
  /** The mistakes the difference shows, each named once. */
  hints?: Hint[];
  /** For a case whose program talks to endpoints: each endpoint's session as its player played it, in
   *  course.yaml's order. */
  sessions?: EndpointSession[];
  /** What the spec recommends (a SHOULD) and the client did not do: said, counted, and failing nothing. */
  advice?: Advice[];
  /** The command that runs the case by hand. */
  rerun?: string;
  /** What the program wrote on stderr, relayed under the case. */
  stderr?: string;
  /** What the program wrote on stdout (up to the output cap), for machine-read reports. */
  stdout?: Buffer;
  durationMs: number;
  /** For properties and randomised cases: the seed that replays this run. */
  seed?: number;
  /** Why the check never ran, alike for every check of the run: the submission was refused before anything
   *  of it started (it does not compile, or imports what it may not). `message` says it too. */
  notRun?: string;
}

/** A recommendation not followed: what the client did, and the spec's words that recommend otherwise. */
export interface Advice {
  kind: DiagnosisKind;
  message: string;
  /** Where the words are (the kind's row, cassette/kinds/). */
  source: string;
  words: string;
}

/** How a reporter may show a span: colours on a terminal, classes in HTML, nothing in plain text. */
export type SpanStyle = 'heading' | 'dim' | 'expected' | 'actual' | 'expected-mark' | 'actual-mark' | 'mark' | 'caret-expected' | 'caret-actual';
export interface Span {
  text: string;
  style?: SpanStyle;
}
/** A line of text made of spans. */
export type StyledLine = Span[];

/** Where stdout first differs from expected.json, and the explainer's account of it. */
export interface Difference {
  offset: number;
  /** 1-based, in expected.json. */
  line: number;
  column: number;
  /** What differs (the JSON path, an empty or short output), both sides around the spot with a caret, the marks used. */
  lines: StyledLine[];
}

/** One endpoint's session of a case: where its recording is, what its player objected to (a rule of the
 *  protocol broken: the case is an error), and the session message by message. */
export interface EndpointSession {
  /** The endpoint's name (course.yaml's): its lane in the reports. */
  endpoint: string;
  /** Its recording, as a student finds it (fixtures/...). */
  cassette: string;
  diagnoses: Diagnosis[];
  /** Diagnoses counted and not kept. */
  more: number;
  /** The session message by message, where the program reached the endpoint. */
  exchange?: Exchange;
}

/** The diagnoses of a verdict's sessions, in order. */
export function diagnosesOf(verdict: Pick<Verdict, 'sessions'>): Diagnosis[] {
  return (verdict.sessions ?? []).flatMap((session) => session.diagnoses);
}
