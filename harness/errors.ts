// The mistakes theinference reports as one line and exit code 2, having written nothing: in what it
// was given (a course, a cassette, a report, a folder), on the machine it runs on, or in how it
// was called. One type per whose problem it is, so a caller can tell them apart.

/** Bad input: the message names the file (and line, and field, where there is one) and what was expected. */
export class InputError extends Error {}

/** A command line theinference cannot read; the CLI adds where to find the usage. */
export class UsageError extends InputError {}

/** The course's own files are wrong (course.yaml, its cases and fixtures, the reference solution). */
export class CourseError extends InputError {}

/** What was given as a submission cannot be graded as one (no such folder, ...). */
export class SubmissionError extends InputError {}

/** This machine cannot do what was asked (no sandbox, no way to cut the network, no runnable program). */
export class HostError extends InputError {}

/** A report cannot be read, merged or written. */
export class ReportError extends InputError {}

/** Why a run stopped, as its report's `problems` says it: an InputError in its own words (the line the
 *  CLI prints); anything else is the grader's own failure. */
export function stopReason(error: unknown): string {
  if (error instanceof InputError) return error.message;
  return `the grader failed: ${error instanceof Error ? error.message : String(error)}`;
}
