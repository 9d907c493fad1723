// `theinference new-case`: from a server to a graded case in one step. From a cassette (`--from`), or
// from a live server recorded first (`--script`, as `record` does it), it writes the case folder of
// the stage it names: the inputs the stage's command reads, the cassette as the fixture with the free
// paths a student's client needs, a case.md that says where it came from and what it checks, and the
// expected output blessed from the reference. Into the course, or (`--into <dir>`) a hidden-cases
// folder. All or nothing: everything is made in a scratch folder beside where it goes, and moved
// there at the end; bad input, a recording that fails, a cassette lint refuses or a reference unfit to
// bless changes nothing on disk.
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CassetteError, loadCassette, saveCassette, type Cassette, type Frame } from '../cassette/index.ts';
import { hiddenCasePath } from '../ci/hidden.ts';
import type { Case, Course, Endpoint, Stage } from '../course.ts';
import { InputError, UsageError } from '../errors.ts';
import { checkProgram } from '../run/launcher.ts';
import { blessOutside } from './bless.ts';
import { caseOfSession, sessionSteps } from './case-session.ts';
import { defineCommand, headed, type Options, type Output, type Parsed } from './command.ts';
import { courseHere, stageIndex } from './course.ts';

const OPTIONS = {
  stage: { type: 'string', value: '<slug|n>', help: 'the stage the case is for, by its name or number (one whose cases play an MCP server)' },
  name: { type: 'string', value: '<case>', help: "the case's folder name: lower-case words joined by -" },
  into: {
    type: 'string',
    value: '<dir>',
    help: "a hidden-cases folder (as test --cases reads it) to write the case into, not the course's",
  },
  about: { type: 'string', value: '<text>', help: 'what the case checks, for its case.md (default: the session it plays)' },
  ...headed(
    {
      from: { type: 'string', value: '<cassette>', help: 'the session, recorded already' },
      script: {
        type: 'string',
        value: '<session.yaml>',
        help: 'or: record it first, the SDK client playing these steps (as record --script),\nfrom the server command after -- (stdio) or at --http <url>',
      },
      http: { type: 'string', value: '<url>', help: "with --script: the server's URL (with a command after --, record starts it there; port 0: a free one)" },
      setup: { type: 'string', value: '<folder>', help: 'stdio: as record --setup' },
      env: { type: 'string', multiple: true, value: '<NAME=VALUE>', help: 'stdio: as record --env' },
    },
    'where the session comes from',
  ),
} as const satisfies Options;

export const command = defineCommand({
  name: 'new-case',
  synopsis: '--stage <slug|n> --name <case> (--from <cassette> | --script <session.yaml> [--http <url>] [-- <server command...>])',
  summary: 'make a case of a stage from a cassette or a live server, blessed (course authors)',
  options: OPTIONS,
  afterDashes: true,
  run: newCase,
});

/** Paths of every client message a student's client chooses for itself: its name and what it declares. */
const CLIENT_CHOSEN = ['params.clientInfo', 'params.capabilities'];

