// The report of a run, as results.json holds it: its types and the schema a file read back is held
// to (`checkResultsReport`). Versioned; docs/ci.md describes every field. Every renderer reads
// this one model (json.ts, junit.ts, html.ts, summary.ts, terminal.ts); entries.ts makes it from the verdicts.
import { MAX_SEED } from '../defaults.ts';
import type { Advice, Difference, Hint } from '../run/verdict.ts';
import type { Diagnosis, DiagnosisKind, Exchange } from '../cassette/index.ts';
import { KINDS } from '../protocols/index.ts';
import {
  array,
  boolean,
  integer,
  json,
  jsonObject,
  nullable,
  number,
  object,
  oneOf,
  optional,
  refine,
  string,
  type Validator,
  type Infer,
  type Same,
} from './json-checks.ts';
import { clip } from '../terminal-text.ts';

/** 2: a check's endpoints each have a session (`sessions`), where version 1 had one cassette, `protocol` and
 *  `exchange`. */
export const REPORT_VERSION = 2;
/** Bytes of a program's stdout, and characters of its stderr and details, kept per check. */
export const KEPT_OUTPUT = 4096;
/** Characters of a check's one-line message kept (a crash quotes a line of the program's stderr). */
export const KEPT_MESSAGE = 1000;

/** How grading ended, judged from the checks. */
export type GradedStatus = 'pass' | 'fail' | 'error';
/** `interrupted`: the grader was stopped by SIGINT or SIGTERM before it finished. */
export type RunStatus = GradedStatus | 'interrupted';
/** 0 pass, 1 fail, 2 error (or a merge holding an interrupted shard), 130/143 stopped by SIGINT/SIGTERM. */
export type ExitCode = 0 | 1 | 2 | 130 | 143;
export type CheckStatus = 'pass' | 'fail' | 'error' | 'timeout' | 'crash';
export const ORIGINS = ['public', 'generated', 'property', 'hidden'] as const;
export type Origin = (typeof ORIGINS)[number];

export interface KeptText {
  text: string;
  /** Size of the whole, before it was cut to `text` (bytes for output, characters otherwise). */
  size: number;
  truncated: boolean;
}

export interface CheckReport {
  /** Unique in a run: `<stage>/<name>`; what shards are merged by. */
  id: string;
  name: string;
  origin: Origin;
  status: CheckStatus;
  /** The grader, not the program, is at fault (then status is `error`). */
  infra: boolean;
  /** One line, at most KEPT_MESSAGE characters and `…`. */
  message: string;
  /** Everything a student reads under the case, as plain text (what the terminal shows without colour). */
  details: KeptText | null;
  /** The mistakes named, each once. */
  hints: Hint[];
  /** Where stdout first differs from expected.json, and the explainer's styled account of it. */
  difference: Difference | null;
  /** Each endpoint the case's program talks to, its session as played, in course.yaml's order. */
  sessions: SessionReport[];
  /** What the spec recommends (a SHOULD) and the client did not do: none of it fails the check. */
  advice: Advice[];
  output: KeptText | null;
  stderr: KeptText | null;
  durationMs: number;
  seed: number | null;
  /** The unit's place in the whole run (all shards), so that merged reports keep course order. */
  position: number;
}

/** One endpoint's session of a case. */
export interface SessionReport {
  /** The endpoint's name (course.yaml's). */
  endpoint: string;
  /** Its recording, relative to the course (`generated (--seed N)` for a generated case's); null for a hidden case. */
  cassette: string | null;
  /** What its player objected to: each a rule of the protocol broken (the check is then an error). */
  diagnoses: Diagnosis[];
  /** Diagnoses counted and not kept. */
  more: number;
  /** The session, message by message (the HTML report draws it); null where the program never reached it. */
  exchange: Exchange | null;
}

/** Points of a grade: a stage's all when it passes, none when it does not (course.yaml's `points:`). */
export interface Points {
  earned: number;
  possible: number;
}

export interface StageReport {
  slug: string;
  title: string;
  /** `skipped`: not graded, because an earlier stage failed and --all was not given, or the run was interrupted. */
  status: GradedStatus | 'skipped';
  points: Points;
  durationMs: number;
  /** Units of this stage in the whole run, all shards together: each case, and the property suite as one
   *  (its properties are several checks that share one `position`). */
  planned: number;
  /** Pieces of advice given to its checks, all together. */
  advisories: number;
  checks: CheckReport[];
}

