// The stage table (course.yaml), read and checked against cases/ and fixtures/ on every start,
// so that a broken course fails with one line naming the file, the line and what was expected.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CourseError } from './errors.ts';
import { LineCounter, parseDocument, isMap, isSeq, type Document, type Node } from 'yaml';

export const COURSE_FILE = 'course.yaml';
const DEFAULT_TIMEOUT_SECONDS = 10;

/** A server a command's program talks to, as course.yaml names it (`endpoints:` of the command): each case
 *  of the command plays it from a recording of its own. */
export interface Endpoint {
  /** Its name under the command (`mcp`, `llm`): the lane reports give it. */
  name: string;
  /** How what is said is judged: a plug-in of harness/protocols/ (`mcp`, ...). */
  protocol: string;
  /** How its bytes go: a transport of harness/transports/ (`stdio`, the program's fd 3; `http`, a URL on
   *  127.0.0.1 the grader listens on). */
  transport: string;
  /** The variable that tells the program where it is (an `http` endpoint's URL); none for `stdio`. */
  env?: string;
  /** The recording's file name, in each case's fixture folder. */
  cassette: string;
}

/** An endpoint as one case plays it: from that case's recording. */
export interface CaseEndpoint extends Endpoint {
  /** Absolute: fixtures/<folder>/<case>/<the endpoint's cassette>. */
  cassettePath: string;
}

/** What program.ts accepts as its first argument (course.yaml's `commands:`). */
export interface ProgramCommand {
  name: string;
  /** What it does, in a sentence (`does:`). */
  does: string;
  /** The servers its program talks to, in the order course.yaml gives them; none for a command that
   *  reads its case's files only. */
  endpoints: Endpoint[];
}

export interface Case {
  /** The case folder's name: what a student sees and passes to your_program.sh. */
  name: string;
  /** The slug of the stage it belongs to. */
  stage: string;
  command: string;
  /** What the program is given, relative to the folder it runs in: `cases/<folder>/<case>`. */
  casePath: string;
  /** Absolute: fixtures/<folder>/<case>/, holding expected.json (and a recording per endpoint). */
  fixtureDir: string;
  expectedPath: string;
  /** The servers its program talks to, each played from its recording in fixtureDir; none for most of stage 1. */
  endpoints: CaseEndpoint[];
  /** A case kept outside the course (CI's --cases): its failures show the verdict and hint, never the expected bytes. */
  hidden?: boolean;
}

export interface Stage {
  slug: string;
  title: string;
  timeoutMs: number;
  /** What passing it is worth in a grade (`points:`, default 1): all of them, or none. */
  points: number;
  /** The property suite graded with this stage, if any. */
  properties?: string;
  cases: Case[];
}

export interface Course {
  root: string;
  commands: ProgramCommand[];
  stages: Stage[];
  /** The packages a submission may import besides Node's built-ins and its own files (`packages:`). */
  packages: string[];
}

export { CourseError };

/** The nearest folder at or above `from` that holds a course.yaml. */
export function findCourseRoot(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    if (existsSync(join(dir, COURSE_FILE))) return dir;
    if (dirname(dir) === dir) {
      throw new CourseError(`no ${COURSE_FILE} in ${from} or any folder above it: run theinference in the course directory`);
    }
  }
}

export interface LoadOptions {
  /** `bless` makes the expected.json files, so it may start without them. */
  allowMissingExpected?: boolean;
  /** The property suites a stage may name (the stages' modules hold them; the commands pass
   *  stages/index.ts suiteNames()); a stage's `properties:` is not checked without them. */
  suites?: readonly string[];
  /** The protocols an endpoint may name, each with the transports it plays on (protocols/index.ts,
   *  passed by the commands); not checked without them. */
  protocols?: Readonly<Record<string, readonly string[]>>;
}

/** The course.yaml version this grader reads. Version 1 named one transport a stage (`player:`) and a
 *  command by a sentence; version 2 names each command's endpoints. */
