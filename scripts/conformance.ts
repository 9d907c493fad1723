// `npm run conformance`: the official MCP conformance suite (@modelcontextprotocol/conformance, run
// on the Node 22 of the `node` devDependency, which it needs) against the reference McpClient and
// HttpTransport, through scripts/conformance-client.ts (run on the Node running this script, the
// course's). Each client scenario the course covers is run, for spec versions 2025-11-25 (the
// initialize era) and 2026-07-28 (the stateless era), a few at a time, on localhost only; a table
// of scenario x spec version; the exit code is 1 if any covered scenario fails. A scenario new in
// the suite, which this file does not yet name, is listed as such. With --checks, the
// checks of each scenario run are listed too (id and status). docs/conformance.md has the table,
// the checks and the timing.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..');
/** The spec versions whose client scenarios are run: the 2025 era (initialize) and the stateless era. */
const SPEC_VERSIONS = ['2025-11-25', '2026-07-28'] as const;
type SpecVersion = (typeof SPEC_VERSIONS)[number];
/** Per scenario: the suite kills a client still running after this. A backstop for a client that
 *  hangs, never a measure: a correct run takes 2-5 s on a quiet machine, and took 20.8 s at load 12
 *  (the suite's default, 20 s, failed it there). */
const TIMEOUT_MS = 120_000;
/** Scenarios run at once (each is the suite's process, its server and a client process). */
const PARALLEL = 4;

/** The authorization scenarios of 2025-11-25 (stage 7's OAuthClient), in both versions. */
const AUTH_2025: Record<string, string> = {
  'auth/metadata-default': 'the 401 names the resource metadata; authorization server metadata at the root well-known URL; registration, PKCE, token',
  'auth/metadata-var1': 'no resource_metadata in the 401: the resource metadata at the path well-known URL; OpenID discovery',
  'auth/metadata-var2': 'the resource metadata at the root well-known URL only; an issuer with a path (RFC 8414 path insertion)',
  'auth/metadata-var3': 'the resource metadata at a custom URL the 401 names; OpenID discovery appended to the issuer path',
  'auth/basic-cimd': 'a Client ID Metadata Document URL as client_id, where the server supports one',
  'auth/scope-from-www-authenticate': "the scope the 401's challenge names is the one asked for",
  'auth/scope-from-scopes-supported': "without one in the challenge, the resource metadata's scopes_supported",
  'auth/scope-omitted-when-undefined': 'no scope anywhere: none asked for',
  'auth/scope-step-up': 'a 403 insufficient_scope: authorized again for the scopes held and those the challenge names',
  'auth/scope-retry-limit': 'a server that keeps answering 403: the client stops',
  'auth/token-endpoint-auth-basic': 'the registered client authenticates with client_secret_basic',
  'auth/token-endpoint-auth-post': 'the registered client authenticates with client_secret_post',
  'auth/token-endpoint-auth-none': 'a public client: client_id only',
  'auth/pre-registration': 'a client_id and secret given beforehand: no registration',
};

/** What the course teaches (stages 2 to 4 and 6: initialize or server/discover, tools/list,
 *  tools/call, elicitation, input_required, over Streamable HTTP; stage 7: authorization): the
 *  reference must pass these. Every client scenario of both versions. */
const COVERED: Record<SpecVersion, Record<string, string>> = {
  '2025-11-25': {
    ...AUTH_2025,
    initialize: 'initialize (protocolVersion, clientInfo), notifications/initialized, tools/list',
    tools_call: 'tools/list, then tools/call add_numbers with numbers',
    'json-schema-2020-12-preservation': 'a tool inputSchema from tools/list sent back verbatim (JSON Schema 2020-12 keywords kept)',
    'elicitation-sep1034-client-defaults': 'elicitation/create with a form whose fields have defaults, accepted with the defaults filled in (SEP-1034)',
    'sse-retry': 'a tools/call stream closed before its response: resumed with a GET and Last-Event-ID after the "retry" delay (SEP-1699)',
  },
  '2026-07-28': {
    ...AUTH_2025,
    'auth/resource-mismatch': 'resource metadata for another resource: not used',
    'auth/offline-access-scope': 'a server whose metadata offers offline_access: the flow (the suite scores no offline_access check of its own)',
    'auth/offline-access-not-supported': 'a server that does not offer offline_access: the flow, registration included',
    'auth/authorization-server-migration': 'the resource metadata names a new authorization server: registered there anew',
    'auth/iss-supported': 'the redirect names the issuer (RFC 9207), as its metadata says it will: checked',
    'auth/iss-not-advertised': 'no iss, and none advertised: accepted',
    'auth/iss-supported-missing': 'no iss where the metadata says there is one: refused',
    'auth/iss-wrong-issuer': 'an iss of another issuer: refused',
    'auth/iss-unexpected': 'an iss the metadata did not advertise: compared with the issuer all the same',
    'auth/iss-normalized': 'an iss that differs from the issuer only by a trailing slash: refused (compared exactly)',
    'auth/metadata-issuer-mismatch': 'authorization server metadata whose issuer is not the one asked for: not used',
    tools_call: 'server/discover, tools/list, then tools/call add_numbers with numbers, statelessly',
    'request-metadata': "the _meta keys on every request, MCP-Protocol-Version equal to _meta's, -32022 retried with a supported version",
    'http-standard-headers': 'Mcp-Method on every request, Mcp-Name on tools/call, resources/read and prompts/get',
    'http-custom-headers': 'x-mcp-header arguments mirrored into Mcp-Param-* headers, Base64 where not plain ASCII, null ones left out',
    'http-invalid-tool-headers': 'tools with invalid x-mcp-header annotations left out of listTools(), the valid one kept',
    'json-schema-ref-no-deref': 'a network $ref in an inputSchema never fetched',
    'json-schema-2020-12-preservation': 'a tool inputSchema from tools/list sent back verbatim (JSON Schema 2020-12 keywords kept)',
    'sep-2322-client-request-state':
      'input_required: requestState echoed (none when none was given), a new id, nothing carried to another call, no resultType means complete',
  },
};

