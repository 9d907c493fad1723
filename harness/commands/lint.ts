// `theinference lint <cassette>...`: load and check each cassette; 0 when all are sound, 1 when one
// has a problem, 2 when one does not load (said, and the next one checked).
import { CassetteError, loadCassette, type Cassette } from '../cassette/index.ts';
import { UsageError } from '../errors.ts';
import { defineCommand, type Parsed } from './command.ts';
import { say } from './say.ts';

export const command = defineCommand({
  name: 'lint',
  synopsis: '<cassette>...',
  summary: 'check cassettes',
  options: {},
  positionals: true,
  run: lint,
});

/** `lint <cassette>...`: load and check each; 0 when all are sound. */
async function lint(parsed: Parsed<Record<never, never>>): Promise<number> {
  if (parsed.positionals.length === 0) throw new UsageError('usage: theinference lint <cassette>...');
  const { lintCassette } = await import('../cassette/format/lint.ts');
  let code = 0;
  for (const file of parsed.positionals) {
    const cassette = load('lint', file);
    if (!cassette) {
      code = 2;
      continue;
    }
    const problems = lintCassette(cassette);
    for (const problem of problems) say('lint', `${file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
    if (problems.length > 0) code = Math.max(code, 1);
    else {
      const clients = cassette.frames.filter((frame) => frame.from === 'client').length;
      process.stdout.write(`${file}: ok (${cassette.frames.length} frames, ${clients} client messages)\n`);
    }
  }
  return code;
}

/** For lint, which goes on to the next file: a cassette that does not load is said, not thrown. */
function load(command: string, file: string): Cassette | undefined {
  try {
    return loadCassette(file);
  } catch (error) {
    if (!(error instanceof CassetteError)) throw error;
    say(command, error.message);
    return undefined;
  }
}
