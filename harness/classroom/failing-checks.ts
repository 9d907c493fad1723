// The checks most students fail: for each check of the course, how many of the graded students failed
// it, read from each student's report in the teacher's folder (whole: a hidden case is named there as
// the teacher named it). Only the teacher's gradebook page shows it; nothing a student reads does.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Origin } from '../report/model.ts';
import { readReport } from '../report/merge.ts';

/** How many checks the page ranks. */
export const RANKED_CHECKS = 20;

export interface FailingCheck {
  /** The check's stage (its slug) and name, as the teacher's report says them. */
  stage: string;
  name: string;
  origin: Origin;
  /** Graded students whose program did not pass it (a check the grader itself could not run is not counted). */
  failed: number;
  /** Graded students whose report has it. */
  graded: number;
}

export interface FailingChecks {
  /** Most failed first, ties in course order; at most RANKED_CHECKS, none that no one failed. */
  checks: FailingCheck[];
  /** Graded students whose report was counted. */
  students: number;
  /** The reports that could not be read, each with why. */
  unread: string[];
}

/** One check of one student's report, as counted here. */
interface Seen {
  id: string;
  stage: string;
  name: string;
  origin: Origin;
  position: number;
  failed: boolean;
}

/** What each report read said, kept while its file is unchanged: a class's gradebook is written again after
 *  every student, and reading every report each time would cost a class of n students n² reads. */
const seenByPath = new Map<string, { mtimeMs: number; size: number; checks: Seen[] }>();

function checksOf(path: string): Seen[] {
  const { mtimeMs, size } = statSync(path);
  const kept = seenByPath.get(path);
  if (kept && kept.mtimeMs === mtimeMs && kept.size === size) return kept.checks;
  const checks = readReport(path).stages.flatMap((stage) =>
    stage.checks.map((check) => ({
      id: check.id,
      stage: stage.slug,
      name: check.name,
      origin: check.origin,
      position: check.position,
      failed: check.status !== 'pass' && !check.infra,
    })),
  );
  seenByPath.set(path, { mtimeMs, size, checks });
  return checks;
}

/** What the ranking reads of a gradebook: its stages in course order, and each row's status and folder. */
export interface RankedBook {
  stages: readonly { slug: string }[];
  rows: readonly { status: string; folder: string }[];
}

/** The checks of the gradebook in `out` ranked by how many of its graded students (passed or failed) fail them. */
export function failingChecks(out: string, book: RankedBook): FailingChecks {
  const counts = new Map<string, FailingCheck & { order: [number, number] }>();
  const unread: string[] = [];
  let students = 0;
  for (const row of book.rows) {
    if (row.status !== 'pass' && row.status !== 'fail') continue;
    const path = join(out, 'teacher', row.folder, 'results.json');
    let checks: Seen[];
    try {
      checks = checksOf(path);
    } catch (error) {
      unread.push(`teacher/${row.folder}/results.json: ${(error as Error).message.replace(`${path}: `, '')}`);
      continue;
    }
    students += 1;
    for (const check of checks) {
      const stageIndex = book.stages.findIndex((stage) => stage.slug === check.stage);
      const count = counts.get(check.id) ?? {
        stage: check.stage,
        name: check.name,
        origin: check.origin,
        failed: 0,
        graded: 0,
        order: [stageIndex === -1 ? book.stages.length : stageIndex, check.position],
      };
      count.graded += 1;
      if (check.failed) count.failed += 1;
      counts.set(check.id, count);
    }
  }
  const ranked = [...counts.values()]
    .filter((check) => check.failed > 0)
    .sort((a, b) => b.failed - a.failed || a.order[0] - b.order[0] || a.order[1] - b.order[1])
    .slice(0, RANKED_CHECKS)
    .map(({ order: _, ...check }) => check);
  return { checks: ranked, students, unread };
}
