// The grader's own package: the folder that holds its package.json (harness/ and lib/ are both one
// level below it), which, as npm publishes it, also holds the course's public files (course.yaml,
// program.ts, cases/, fixtures/, starter/; never src/, the reference solution): the course as
// published, which `test --feedback` grades a student's repository with.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

export const GRADER_ROOT = join(import.meta.dirname, '..');

/** The node_modules folder the dependencies of the package at `root` are in: the folder it was installed
 *  in (npm puts its dependencies beside it), or its own where it is not installed (a clone, a course). */
export function dependenciesOf(root: string): string {
  return basename(dirname(root)) === 'node_modules' ? dirname(root) : join(root, 'node_modules');
}

/** The version ranges the grader's package.json gives these of its dev dependencies (those it has):
 *  what it is itself checked with, so what a student's repository is given to check theirs. */
export function graderDevDependencies(names: readonly string[]): Record<string, string> {
  const { devDependencies = {} } = JSON.parse(readFileSync(join(GRADER_ROOT, 'package.json'), 'utf8')) as { devDependencies?: Record<string, string> };
  return Object.fromEntries(names.flatMap((name) => (devDependencies[name] === undefined ? [] : [[name, devDependencies[name]]])));
}
