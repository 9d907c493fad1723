// One entry bundled as the grader bundles (harness/run/bundle.ts: in the bundler's sandbox where one
// can be made), for tests that need a bundle of their own.
import { dirname, join } from 'node:path';
import { bundle, type Bundled } from '../../harness/run/bundle.ts';
import { moduleBundlePath } from '../../harness/run/launcher.ts';

export async function bundleOne(
  entry: string,
  outfile: string,
  runRoot: string,
  options: { packages?: readonly string[]; sandbox?: boolean; folder?: string } = {},
): Promise<Bundled> {
  const [made] = await bundle([{ entry, outfile }], {
    runRoot,
    folder: options.folder ?? join(runRoot, 'src'),
    packages: options.packages ?? [],
    sandbox: options.sandbox ?? true,
  });
  return made!;
}

/** A student's module bundled as the launcher bundles it for the property oracle, from its own folder. */
export function bundleModule(modulePath: string, runRoot: string): Promise<Bundled> {
  return bundleOne(modulePath, moduleBundlePath(runRoot), runRoot, { folder: dirname(modulePath) });
}
