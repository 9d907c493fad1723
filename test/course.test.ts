// The stage table is validated against cases/ and fixtures/ at start-up: each mistake in a
// course gives one line naming the file, the line and what was expected, exit 2, and no writes.
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stageIndex } from '../harness/commands/course.ts';
import { CourseError, loadCourse } from '../harness/course.ts';
import { UsageError } from '../harness/errors.ts';
import { suiteNames } from '../harness/stages/index.ts';
import { protocolTransports } from '../harness/protocols/index.ts';
import { answerTwice, courseCopy, REPO, runCli } from './helpers/cli.ts';

const copies: string[] = [];
function copy(): string {
  const dir = courseCopy();
  copies.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function editTable(dir: string, from: string, to: string): void {
  const path = join(dir, 'course.yaml');
  const text = readFileSync(path, 'utf8');
  if (!text.includes(from)) throw new Error(`course.yaml has no "${from}"`);
  writeFileSync(path, text.replace(from, to));
}

function lineOf(dir: string, text: string): number {
  return (
    readFileSync(join(dir, 'course.yaml'), 'utf8')
      .split('\n')
      .findIndex((line) => line.includes(text)) + 1
  );
}

/** What loading the course as the commands load it (the stages' suites, the protocols and transports known) says is wrong. */
function loadError(dir: string): string {
  try {
    loadCourse(dir, { suites: suiteNames(), protocols: protocolTransports() });
  } catch (error) {
    expect(error).toBeInstanceOf(CourseError);
    return (error as Error).message;
  }
  throw new Error('the course loaded without error');
}

describe('the stage table', () => {
  it('loads this course: stage 1 with its cases, each with an expected.json', () => {
    const course = loadCourse(REPO);
    expect(course.stages.map((stage) => stage.slug)[0]).toBe('config-and-framing');
    const [stage] = course.stages;
    expect(new Set(stage!.cases.map((testCase) => testCase.command))).toEqual(new Set(['mcp-frame', 'mcp-config']));
    expect(stage!.cases.length).toBeGreaterThanOrEqual(25);
    expect(stage!.timeoutMs).toBe(10_000);
  });

  it("lint without a cassette checks each one the course's cases are played from: this course's are sound, one that answers a POST twice is named at its line", async () => {
    const sound = await runCli(['lint']);
    expect(sound).toMatchObject({ code: 0, stderr: '' });
    expect(Number(/^the course's (\d+) cassettes: ok\n$/.exec(sound.stdout)?.[1])).toBeGreaterThanOrEqual(70);
    // the probe's answer (a JSON body: one message) said twice
    const dir = copy();
    const file = join('fixtures', 'stateless', 'fallback-2025', 'cassette.yaml');
    const { first, second } = answerTwice(join(dir, file));
    const twice = await runCli(['lint'], { cwd: join(dir, 'cases') });
    expect(twice).toMatchObject({ code: 1, stdout: '' });
    expect(twice.stderr).toBe(
      `theinference lint: ${join('..', file)}:${second}: the response went with request "server-discover-probe-1", whose response (line ${first}) had ended its POST already\n`,
    );
  });

  it('names the line of malformed YAML', () => {
    const dir = copy();
    editTable(dir, '    title: .mcp.json + framing', '    title: [unclosed');
    expect(loadError(dir)).toMatch(/^course\.yaml:\d+: malformed YAML/);
  });

  it('names an unknown command and the line it is on, and lists the known ones', () => {
    const dir = copy();
    editTable(dir, '      - command: mcp-config', '      - command: mcp-konfig');
    expect(loadError(dir)).toBe(
      `course.yaml:${lineOf(dir, 'mcp-konfig')}: unknown command "mcp-konfig" (program.ts commands: mcp-frame, mcp-config, handshake, tools, http, translate, stateless, authorization, resources, resources-http)`,
    );
  });

  it('names a property suite no stage has and the line it is on, and lists the suites there are', () => {
    const dir = copy();
    editTable(dir, 'properties: framing', 'properties: framng');
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'framng')}: unknown property suite "framng" (the stages' suites: framing, resources-and-prompts)`);
  });

  it('names a transport or a protocol no plug-in has, an endpoint without a protocol, each with the line it is on', () => {
    let dir = copy();
    editTable(
      dir,
      'mcp: { protocol: mcp, transport: stdio, cassette: cassette.yaml }',
      'mcp: { protocol: mcp, transport: websocket, cassette: cassette.yaml }',
    );
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'websocket')}: transport must be "stdio" or "http" (what protocol mcp plays on), not "websocket"`);
    dir = copy();
    editTable(dir, 'mcp: { protocol: mcp, transport: stdio, cassette: cassette.yaml }', 'mcp: { protocol: smtp, transport: stdio, cassette: cassette.yaml }');
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'smtp')}: protocol must be "mcp" or "http-api", not "smtp"`);
    dir = copy();
    // a transport is checked against its own protocol's: http-api plays over HTTP alone
    editTable(
      dir,
      'mcp: { protocol: mcp, transport: stdio, cassette: cassette.yaml }',
      'mcp: { protocol: http-api, transport: stdio, cassette: cassette.yaml }',
    );
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'http-api')}: transport must be "http" (what protocol http-api plays on), not "stdio"`);
    dir = copy();
    editTable(dir, 'mcp: { protocol: mcp, transport: stdio, cassette: cassette.yaml }', 'mcp: { transport: stdio }');
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'mcp: { transport: stdio }')}: missing "protocol" (expected a string)`);
  });

  it("gives each case its command's endpoints, each with its recording in the case's fixture folder", () => {
    const course = loadCourse(REPO);
    const stage = course.stages.find((one) => one.slug === 'resources-and-prompts')!;
    expect(
      new Set(stage.cases.map((testCase) => `${testCase.command} ${testCase.endpoints.map((endpoint) => `${endpoint.name}:${endpoint.transport}`).join()}`)),
    ).toEqual(new Set(['resources mcp:stdio', 'resources-http mcp:http']));
    const everything = stage.cases.find((testCase) => testCase.casePath === 'cases/resources-and-prompts/http/everything-http')!;
    expect(everything.endpoints).toEqual([
      {
        name: 'mcp',
        protocol: 'mcp',
        transport: 'http',
        env: 'THEINFERENCE_SERVER_URL',
        cassette: 'cassette.yaml',
        cassettePath: join(REPO, 'fixtures/resources-and-prompts/http/everything-http/cassette.yaml'),
      },
    ]);
    expect(course.stages[0]!.cases.every((testCase) => testCase.endpoints.length === 0)).toBe(true);
  });

  it('runs the cases "first" names first, in its order, and the rest by name; a name there that is no case is refused', () => {
    const handshake = loadCourse(REPO).stages.find((stage) => stage.slug === 'handshake')!;
    const names = handshake.cases.map((testCase) => testCase.name);
    expect(names.slice(0, 2)).toEqual(['everything-server', 'memory-server']);
    expect(names.slice(2)).toEqual([...names.slice(2)].sort());
    const dir = copy();
    editTable(dir, 'first: [everything-server, memory-server]', 'first: [memory-server, everything-servr]');
    expect(loadError(dir)).toBe(
      `course.yaml:${lineOf(dir, 'everything-servr')}: "first" names everything-servr, which is not a case folder of cases/handshake`,
    );
    editTable(dir, 'first: [memory-server, everything-servr]', 'first: everything-server');
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'first: everything-server')}: "stages[1].cases[0].first" must be a list of case names`);
  });

  it('refuses a stage whose case folder does not exist', () => {
    const dir = copy();
    editTable(dir, 'folder: config-and-framing/mcp-config', 'folder: config-and-framing/nowhere');
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'nowhere')}: cases/config-and-framing/nowhere is not a folder (expected a folder of case folders)`);
  });

  it('refuses a case without expected.json, naming it', () => {
    const dir = copy();
    rmSync(join(dir, 'fixtures/config-and-framing/mcp-frame/numbers/expected.json'));
    expect(loadError(dir)).toContain('case config-and-framing/mcp-frame/numbers has no fixtures/config-and-framing/mcp-frame/numbers/expected.json');
  });

  it("reads each stage's points (1 where none are given), and refuses points that are not a whole number, 0 or more", () => {
    expect(loadCourse(REPO).stages.map((stage) => stage.points)).toEqual([10, 15, 15, 15, 10, 15, 20, 15]);
    let dir = copy();
    editTable(dir, '    points: 10\n', '');
    expect(loadCourse(dir).stages[0]!.points).toBe(1);
    for (const bad of ['2.5', '-1', 'many']) {
      dir = copy();
      editTable(dir, 'points: 10', `points: ${bad}`);
      expect(loadError(dir), bad).toMatch(new RegExp(`^course\\.yaml:${lineOf(dir, `points: ${bad}`)}: "?(stages\\[0\\]\\.points"? must be|points must be)`));
    }
    dir = copy();
    editTable(dir, 'packages: []', "packages: ['@modelcontextprotocol/sdk']");
    expect(loadError(dir)).toContain('"@modelcontextprotocol/sdk" may not be allowed: the client is written by hand, never with the MCP SDK');
  });

  it('refuses a stage without cases, a missing title, a bad timeout, a duplicate slug, a newer version', () => {
    let dir = copy();
    editTable(dir, '    cases:\n', '    cases: []\n    unused:\n');
    expect(loadError(dir)).toMatch(/^course\.yaml:\d+: stage "config-and-framing" has no cases$/);
    dir = copy();
    editTable(dir, '    title: .mcp.json + framing\n', '');
    expect(loadError(dir)).toMatch(/^course\.yaml:\d+: missing "title" \(expected a string\)$/);
    dir = copy();
    editTable(dir, 'timeout: 10', 'timeout: soon');
    expect(loadError(dir)).toBe(`course.yaml:${lineOf(dir, 'timeout: soon')}: "stages[0].timeout" must be a number, not "soon"`);
    dir = copy();
    writeFileSync(
      join(dir, 'course.yaml'),
      `${readFileSync(join(dir, 'course.yaml'), 'utf8')}  - slug: config-and-framing\n    title: again\n    cases:\n      - command: mcp-frame\n        folder: config-and-framing/mcp-frame\n`,
    );
    expect(loadError(dir)).toMatch(/^course\.yaml:\d+: stage "config-and-framing" appears twice$/);
    dir = copy();
    editTable(dir, 'version: 2', 'version: 1');
    expect(loadError(dir)).toBe(
      `course.yaml:${lineOf(dir, 'version: 1')}: version 1 is not supported (expected 2: each command names its endpoints, docs/authoring.md)`,
    );
  });
});

