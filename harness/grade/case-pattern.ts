// Which cases a pattern names: `test --case` and watch mode's `p` filter read it the same way.
import type { Case, Stage } from '../course.ts';
import { UsageError } from '../errors.ts';
import { caseName } from './case.ts';

/** Of each stage, only the cases `pattern` matches (see caseMatcher), and no property tests (they are
 *  no case); a stage left with none is not graded. None matching at all is a UsageError naming the cases. */
export function casesToGrade(stages: Stage[], pattern: string | undefined): Stage[] {
  if (pattern === undefined) return stages;
  const matches = caseMatcher(pattern);
  const narrowed = stages.flatMap((stage) => {
    const cases = stage.cases.filter(matches);
    return cases.length === 0 ? [] : [{ ...stage, cases, properties: undefined }];
  });
  if (narrowed.length > 0) return narrowed;
  const names = stages.map((stage) => `${stage.slug}: ${stage.cases.map(caseName).join(', ')}`).join('; ');
  throw new UsageError(`--case ${pattern} matches no case of ${stages.length === 1 ? 'the stage' : 'the stages graded'} (${names})`);
}

/** Whether a case is one `pattern` names: the whole of its name as its check shows it (`mcp-frame/numbers`)
 *  or of its folder's (`numbers`), `*` standing for any run of characters, `/` too. A glob, not a substring,
 *  so that `refresh` names the case `refresh` and not `refresh-rotated` beside it. */
export function caseMatcher(pattern: string): (testCase: Case) => boolean {
  const glob = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
  return (testCase) => glob.test(caseName(testCase)) || glob.test(testCase.name);
}
