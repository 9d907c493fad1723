// The stage loop, one for every grader (a student's run, watch mode, CI): stages in the order
// given, each graded whole, until one fails (unless told to go on) or grading is stopped. What
// happens is told to the caller's reporter as it happens; nothing here prints.
import type { Stage } from '../course.ts';
import { gradeStage, type GradeOptions, type StageResult } from './stage.ts';
import type { Verdict } from '../run/verdict.ts';

export interface StageEvents {
  stageStart?(stage: Stage): void;
  verdict?(verdict: Verdict): void;
  /** Not called for a stage that was stopped (its verdicts are none). */
  stageEnd?(result: StageResult): void;
}

export interface StagesOptions extends Omit<GradeOptions, 'onVerdict'> {
  /** Grade the stages after one that fails too (CI's `--all`). */
  continueAfterFailure?: boolean;
}

/** The results of the stages graded to the end, in order: fewer than asked when one failed or grading was stopped. */
export async function gradeStages(stages: readonly Stage[], options: StagesOptions, events: StageEvents = {}): Promise<StageResult[]> {
  const results: StageResult[] = [];
  for (const stage of stages) {
    if (options.signal?.aborted) break;
    events.stageStart?.(stage);
    const result = await gradeStage(stage, { ...options, onVerdict: (verdict) => events.verdict?.(verdict) });
    if (options.signal?.aborted) break;
    events.stageEnd?.(result);
    results.push(result);
    if (!result.passed && !options.continueAfterFailure) break;
  }
  return results;
}