async function newCase(parsed: Parsed<typeof OPTIONS>, output: Output): Promise<number> {
  const { values } = parsed;
  if (values.stage === undefined || values.name === undefined) throw new UsageError(`usage: theinference new-case ${command.synopsis}`);
  const live = values.script !== undefined || values.http !== undefined || parsed.rest !== undefined;
  if ((values.from === undefined) === !live)
    throw new UsageError('new-case takes its session from --from <cassette>, or records it with --script <session.yaml>: one of them');
  if (live && values.script === undefined) throw new UsageError('recording the session takes --script <session.yaml> (the steps the SDK client plays)');

  const course = courseHere({ allowMissingExpected: true });
  const stage = course.stages[stageIndex(course, values.stage)]!;
  // where a stage grades its command over two transports (a folder each), the session's transport picks the folder
  const transport = live ? (values.http !== undefined ? 'http' : 'stdio') : peekTransport(values.from!);
  const { folder, command: programCommand, endpoint } = caseFolderOf(course, stage, transport);
  const player = endpoint.transport;
  if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(values.name)) throw new UsageError(`--name ${values.name}: a case's name is lower-case words and digits joined by "-"`);
  const root = resolve(values.into ?? course.root);
  const target = { cases: join(root, 'cases', folder, values.name), fixtures: join(root, 'fixtures', folder, values.name) };
  for (const path of Object.values(target))
    if (existsSync(path)) throw new InputError(`${shown(path)} exists: a case is never overwritten; give another --name`);
  // the scratch folder is made where the case goes (one file system: the moves at the end are renames);
  // a hidden-cases folder that does not exist yet is made only then
  const base = existsSync(root) ? root : dirname(root);
  if (!statSync(base, { throwIfNoEntry: false })?.isDirectory())
    throw new InputError(`--into ${values.into}: neither it nor the folder it would be made in exists`);
  checkProgram(course.root);

  const scratch = mkdtempSync(join(base, '.new-case-'));
  try {
    const source = values.from ?? join(scratch, 'recorded.yaml');
    if (live) {
      const recorded = await record(parsed, source, output);
      if (recorded !== 0) {
        output.err(`theinference new-case: the recording did not make a cassette (record exited ${recorded}); nothing written\n`);
        return recorded;
      }
    }
    const cassette = await checkedCassette(source, live ? 'the recording' : values.from!, stage, player);
    const staged = { cases: join(scratch, 'cases'), fixtures: join(scratch, 'fixtures') };
    const { frames, inputs } = caseOfSession(programCommand, cassette);
    mkdirSync(staged.cases);
    mkdirSync(staged.fixtures);
    for (const [file, value] of Object.entries(inputs)) writeFileSync(join(staged.cases, file), `${JSON.stringify(value, null, 2)}\n`);
    writeFileSync(join(staged.cases, 'case.md'), caseText(values.about, stage, frames, cassette, live ? undefined : values.from!));
    const fixture: Cassette = {
      ...cassette,
      free: [...new Set([...(cassette.free ?? []), ...CLIENT_CHOSEN])],
      frames: frames.map(({ line: _line, ...frame }) => frame as Frame),
    };
    delete fixture.file;
    saveCassette(fixture, join(staged.fixtures, endpoint.cassette));

    // blessed as a case outside the course, in a scratch copy that holds its inputs: its expected.json lands in the staged fixture
    const testCase: Case = {
      name: values.name,
      stage: stage.slug,
      command: programCommand,
      casePath: values.into === undefined ? join('cases', folder, values.name) : hiddenCasePath(folder, values.name),
      fixtureDir: staged.fixtures,
      expectedPath: join(staged.fixtures, 'expected.json'),
      endpoints: [{ ...endpoint, cassettePath: join(staged.fixtures, endpoint.cassette) }],
      ...(values.into !== undefined && { hidden: true }),
    };
    const blessed = await blessOutside(
      course,
      [{ ...stage, cases: [testCase] }],
      { byStage: new Map([[stage.slug, [testCase]]]), sources: new Map([[testCase, staged.cases]]) },
      values.into && root,
    );
    if (blessed !== 0) {
      output.err('theinference new-case: nothing written\n');
      return blessed;
    }
    moveInPlace(staged, target);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const grade = values.into === undefined ? `--stage ${stage.slug} --case ${values.name}` : `--stage ${stage.slug} --cases ${shown(root)}`;
  output.out(`new-case: wrote ${shown(target.cases)}/ and ${shown(target.fixtures)}/; grade it: theinference test ${grade}\n`);
  return 0;
}

/** The case folder of course.yaml the new case goes in, its command and the one endpoint its cases play:
 *  the stage's one folder, or, of a stage with a folder for each transport (resources-and-prompts), the
 *  one whose cases are played on the session's `transport`. A stage whose commands talk to one MCP
 *  server only. */
function caseFolderOf(course: Course, stage: Stage, transport: string | undefined): { folder: string; command: string; endpoint: Endpoint } {
  const one = (testCase: Case) => (testCase.endpoints.length === 1 && testCase.endpoints[0]!.protocol === 'mcp' ? testCase.endpoints[0] : undefined);
  const playing = course.stages.filter((each) => each.cases.length > 0 && each.cases.every((testCase) => one(testCase))).map((each) => each.slug);
  if (!stage.cases.every((testCase) => one(testCase)))
    throw new UsageError(
      `--stage ${stage.slug}: its cases do not play one MCP server each, so no cassette makes one; new-case makes cases of ${playing.join(', ')}`,
    );
  const folders = [...new Map(stage.cases.map((each) => [dirname(each.casePath), each])).entries()];
  const pick = (at: number) => {
    const { endpoints, command } = folders[at]![1];
    const { cassettePath: _path, ...endpoint } = endpoints[0]!;
    return { folder: relative('cases', folders[at]![0]), command, endpoint };
  };
  if (folders.length === 1) return pick(0);
  const byTransport = folders.map(([, each]) => each.endpoints[0]!.transport);
  const at = byTransport.indexOf(transport ?? '');
  if (at < 0 || byTransport.indexOf(transport!, at + 1) >= 0)
    throw new UsageError(
      `--stage ${stage.slug}: its cases are in ${folders.length} folders (${folders.map(([folder], index) => `${relative('cases', folder)} over ${byTransport[index]}`).join(', ')}); new-case picks the one of the session's transport${transport === undefined ? ', which it could not read' : `, ${transport}, and none or more than one is`}`,
    );
  return pick(at);
}