const COURSE_VERSION = 2;

export function loadCourse(root: string, options: LoadOptions = {}): Course {
  const file = join(root, COURSE_FILE);
  const table = new StageTable(readFileSync(file, 'utf8'));
  const version = table.scalar(['version'], 'number');
  if (version !== COURSE_VERSION)
    table.fail(['version'], `version ${version} is not supported (expected ${COURSE_VERSION}: each command names its endpoints, docs/authoring.md)`);

  const commands = table.keys(['commands']).map((name) => programCommand(table, name, options));
  const names = commands.map((command) => command.name);
  const packages = table.optionalStrings(['packages'], 'package names') ?? [];
  packages.forEach((name, index) => {
    if (!/^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i.test(name))
      table.fail(['packages', index], `"${name}" is not a package name (as npm names one: "yaml", "@scope/name")`);
    if (name.startsWith('@modelcontextprotocol/'))
      table.fail(['packages', index], `"${name}" may not be allowed: the client is written by hand, never with the MCP SDK`);
  });
  const stages: Stage[] = [];
  table.seq(['stages']).forEach((_, index) => {
    const at = ['stages', index];
    const slug = table.scalar([...at, 'slug'], 'string');
    if (!/^[a-z0-9]+(-[a-z0-9]+)*$/.test(slug)) table.fail([...at, 'slug'], `slug "${slug}" must be lower-case words joined by "-"`);
    if (stages.some((stage) => stage.slug === slug)) table.fail([...at, 'slug'], `stage "${slug}" appears twice`);
    const timeout = table.optional([...at, 'timeout'], 'number') ?? DEFAULT_TIMEOUT_SECONDS;
    if (!(timeout > 0)) table.fail([...at, 'timeout'], `timeout must be a positive number of seconds`);
    const points = table.optional([...at, 'points'], 'number') ?? 1;
    if (!Number.isInteger(points) || points < 0) table.fail([...at, 'points'], `points must be a whole number, 0 or more, not ${points}`);
    const cases = table.seq([...at, 'cases']).flatMap((_, caseIndex) => {
      const where = [...at, 'cases', caseIndex];
      const name = table.scalar([...where, 'command'], 'string');
      const command =
        commands.find((known) => known.name === name) ??
        table.fail([...where, 'command'], `unknown command "${name}" (program.ts commands: ${names.join(', ')})`);
      const folder = table.scalar([...where, 'folder'], 'string');
      const first = table.optionalStrings([...where, 'first'], 'case names');
      const cases = readCases(root, { stage: slug, command, folder }, options, (message) => table.fail([...where, 'folder'], message));
      return firstNamedFirst(cases, first, (name) => table.fail([...where, 'first'], `"first" names ${name}, which is not a case folder of cases/${folder}`));
    });
    if (cases.length === 0) table.fail([...at, 'cases'], `stage "${slug}" has no cases`);
    const properties = table.optional([...at, 'properties'], 'string');
    if (properties !== undefined && options.suites !== undefined && !options.suites.includes(properties)) {
      table.fail([...at, 'properties'], `unknown property suite "${properties}" (the stages' suites: ${options.suites.join(', ')})`);
    }
    stages.push({
      slug,
      title: table.scalar([...at, 'title'], 'string'),
      timeoutMs: timeout * 1000,
      points,
      properties,
      cases,
    });
  });
  if (stages.length === 0) table.fail(['stages'], 'the course has no stages');
  return { root, commands, stages, packages };
}

/** The cases `first` names, in its order (the focused ones, whose failures say the most), then the rest
 *  in name order. */
function firstNamedFirst(cases: Case[], first: string[] | undefined, unknown: (name: string) => never): Case[] {
  if (first === undefined) return cases;
  for (const name of first) if (!cases.some((testCase) => testCase.name === name)) unknown(name);
  const rank = (testCase: Case) => (first.includes(testCase.name) ? first.indexOf(testCase.name) : first.length);
  return [...cases].sort((a, b) => rank(a) - rank(b)); // stable: the rest keep their name order
}