export interface ResultsReport {
  version: typeof REPORT_VERSION;
  status: RunStatus;
  /** The exit code of the run that wrote this (see ExitCode). */
  exitCode: ExitCode;
  seed: number;
  shard: { index: number; count: number } | null;
  /** Which shards a merged report holds; null for a single run. */
  mergedShards: number[] | null;
  startedAt: string;
  durationMs: number;
  grader: { name: string; version: string };
  /** Which course graded it: shards of different courses are not merged (see courseDigest). */
  course: { digest: string };
  /** Present, and true, only in the report of a student's own workflow (`test --feedback`): graded with the
   *  course as published in the grader's package, without hidden or generated cases; feedback, not a grade. */
  feedback?: boolean;
  /** Present, and true, only in the report a student reads of a sealed grading (hidden cases, or a class's):
   *  every check tells its status, a fixed message and its first hint in general words; no program's words,
   *  no durations (grade/sealed-verdict.ts). The teacher's report of the same run is whole, without it. */
  sealed?: boolean;
  submission: {
    path: string;
    /** Files outside src/ that differ from the course's; none of them was used. `missing`: a course file a
     *  student's repository does not have (a feedback report's, which compares the course's files only). */
    changedOutsideSrc: { path: string; change: 'modified' | 'added' | 'missing' }[];
    changesCut: boolean;
    /** Symbolic links under src/ that were not copied. */
    linksIgnored: string[];
    /** Files under src/ that were not copied: not regular files (FIFOs, sockets, devices) or too large. */
    filesIgnored: { path: string; why: string }[];
    /** What a submission must have and this one has not (e.g. src/mcp.ts). */
    missing: string[];
  };
  limits: {
    timeoutMs: number | null;
    memoryBytes: number;
    /** How each case's memory was counted against memoryBytes: its cgroup's count (all it made), the grader's
     *  (resident, and in its /tmp), or not at all. Absent from the report of a grader before it. */
    memoryCounted?: 'cgroup' | 'resident' | 'none';
    outputCapBytes: number;
    network: 'on' | 'off';
  };
  /** How the program was confined: bwrap, or not at all. */
  sandbox: 'bwrap' | 'none';
  hiddenCases: number;
  generatedCases: number;
  counts: Record<CheckStatus, number> & { total: number };
  /** Why the run is `error` (or `interrupted`) beyond its checks (e.g. a shard missing from a merge). */
  problems: string[];
  /** The stages' points together. */
  points: Points;
  stages: StageReport[];
}

// ---------------------------------------------------------------------------- read back

const keptText = object({ text: string({ max: KEPT_OUTPUT }), size: integer(), truncated: boolean });

const hintSchema = object({ kind: string(), lines: array(string()) });
const SPAN_STYLES = ['heading', 'dim', 'expected', 'actual', 'expected-mark', 'actual-mark', 'mark', 'caret-expected', 'caret-actual'] as const;
const differenceSchema = object({
  offset: integer(),
  line: integer(1),
  column: integer(1),
  lines: array(array(object({ text: string(), style: optional(oneOf(...SPAN_STYLES)) }))),
});
/** Every kind of diagnosis: the kinds' tables have a row for each. */
const DIAGNOSIS_KINDS = Object.keys(KINDS) as DiagnosisKind[];
const recordedRef = object({ frame: integer(), line: optional(integer(1)), message: jsonObject, newSession: optional(boolean) });
const diagnosisSchema = object({
  kind: oneOf(...DIAGNOSIS_KINDS),
  message: string(),
  cassette: optional(string()),
  path: optional(string()),
  expected: optional(json),
  actual: optional(json),
  received: optional(json),
  waitingFor: optional(recordedRef),
  nearest: optional(recordedRef),
  unusedCount: optional(integer()),
  rule: optional(string()),
});

const adviceSchema = object({ kind: oneOf(...DIAGNOSIS_KINDS), message: string(), source: string(), words: string() });
const exchangeSchema = object({
  steps: array(
    object({
      from: oneOf('client', 'server'),
      kind: oneOf('request', 'notification', 'response', 'line', 'transport'),
      method: optional(string()),
      id: optional(json),
      message: json,
      recorded: optional(json),
      diagnosis: optional(object({ kind: oneOf(...DIAGNOSIS_KINDS), message: string() })),
    }),
  ),
  more: integer(),
});

const sessionSchema = object({
  endpoint: string(),
  cassette: nullable(string()),
  diagnoses: array(diagnosisSchema),
  more: integer(),
  exchange: nullable(exchangeSchema),
});