/** The transport of the cassette at `file`, if it can be read: checkedCassette says what is wrong with it otherwise. */
function peekTransport(file: string): string | undefined {
  try {
    return loadCassette(file, { diskCache: false }).transport;
  } catch {
    return undefined;
  }
}

/** `record` itself, into `out`, with new-case's recording options: what it says, it says. */
async function record(parsed: Parsed<typeof OPTIONS>, out: string, output: Output): Promise<number> {
  const { command: recordCommand } = await import('./record.ts');
  const { script, http, setup, env } = parsed.values;
  const values = { out, script, ...(http !== undefined && { http }), ...(setup !== undefined && { setup }), ...(env !== undefined && { env }) };
  return recordCommand.run({ values, positionals: [], ...(parsed.rest !== undefined && { rest: parsed.rest }) }, output);
}

/** The cassette at `file` (named `what`), loaded and linted, of the transport the stage plays; bad input names the file and what was expected. */
async function checkedCassette(file: string, what: string, stage: Stage, player: string): Promise<Cassette> {
  let cassette: Cassette;
  try {
    cassette = loadCassette(file, { diskCache: false });
  } catch (error) {
    if (error instanceof CassetteError && what !== file) throw new InputError(`${what}: ${error.message}`);
    throw error;
  }
  const { lintCassette } = await import('../cassette/format/lint.ts');
  const problems = lintCassette(cassette);
  if (problems.length > 0) {
    const [first] = problems;
    throw new InputError(
      `${what}${first!.line ? `:${first!.line}` : ''}: ${first!.message}${problems.length > 1 ? ` (and ${problems.length - 1} more: theinference lint ${what} says all)` : ''}; expected a cassette lint passes`,
    );
  }
  if (cassette.transport !== player)
    throw new InputError(
      `${what}: ${article(cassette.transport)} ${cassette.transport} session, and stage ${stage.slug} plays its cases over ${player}: expected ${article(player)} ${player} cassette`,
    );
  return cassette;
}

/** case.md: what it checks (the author's words, or the session it plays), and where it came from. */
function caseText(about: string | undefined, stage: Stage, frames: Frame[], cassette: Cassette, from: string | undefined): string {
  const { provenance } = cassette;
  const server = provenance.package
    ? `${provenance.package}${provenance.packageVersion ? ` ${provenance.packageVersion}` : ''}`
    : (provenance.command?.join(' ') ?? provenance.url ?? 'a server');
  const checks =
    about ?? `${stage.slug} (${stage.title}), against ${server}: the client's side of the session is ${sessionSteps(frames).join(', ')}, in that order.`;
  const origin = from === undefined ? `, from a session with ${server} recorded with a script` : ` from ${from}`;
  return `${checks}\n\nMade by \`theinference new-case\`${origin} (recorded ${provenance.recorded}); its expected.json is the reference's output.\n`;
}

/** The staged folders moved to where they go; the first moved back should the second fail. */
function moveInPlace(staged: { cases: string; fixtures: string }, target: { cases: string; fixtures: string }): void {
  mkdirSync(dirname(target.cases), { recursive: true });
  mkdirSync(dirname(target.fixtures), { recursive: true });
  renameSync(staged.cases, target.cases);
  try {
    renameSync(staged.fixtures, target.fixtures);
  } catch (error) {
    renameSync(target.cases, staged.cases);
    throw error;
  }
}

function article(word: string): string {
  return /^(?:[aeio]|http)/.test(word) ? 'an' : 'a';
}

function shown(path: string): string {
  return relative(process.cwd(), path) || '.';
}
