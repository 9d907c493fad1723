// Runs property suites against a student's module in a process of its own, so that a student
// function that hangs, exits or blows the stack takes down this process and not the grader:
//   node --import <tsx loader> child.ts --suite framing --module /abs/src/mcp.ts
//        --seed 42 --runs 1000 [--properties one-line,round-trip]
// Protocol lines (protocol.ts) go to fd 3 with synchronous writes, so each one is out before
// the student's code runs again, whatever that code then does to the process.
import { fstatSync, writeSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { PROTOCOL_FD, type ChildMessage } from './protocol.ts';
import { show, clip } from './show.ts';
import { describeThrown, type PropertyCheck, type StudentModule } from './suite.ts';
import { findSuite } from './suites.ts';

// Taken before the student's module loads, which might patch them.
const stringify = JSON.stringify;
const now = performance.now.bind(performance);
const exit: (code: number) => never = process.exit.bind(process);

/** fd 3 when the parent opened it; stdout when run by hand. */
const protocolFd = (() => {
  try {
    fstatSync(PROTOCOL_FD);
    return PROTOCOL_FD;
  } catch {
    return 1;
  }
})();

function send(message: ChildMessage): void {
  const bytes = Buffer.from(stringify(message) + '\n');
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(protocolFd, bytes, written);
    } catch (error) {
      // a non-blocking pipe that is full: wait for the parent to read
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    }
  }
}

function usage(problem: string): never {
  process.stderr.write(`child.ts: ${problem}\n`);
  exit(2);
}

function integerOption(value: string | undefined, name: string): number {
  const number = Number(value);
  if (value === undefined || !Number.isSafeInteger(number)) usage(`--${name} must be an integer`);
  return number;
}

const { values } = parseArgs({
  options: {
    suite: { type: 'string' },
    module: { type: 'string' },
    seed: { type: 'string' },
    runs: { type: 'string' },
    properties: { type: 'string' },
  },
});
const suite = findSuite(values.suite ?? '') ?? usage(`unknown --suite ${String(values.suite)}`);
const modulePath = values.module ?? usage('--module is required');
const seed = integerOption(values.seed, 'seed');
const runs = integerOption(values.runs, 'runs');
const asked = values.properties?.split(',') ?? suite.properties.map((check) => check.id);
const checks = asked.map((id) => suite.properties.find((check) => check.id === id) ?? usage(`unknown property ${id}`));

send({ type: 'ready' });

let student: StudentModule;
try {
  student = (await import(pathToFileURL(modulePath).href)) as StudentModule;
} catch (error) {
  send({ type: 'unusable', message: `${modulePath} could not be loaded: ${clip(describeThrown(error), 400)}` });
  exit(0);
}
const missing = suite.requiredExports.filter((name) => typeof student[name] !== 'function');
if (missing.length > 0) {
  const names = missing.map((name) => `\`${name}\``).join(' and ');
  send({ type: 'unusable', message: `${modulePath} does not export ${names} as a function` });
  exit(0);
}

for (const check of checks) {
  send({ type: 'start', property: check.id });
  send(runCheck(check, student));
}
send({ type: 'done' });
exit(0); // whatever timers or handles the student's module left open

function runCheck(check: PropertyCheck, student: StudentModule): ChildMessage {
  const started = now();
  const details = fc.check(
    fc.property(check.arbitrary, (value) => {
      check.check(student, value);
    }),
    { seed, numRuns: runs },
  );
  const outcome = {
    type: 'outcome' as const,
    property: check.id,
    passed: !details.failed && !details.interrupted,
    numRuns: details.numRuns,
    numShrinks: details.numShrinks,
    seed: details.seed,
    durationMs: now() - started,
    interrupted: details.interrupted || undefined,
  };
  if (!details.failed || details.counterexample === null) return outcome;
  const [value] = details.counterexample;
  return {
    ...outcome,
    counterexample: show(value),
    problem: clip(describeFailure(details.errorInstance)),
    explanation: safely(() => check.explain?.(student, value) ?? []),
  };
}

/** The check's own message (a Broken), or what else went wrong in it. */
function describeFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'Broken') return error.message;
  return `the check itself failed: ${describeThrown(error)}`;
}

function safely(lines: () => string[]): string[] {
  try {
    return lines();
  } catch (error) {
    return [`(could not explain the counterexample: ${describeThrown(error)})`];
  }
}
