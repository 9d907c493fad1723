// `theinference lint [<cassette>...]`: load and check each cassette (without one, those the course's
// cases are played from); 0 when all are sound, 1 when one has a problem, 2 when one does not load
// (said, and the next one checked).
import { relative } from 'node:path';
import { CassetteError, loadCassette, type Cassette } from '../cassette/index.ts';
import { defineCommand, type Parsed } from './command.ts';
import { courseHere } from './course.ts';
import { say } from './say.ts';

export const command = defineCommand({
  name: 'lint',
  synopsis: '[<cassette>...]',
  summary: "check cassettes (without one, every cassette the course's cases are played from)",
  options: {},
  positionals: true,
  run: lint,
});

/** `lint [<cassette>...]`: load and check each; 0 when all are sound. */
async function lint(parsed: Parsed<Record<never, never>>): Promise<number> {
  const named = parsed.positionals.length > 0;
  const files = named ? parsed.positionals : courseCassettes();
  const { lintCassette } = await import('../cassette/format/lint.ts');
  let code = 0;
  for (const file of files) {
    const cassette = load('lint', file);
    if (!cassette) {
      code = 2;
      continue;
    }
    const problems = lintCassette(cassette);
    for (const problem of problems) say('lint', `${file}${problem.line ? `:${problem.line}` : ''}: ${problem.message}`);
    if (problems.length > 0) code = Math.max(code, 1);
    else if (named) {
      const clients = cassette.frames.filter((frame) => frame.from === 'client').length;
      process.stdout.write(`${file}: ok (${cassette.frames.length} frames, ${clients} client messages)\n`);
    }
  }
  if (!named && code === 0) process.stdout.write(`the course's ${files.length} cassettes: ok\n`);
  return code;
}

/** The cassettes the cases of the course here are played from, as paths from the working folder. */
function courseCassettes(): string[] {
  return courseHere()
    .stages.flatMap((stage) => stage.cases)
    .flatMap((testCase) => testCase.endpoints.map((endpoint) => relative(process.cwd(), endpoint.cassettePath)));
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