/** A folder of cases under cases/: the stage and the command its cases belong to. */
export interface CaseFolder {
  stage: string;
  /** Its endpoints are played from each case's recordings. */
  command: ProgramCommand;
  /** Relative to cases/. */
  folder: string;
}

/** The cases of one command: every folder under cases/<folder>/, each with its expected.json (and a
 *  recording per endpoint of the command). */
function readCases(root: string, { stage, command, folder }: CaseFolder, options: LoadOptions, fail: (message: string) => never): Case[] {
  const casesDir = join(root, 'cases', folder);
  if (!isDirectory(casesDir)) fail(`cases/${folder} is not a folder (expected a folder of case folders)`);
  const names = readdirSync(casesDir)
    .filter((name) => isDirectory(join(casesDir, name)))
    .sort();
  if (names.length === 0) fail(`cases/${folder} holds no case folders`);
  return names.map((name) => {
    const fixtureDir = join(root, 'fixtures', folder, name);
    const expectedPath = join(fixtureDir, 'expected.json');
    if (!options.allowMissingExpected && !existsSync(expectedPath)) {
      fail(`case ${folder}/${name} has no ${relative(root, expectedPath)} (run \`theinference bless\` to make it from the reference solution)`);
    }
    const endpoints = caseEndpoints(command, fixtureDir, (endpoint, path) =>
      fail(`case ${folder}/${name} has no ${relative(root, path)} (its command's endpoint ${endpoint.name} is played from a recording)`),
    );
    return { name, stage, command: command.name, casePath: join('cases', folder, name), fixtureDir, expectedPath, endpoints };
  });
}

/** A command's endpoints as a case with fixture folder `fixtureDir` plays them: each from its recording there. */
export function caseEndpoints(command: ProgramCommand, fixtureDir: string, missing?: (endpoint: Endpoint, path: string) => never): CaseEndpoint[] {
  return command.endpoints.map((endpoint) => {
    const cassettePath = join(fixtureDir, endpoint.cassette);
    if (missing && !existsSync(cassettePath)) missing(endpoint, cassettePath);
    return { ...endpoint, cassettePath };
  });
}

/** A command of `commands:`: what it does and its endpoints, each checked. */
function programCommand(table: StageTable, name: string, options: LoadOptions): ProgramCommand {
  const at = ['commands', name];
  const does = table.scalar([...at, 'does'], 'string');
  const endpoints = table.optionalKeys([...at, 'endpoints']) ?? [];
  return {
    name,
    does,
    endpoints: endpoints.map((endpoint) => {
      const where = [...at, 'endpoints', endpoint];
      if (!/^[a-z][a-z0-9-]*$/.test(endpoint)) table.fail(where, `endpoint "${endpoint}" must be a lower-case name ("mcp", "llm")`);
      const protocol = table.scalar([...where, 'protocol'], 'string');
      const protocols = options.protocols;
      if (protocols && !Object.hasOwn(protocols, protocol))
        table.fail([...where, 'protocol'], `protocol must be ${oneOf(Object.keys(protocols))}, not "${protocol}"`);
      const transport = table.scalar([...where, 'transport'], 'string');
      const transports = protocols?.[protocol];
      if (transports && !transports.includes(transport))
        table.fail([...where, 'transport'], `transport must be ${oneOf(transports)} (what protocol ${protocol} plays on), not "${transport}"`);
      const env = table.optional([...where, 'env'], 'string');
      if (env !== undefined && !/^[A-Z][A-Z0-9_]*$/.test(env))
        table.fail([...where, 'env'], `env "${env}" must be a variable's name (THEINFERENCE_SERVER_URL)`);
      const cassette = table.optional([...where, 'cassette'], 'string') ?? `${endpoint}.yaml`;
      if (!/^[\w.-]+\.yaml$/.test(cassette) || cassette === 'expected.json')
        table.fail([...where, 'cassette'], `cassette "${cassette}" must be a file name ending in .yaml, in each case's fixture folder`);
      return { name: endpoint, protocol, transport, ...(env !== undefined && { env }), cassette };
    }),
  };
}