/** `--checks`: list the checks of each scenario run after the table. */
const LIST_CHECKS = process.argv.includes('--checks');

interface Outcome {
  scenario: string;
  version: SpecVersion;
  passed: boolean;
  checks: { id: string; status: string; name: string; errorMessage?: string }[];
  output: string;
  /** Wall time of the scenario run (the suite's process, its server and the client). */
  seconds: number;
}

const require = createRequire(import.meta.url);
const node22 = join(dirname(require.resolve('node/package.json')), 'bin', 'node');
const suite = join(dirname(require.resolve('@modelcontextprotocol/conformance/package.json')), 'dist', 'index.js');
const quote = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;
// The client, bundled once for the whole run: through tsx, each of the 52 runs compiled it again (half a
// second of CPU a run). Our own code and the reference's, not a submission's: no sandbox needed.
const clientFolder = mkdtempSync(join(tmpdir(), 'theinference-conformance-client-'));
process.on('exit', () => rmSync(clientFolder, { recursive: true, force: true }));
const clientBundle = join(clientFolder, 'conformance-client.mjs');
await build({
  entryPoints: [join(ROOT, 'scripts', 'conformance-client.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: clientBundle,
  logLevel: 'warning',
});
/** The suite splits the command at spaces and runs it in a shell, the server URL appended. */
const clientCommand = `${quote(process.execPath)} ${quote(clientBundle)}`;

function run(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(node22, [suite, ...args], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024, timeout: TIMEOUT_MS * 2 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, output: stdout + stderr });
    });
  });
}

