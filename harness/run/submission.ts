// A submission is graded as src/ only: a scratch copy of the course (its program.ts, harness
// configuration, cases and fixtures) with the submission's src/ put in, so that nothing else the
// submission contains can change how it is graded.
import { cpSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CourseError } from '../course.ts';

/** What the course contributes to a scratch copy; everything else comes from nowhere. */
const COURSE_PARTS = ['course.yaml', 'program.ts', 'your_program.sh', 'package.json', 'tsconfig.json', 'cases', 'fixtures', 'cassettes'];

export interface Scratch {
  root: string;
  remove(): void;
}

export function scratchCopy(courseRoot: string, submission: string): Scratch {
  const src = join(submission, 'src');
  if (!statSync(submission, { throwIfNoEntry: false })?.isDirectory()) {
    throw new CourseError(`--submission ${submission}: no such folder`);
  }
  if (!existsSync(join(src, 'mcp.ts'))) {
    throw new CourseError(`--submission ${submission}: no src/mcp.ts (a submission is graded by its src/ folder)`);
  }
  const root = mkdtempSync(join(tmpdir(), 'theinference-'));
  for (const part of COURSE_PARTS) {
    if (existsSync(join(courseRoot, part))) cpSync(join(courseRoot, part), join(root, part), { recursive: true });
  }
  cpSync(src, join(root, 'src'), { recursive: true });
  symlinkSync(join(courseRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
