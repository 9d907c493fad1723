// The lines a person reads under a failing check, in one order for every text reporter: the
// grader's notes, the difference, the hints, what the cassette player said, how to run it by
// hand. Made from the verdict's data; colour only where the painter has it.
import { moreDiagnosesLine } from '../cassette/index.ts';
import { visible } from '../grade/escape.ts';
import type { Difference, Hint, Verdict } from '../run/verdict.ts';
import { painter, type Painter } from './paint.ts';

/** What a check says beyond its verdict line. */
export type Account = Pick<Verdict, 'details' | 'difference' | 'hints' | 'sessions' | 'rerun'>;

export function detailLines(verdict: Account, paint: Painter): string[] {
  // Parts joined with concat, not push(...): a program's details may run to any number of lines.
  const parts: string[][] = [];
  if (verdict.details) parts.push(verdict.details.split('\n'));
  if (verdict.difference) parts.push(differenceLines(verdict.difference, paint));
  for (const hint of verdict.hints ?? []) parts.push(hintLines(hint, paint));
  const sessions = verdict.sessions ?? [];
  for (const { endpoint, cassette, diagnoses, more } of sessions) {
    if (diagnoses.length === 0) continue;
    // of a case that plays two endpoints or more, each player is named by its endpoint
    const player = sessions.length > 1 ? `the player of ${endpoint}` : 'the cassette player';
    parts.push([`${player} (${cassette}) says:`, ...diagnoses.map((diagnosis) => `  ${diagnosis.kind}: ${diagnosis.message}`)]);
    if (more > 0) parts.push([`  ${moreDiagnosesLine({ moreDiagnoses: more })}`]);
  }
  if (verdict.rerun) parts.push([`run it yourself: ${verdict.rerun}`]);
  return ([] as string[]).concat(...parts);
}

/** The details as plain text (no colour), or undefined when there are none: what results.json and JUnit keep. */
export function detailText(verdict: Account): string | undefined {
  const lines = detailLines(verdict, painter(false));
  return lines.length === 0 ? undefined : lines.join('\n');
}

export function differenceLines(difference: Pick<Difference, 'lines'>, paint: Painter): string[] {
  return difference.lines.map((line) => paint.spans(line));
}

export function hintLines(hint: Hint, paint: Painter): string[] {
  const [first = '', ...rest] = hint.lines;
  return [`${paint.paint(['bold', 'yellow'], 'hint:')} ${visible(first)}`, ...rest.map((line) => `      ${visible(line)}`)];
}