/** `"a" or "b"`, `"a", "b" or "c"`. */
function oneOf(names: readonly string[]): string {
  const quoted = names.map((name) => `"${name}"`);
  return quoted.length <= 1 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

type Path = (string | number)[];

/** Typed reads from the YAML document; every failure names the file, line and field. */
class StageTable {
  private readonly lines = new LineCounter();
  private readonly doc: Document;

  constructor(text: string) {
    this.doc = parseDocument(text, { lineCounter: this.lines });
    const [error] = this.doc.errors;
    if (error) {
      const line = error.linePos?.[0].line;
      throw new CourseError(`${this.where(line)}: malformed YAML: ${error.message.split('\n')[0]}`);
    }
  }

  scalar(path: Path, type: 'string'): string;
  scalar(path: Path, type: 'number'): number;
  scalar(path: Path, type: 'string' | 'number'): string | number {
    const value = this.optional(path, type as 'string');
    if (value === undefined) this.fail(path.slice(0, -1), `missing "${path.at(-1)}" (expected a ${type})`);
    return value;
  }

  optional(path: Path, type: 'string'): string | undefined;
  optional(path: Path, type: 'number'): number | undefined;
  optional(path: Path, type: 'string' | 'number'): string | number | undefined {
    const value: unknown = this.doc.getIn(path);
    if (value === undefined || value === null) return undefined;
    if (typeof value !== type) this.fail(path, `${this.name(path)} must be a ${type}, not ${JSON.stringify(value)}`);
    return value as string | number;
  }

  /** The keys of a mapping. */
  keys(path: Path): string[] {
    const node = this.doc.getIn(path, true);
    if (!isMap(node)) this.fail(path, `${this.name(path)} must be a mapping`);
    return node.items.map((item) => String((item.key as { value?: unknown })?.value ?? item.key));
  }

  /** The keys of a mapping, or undefined where there is none. */
  optionalKeys(path: Path): string[] | undefined {
    return this.doc.hasIn(path) ? this.keys(path) : undefined;
  }

  /** A list of strings (`what` they are), or undefined where there is none. */
  optionalStrings(path: Path, what: string): string[] | undefined {
    if (!this.doc.hasIn(path)) return undefined;
    const items = this.doc.getIn(path);
    const list = (items as { toJSON?: () => unknown } | undefined)?.toJSON?.() ?? items;
    if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) this.fail(path, `${this.name(path)} must be a list of ${what}`);
    return list as string[];
  }

  seq(path: Path): unknown[] {
    const node = this.doc.getIn(path, true);
    if (!isSeq(node)) this.fail(path, `${this.name(path)} must be a list`);
    return node.items;
  }

  fail(path: Path, message: string): never {
    throw new CourseError(`${this.where(this.lineOf(path))}: ${message}`);
  }

  private name(path: Path): string {
    return `"${path
      .map((part) => (typeof part === 'number' ? `[${part}]` : part))
      .join('.')
      .replaceAll('.[', '[')}"`;
  }

  /** The line of the deepest node on `path` that exists. */
  private lineOf(path: Path): number | undefined {
    for (let depth = path.length; depth >= 0; depth -= 1) {
      const node = (depth === 0 ? this.doc.contents : this.doc.getIn(path.slice(0, depth), true)) as Node | undefined;
      if (node?.range) return this.lines.linePos(node.range[0]).line;
    }
    return undefined;
  }

  private where(line: number | undefined): string {
    return line === undefined ? COURSE_FILE : `${COURSE_FILE}:${line}`;
  }
}