const checkReportSchema = refine(
  object({
    id: string(),
    name: string(),
    origin: oneOf(...ORIGINS),
    status: oneOf('pass', 'fail', 'error', 'timeout', 'crash'),
    infra: boolean,
    message: string({ max: KEPT_MESSAGE + 1 }),
    details: nullable(keptText),
    hints: array(hintSchema),
    difference: nullable(differenceSchema),
    sessions: array(sessionSchema),
    advice: array(adviceSchema),
    output: nullable(keptText),
    stderr: nullable(keptText),
    durationMs: integer(),
    seed: nullable(integer(0, MAX_SEED)),
    position: integer(),
  }),
  (check) =>
    check.infra && check.status !== 'error' ? { path: 'status', problem: `a check the grader failed (infra) is an error, not ${check.status}` } : undefined,
);

const pointsSchema = refine(object({ earned: integer(0), possible: integer(0) }), (points) =>
  points.earned > points.possible ? { path: 'earned', problem: `${points.earned} points earned of ${points.possible} possible` } : undefined,
);

const stageReportSchema = object({
  slug: string(),
  title: string(),
  status: oneOf('pass', 'fail', 'error', 'skipped'),
  points: pointsSchema,
  durationMs: integer(),
  planned: integer(),
  advisories: integer(),
  checks: array(checkReportSchema),
});

const EXIT_CODES: Record<RunStatus, readonly ExitCode[]> = { pass: [0], fail: [1], error: [2], interrupted: [130, 143, 2] };

const resultsReportSchema = refine(
  object({
    version: oneOf(REPORT_VERSION),
    status: oneOf('pass', 'fail', 'error', 'interrupted'),
    exitCode: oneOf(0, 1, 2, 130, 143),
    seed: integer(0, MAX_SEED),
    shard: nullable(
      refine(object({ index: integer(), count: integer(1) }), (shard) =>
        shard.index > shard.count ? { path: 'index', problem: `shard ${shard.index} of ${shard.count} does not exist` } : undefined,
      ),
    ),
    mergedShards: nullable(array(integer(1))),
    startedAt: refine(string(), (text) =>
      Number.isNaN(Date.parse(text)) ? { problem: `expected a date and time, got ${JSON.stringify(clip(text, 40))}` } : undefined,
    ),
    durationMs: integer(),
    grader: object({ name: string(), version: string() }),
    course: object({ digest: refine(string(), (text) => (/^[0-9a-f]{64}$/.test(text) ? undefined : { problem: 'expected a sha256 digest (64 hex digits)' })) }),
    feedback: optional(boolean),
    sealed: optional(boolean),
    submission: object({
      path: string(),
      changedOutsideSrc: array(object({ path: string(), change: oneOf('modified', 'added', 'missing') })),
      changesCut: boolean,
      linksIgnored: array(string()),
      filesIgnored: array(object({ path: string(), why: string() })),
      missing: array(string()),
    }),
    limits: object({
      timeoutMs: nullable(number(0)),
      memoryBytes: number(0),
      memoryCounted: optional(oneOf('cgroup', 'resident', 'none')),
      outputCapBytes: integer(),
      network: oneOf('on', 'off'),
    }),
    sandbox: oneOf('bwrap', 'none'),
    hiddenCases: integer(),
    generatedCases: integer(),
    counts: object({ pass: integer(), fail: integer(), error: integer(), timeout: integer(), crash: integer(), total: integer() }),
    problems: array(string()),
    points: pointsSchema,
    stages: array(stageReportSchema, { min: 1 }),
  }),
  (report) => {
    if (!EXIT_CODES[report.status].includes(report.exitCode))
      return { path: 'exitCode', problem: `a ${report.status} run does not exit ${report.exitCode} (expected ${EXIT_CODES[report.status].join(' or ')})` };
    const count = report.shard?.count ?? 1;
    if (report.shard?.index === 0 && report.mergedShards === null)
      return { path: 'shard.index', problem: 'shard 0 stands for a merge, and mergedShards is null' };
    const bad = report.mergedShards?.find((index) => index > count);
    if (bad !== undefined) return { path: 'mergedShards', problem: `shard ${bad} of ${count} does not exist` };
    if (report.mergedShards && new Set(report.mergedShards).size !== report.mergedShards.length)
      return { path: 'mergedShards', problem: 'a shard is listed twice' };
    return undefined;
  },
);

// The schema and the interfaces above describe the same shape: a change to one that is not made to
// the other does not compile.
const schemaMatchesType: Same<Infer<typeof resultsReportSchema>, ResultsReport> = true;
void schemaMatchesType;

/** `value` as a results report, or a SchemaError naming the first field that is not as docs/ci.md says. */
export const checkResultsReport: Validator<ResultsReport> = resultsReportSchema;