describe('bad input on the command line', () => {
  it('an unknown --stage lists the known ones, exit 2', async () => {
    const run = await runCli(['test', '--stage', 'handshak']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('theinference test: unknown stage "handshak" (known: config-and-framing');
    expect(run.stdout).toBe('');
  });

  it('a stage is named by its slug or by its number as `list` prints it; a number out of range names the range and the stages', () => {
    const course = loadCourse(REPO);
    const slugs = course.stages.map((stage) => stage.slug);
    expect(stageIndex(course, 'handshake')).toBe(slugs.indexOf('handshake'));
    expect(stageIndex(course, '1')).toBe(0);
    expect(stageIndex(course, String(slugs.length))).toBe(slugs.length - 1);
    const range = `the course has stages 1 to ${slugs.length} (${slugs.map((slug, index) => `${index + 1} ${slug}`).join(', ')})`;
    for (const outside of ['0', String(slugs.length + 1)]) {
      expect(() => stageIndex(course, outside)).toThrow(new UsageError(`--stage ${outside}: ${range}`));
    }
    expect(() => stageIndex(course, 'handshak')).toThrow(
      new UsageError(`unknown stage "handshak" (known: ${slugs.join(', ')}; or a stage's number, 1 to ${slugs.length})`),
    );
  });

  it('--stage out of range, for test, bless and classroom alike: exit 2 before anything is graded', async () => {
    const runs = await Promise.all([
      runCli(['test', '--stage', '99']),
      runCli(['bless', '--stage', '0']),
      runCli(['classroom', '--roster', 'nowhere.csv', '--out', 'nowhere', '--stage', '99']),
    ]);
    for (const [run, command, given] of [
      [runs[0]!, 'test', '99'],
      [runs[1]!, 'bless', '0'],
      [runs[2]!, 'classroom', '99'],
    ] as const) {
      expect(run.code, command).toBe(2);
      expect(run.stdout, command).toBe('');
      expect(run.stderr, command).toMatch(
        new RegExp(`^theinference ${command}: --stage ${given}: the course has stages 1 to \\d+ \\(1 config-and-framing, 2 handshake, `),
      );
    }
  });

  it('an unknown option or command, exit 2', async () => {
    expect((await runCli(['test', '--stgae', 'x'])).code).toBe(2);
    const run = await runCli(['tset']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown command "tset"');
  });

  it('a missing or non-executable your_program.sh, exit 2, one line', async () => {
    const dir = copy();
    chmodSync(join(dir, 'your_program.sh'), 0o644);
    let run = await runCli(['test', '--stage', 'config-and-framing'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('theinference test: your_program.sh is not executable (run `chmod +x your_program.sh`)\n');
    rmSync(join(dir, 'your_program.sh'));
    run = await runCli(['test'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^theinference test: your_program\.sh is missing in .*\n$/);
  });

  it('a malformed stage table, exit 2, naming the line', async () => {
    const dir = copy();
    editTable(dir, '      - command: mcp-config', '      - command: mcp-konfig');
    const run = await runCli(['test'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`theinference test: course.yaml:${lineOf(dir, 'mcp-konfig')}: unknown command "mcp-konfig"`);
  });

  it('outside a course, exit 2', async () => {
    const run = await runCli(['test'], { cwd: '/' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no course.yaml in / or any folder above it');
  });
});

describe('test --case', () => {
  it('grades only the case named, by the last part of its name or a glob of the whole, without property tests: the reference passes', async () => {
    const [byName, byGlob] = await Promise.all([
      runCli(['test', '--stage', '1', '--case', 'numbers']),
      runCli(['test', '--stage', 'config-and-framing', '--case', '*/num*']),
    ]);
    for (const run of [byName, byGlob]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('1 case (config-and-framing: mcp-frame/numbers), no property tests\n');
      expect(run.stdout.match(/^ {2}[✓✗] .*$/gm)).toEqual([expect.stringMatching(/^ {2}✓ mcp-frame\/numbers /)]);
      expect(run.stdout).toContain('all graded stages pass: config-and-framing\n');
    }
  });

  it("matching nothing names the stage's cases, exit 2; it does not go with a CI run", async () => {
    const [nothing, ci] = await Promise.all([runCli(['test', '--stage', '1', '--case', 'numbrs']), runCli(['test', '--case', 'numbers', '--all'])]);
    const stage = loadCourse(REPO).stages[0]!;
    const names = stage.cases.map((testCase) => relative(join('cases', stage.slug), testCase.casePath)).join(', ');
    expect(nothing.code).toBe(2);
    expect(nothing.stdout).toBe('');
    expect(nothing.stderr).toContain(`theinference test: --case numbrs matches no case of the stage (config-and-framing: ${names})\n`);
    expect(ci.code).toBe(2);
    expect(ci.stderr).toContain('theinference test: --case grades some cases only; it does not go with --all, ');
  });
});
