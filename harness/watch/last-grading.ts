// What watch mode remembers of its last grading: the code it graded (the launcher's digest of the
// bundles) and what it graded it on (the stage table as read, the checks). A save whose code bundles to
// the same bytes at the same positions (a comment's words, a type, a save with no change) would run the
// same programs on the same cases and print the same: it is not graded again, and the grading on the
// screen stands. A key (a, f, p) always grades: a program that answers differently run to run shows so then.
import type { Course, Stage } from '../course.ts';
import { caseName } from '../grade/case.ts';

interface Graded {
  digest: string;
  course: Course;
  checks: string;
}

export class LastGrading {
  /** The last grading that ran to its end; none while one runs (its screen is not a grading's yet). */
  private last: Graded | undefined;
  private running: Graded | undefined;

  /** Whether the last grading graded this code on these stages of this stage table (the same object:
   *  the table is read again after a change outside src/). */
  graded(digest: string | undefined, course: Course, stages: readonly Stage[]): boolean {
    const last = this.last;
    return digest !== undefined && last !== undefined && last.digest === digest && last.course === course && last.checks === checksOf(stages);
  }

  /** A grading starts: it is remembered once it ends (`ended`); one stopped or failed is not. */
  starts(digest: string | undefined, course: Course, stages: readonly Stage[]): void {
    this.last = undefined;
    this.running = digest === undefined ? undefined : { digest, course, checks: checksOf(stages) };
  }

  ended(): void {
    this.last = this.running;
    this.running = undefined;
  }

  /** What is on the screen is no grading (a problem said instead): the next save grades. */
  forget(): void {
    this.last = undefined;
    this.running = undefined;
  }
}

/** The checks of the stages, by name: a filter (p, f) grades fewer. */
function checksOf(stages: readonly Stage[]): string {
  return JSON.stringify(stages.map((stage) => [stage.slug, stage.cases.map(caseName), stage.properties ?? null]));
}
