// The mistakes theinference reports as one line and exit code 2, having written nothing: in what it
// was given (a course, a cassette, a report, a folder) or in how it was called.

/** Bad input: the message names the file (and line, and field, where there is one) and what was expected. */
export class InputError extends Error {}

/** A command line theinference cannot read; the CLI adds where to find the usage. */
export class UsageError extends InputError {}
