// vitest ends its workers with SIGTERM, which skips 'exit' handlers: the scratch folders a grading run
// in a worker leaves for them (case copies, harness scripts) stayed in the temporary folder, hundreds
// a suite run. Exiting on it runs them, as the CLI's own handling of the signal does.
const HANDLED = Symbol.for('theinference.exit-on-sigterm');
const flags = globalThis as { [HANDLED]?: true };
if (!flags[HANDLED]) {
  flags[HANDLED] = true;
  process.once('SIGTERM', () => process.exit(143));
}