/** The suite's client scenarios of a spec version (cumulative: what applies at that version). */
async function scenarios(version: SpecVersion): Promise<string[]> {
  const { code, output } = await run(['list', '--client', '--spec-version', version]);
  if (code !== 0) throw new Error(`conformance list failed:\n${output}`);
  return [...output.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
}

async function runScenario(scenario: string, version: SpecVersion): Promise<Outcome> {
  const outputDir = mkdtempSync(join(tmpdir(), 'theinference-conformance-'));
  const start = performance.now();
  try {
    const args = ['client', '--command', clientCommand, '--scenario', scenario, '--spec-version', version, '--timeout', String(TIMEOUT_MS)];
    const { code, output } = await run([...args, '--output-dir', outputDir]);
    const file = readdirSync(outputDir, { recursive: true, encoding: 'utf8' }).find((path) => path.endsWith('checks.json'));
    const checks = file === undefined ? [] : JSON.parse(readFileSync(join(outputDir, file), 'utf8'));
    return { scenario, version, passed: code === 0, checks, output, seconds: (performance.now() - start) / 1000 };
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

/** Each job, at most `limit` at a time; the results in the jobs' order. */
async function inBatches<T>(jobs: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]!();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** "5/5": the checks that passed (SUCCESS) of those the suite scores (SUCCESS and FAILURE). */
function score({ checks }: Outcome): string {
  const scored = checks.filter((check) => check.status === 'SUCCESS' || check.status === 'FAILURE');
  return `${scored.filter((check) => check.status === 'SUCCESS').length}/${scored.length}`;
}

/** "2/2 checks", the checks that failed or warned, and what went wrong with the client. */
function summary(outcome: Outcome): string {
  const bad = outcome.checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
  const client = clientTrouble(outcome);
  return (
    `${score(outcome)} checks` +
    bad.map((check) => `; ${check.status} ${check.name}${check.errorMessage ? `: ${check.errorMessage}` : ''}`).join('') +
    (client ? `; ${client}` : '')
  );
}

/** The suite fails a scenario whose client timed out or exited with an error, whatever its checks. */
function clientTrouble({ output }: Outcome): string | undefined {
  if (output.includes('CLIENT TIMED OUT')) return 'the client timed out';
  const exited = /CLIENT EXITED WITH ERROR \(code (\d+)\)/.exec(output);
  return exited ? `the client exited with code ${exited[1]}` : undefined;
}

const started = performance.now();
console.log(
  `MCP conformance suite ${require('@modelcontextprotocol/conformance/package.json').version} (Node ${await versionOf(node22)}), client scenarios of ${SPEC_VERSIONS.join(' and ')}, client on Node ${process.version}`,
);
const listed = Object.fromEntries(await Promise.all(SPEC_VERSIONS.map(async (version) => [version, await scenarios(version)] as const))) as Record<
  SpecVersion,
  string[]
>;
for (const version of SPEC_VERSIONS) {
  const missing = Object.keys(COVERED[version]).filter((name) => !listed[version].includes(name));
  if (missing.length > 0) {
    console.log(`FAIL  the suite has no ${version} client scenario ${missing.join(', ')}`);
    process.exit(1);
  }
}
const torun = SPEC_VERSIONS.flatMap((version) => listed[version].filter((name) => name in COVERED[version]).map((name) => ({ name, version })));
const outcomes = await inBatches(
  torun.map(
    ({ name, version }) =>
      () =>
        runScenario(name, version),
  ),
  PARALLEL,
);

/** "pass 5/5" or "FAIL 0/1": the suite's result, and its checks that passed of those it scores. */
function result(outcome: Outcome): string {
  return `${outcome.passed ? 'pass' : 'FAIL'} ${score(outcome)}`;
}

/** One cell of the table: the result of a scenario run, ---- for one not run, empty for none of that version. */
function cell(name: string, version: SpecVersion): string {
  if (!listed[version].includes(name)) return '';
  const outcome = outcomes.find((o) => o.scenario === name && o.version === version);
  return outcome ? result(outcome) : '----';
}

const names = [...new Set(SPEC_VERSIONS.flatMap((version) => listed[version]))];
const width = Math.max(...names.map((name) => name.length));
console.log(`\n${'scenario'.padEnd(width)}  ${SPEC_VERSIONS.map((version) => version.padEnd(12)).join('  ')}  note`);
for (const name of names) {
  const covered = SPEC_VERSIONS.some((version) => name in COVERED[version]);
  const note = covered ? 'covered' : 'not covered: new in the suite; say in scripts/conformance.ts whether the course covers it';
  console.log(`${name.padEnd(width)}  ${SPEC_VERSIONS.map((version) => cell(name, version).padEnd(12)).join('  ')}  ${note}`);
}
console.log(
  "(a cell: pass or FAIL, the suite's result, with its checks that passed of those it scores, SUCCESS or FAILURE; ---- not run; empty: not a scenario of that version)",
);

if (LIST_CHECKS) {
  console.log(
    '\nThe checks of each scenario run, in the order the suite made them, INFO last (a WARNING fails a scenario too; SKIPPED and INFO are not scored):',
  );
  for (const outcome of outcomes) {
    const client = clientTrouble(outcome);
    console.log(`\n${outcome.scenario} (${outcome.version}): ${result(outcome)}${client ? `, ${client}` : ''} (${outcome.seconds.toFixed(1)} s)`);
    for (const line of checkLines(outcome)) console.log(`  ${line}`);
  }
}

let failed = 0;
const covered = outcomes.length;
for (const outcome of outcomes) {
  if (outcome.passed) continue;
  failed++;
  console.log(`\nFAIL  ${outcome.scenario} (${outcome.version}): ${summary(outcome)}`);
  console.log(outcome.output.replace(/^/gm, '      | '));
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`\n${covered - failed}/${covered} covered scenario runs pass (${seconds} s)`);
process.exit(failed > 0 ? 1 : 0);

/** A scenario's checks, one line each, in their order: its status and id (and, for a FAILURE or a
 *  WARNING, its message); a check made again with the same status, counted (×2); the INFO ones (the
 *  requests and responses the scenario server logs) on one line at the end. */
function checkLines({ checks }: Outcome): string[] {
  const counts = new Map<string, { status: string; id: string; message?: string; times: number }>();
  for (const check of checks) {
    const key = `${check.status} ${check.id}`;
    const seen = counts.get(key);
    if (seen) seen.times++;
    else counts.set(key, { status: check.status, id: check.id, ...(check.errorMessage && { message: check.errorMessage }), times: 1 });
  }
  const entries = [...counts.values()];
  const counted = (entry: { id: string; times: number }) => (entry.times > 1 ? `${entry.id} ×${entry.times}` : entry.id);
  const lines = entries
    .filter((entry) => entry.status !== 'INFO')
    .map((entry) => {
      const failed = entry.message && (entry.status === 'FAILURE' || entry.status === 'WARNING');
      return `${entry.status.padEnd(7)}  ${counted(entry)}${failed ? `: ${oneLine(entry.message!)}` : ''}`;
    });
  const info = entries.filter((entry) => entry.status === 'INFO');
  if (info.length > 0) lines.push(`${'INFO'.padEnd(7)}  ${info.map(counted).join(', ')}`);
  return lines;
}

/** A message on one line, at most 160 characters. */
function oneLine(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

async function versionOf(node: string): Promise<string> {
  return new Promise((resolve, reject) => execFile(node, ['--version'], (error, stdout) => (error ? reject(error) : resolve(stdout.trim()))));
}
