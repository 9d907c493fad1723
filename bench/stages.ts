// Grading the handshake and tools stages on the reference: the cassette player against the live
// servers the cassettes were recorded from, on the same cases, in the same run. Live, each case's
// program gets on its fd 3 a real server process (the cassette's provenance command), instead of
// the player. Then a case over Streamable HTTP (the player served on 127.0.0.1) against a case
// over stdio (fd 3), each case's own time, same run; target: HTTP no slower than stdio + 50 ms.
// Run: node --import tsx bench/stages.ts [rounds]
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import { loadCassette } from '../harness/cassette/index.ts';
import { loadCourse, type Stage } from '../harness/course.ts';
import { runProgram } from '../harness/grade/case.ts';
import { gradeStage } from '../harness/grade/stage.ts';
import { programEnv } from '../harness/run/env.ts';
import { launcher } from '../harness/run/launcher.ts';
import { CORES, runPooled } from '../harness/run/pool.ts';
import { DEFAULT_LIMITS } from '../harness/run/spawn.ts';
import { COURSE_CONTENT } from '../harness/stages/index.ts';

const root = join(import.meta.dirname, '..');
const rounds = Number(process.argv[2] ?? 5);
const course = loadCourse(root);
const start = await launcher(root, { bundle: true });
const env = programEnv();

async function withPlayer(stage: Stage): Promise<number> {
  const started = performance.now();
  const result = await gradeStage(stage, { runRoot: root, content: COURSE_CONTENT, launcher: start, env, seed: 1, propertyRuns: 1 });
  if (!result.passed) throw new Error(`the reference failed ${stage.slug} under the player`);
  return performance.now() - started;
}

/** The same cases, each program talking to a fresh live server over its fd 3. */
async function live(stage: Stage): Promise<number> {
  const started = performance.now();
  const context = { runRoot: root, launcher: start, env, limits: DEFAULT_LIMITS };
  await runPooled(
    stage.cases.map((testCase) => async () => {
      const [command, ...args] = loadCassette(testCase.endpoints[0]!.cassettePath).provenance.command!;
      const server = spawn(command!, args, { cwd: root, stdio: ['pipe', 'pipe', 'ignore'] });
      const result = await runProgram(testCase, context, {
        onWire: (wire: Duplex) => {
          // Either side may close first: what the other still writes then has nowhere to go.
          wire.on('error', () => {});
          server.stdin.on('error', () => {});
          wire.pipe(server.stdin);
          server.stdout.pipe(wire);
        },
      });
      server.kill();
      if (result.exitCode !== 0) throw new Error(`${testCase.casePath} failed against the live server: ${result.stderr}`);
    }),
    CORES,
  );
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const slug of ['handshake', 'tools']) {
  const stage = course.stages.find((candidate) => candidate.slug === slug)!;
  // Cases edited by hand (an unsupported version, an error to initialize) have no live twin.
  const liveStage = { ...stage, cases: stage.cases.filter((testCase) => !/unsupported|initialize-error|json-rpc-error|audio/.test(testCase.name)) };
  const player: number[] = [];
  const server: number[] = [];
  const playerSame: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    player.push(await withPlayer(stage));
    playerSame.push(await withPlayer(liveStage));
    server.push(await live(liveStage));
  }
  console.log(`${slug}: ${stage.cases.length} cases with the player: ${median(player).toFixed(0)} ms (median of ${rounds})`);
  console.log(
    `  the ${liveStage.cases.length} cases a live server can play: player ${median(playerSame).toFixed(0)} ms, live server ${median(server).toFixed(0)} ms, ratio ${(median(playerSame) / median(server)).toFixed(2)}`,
  );
}

/** Each case's own time (its verdict's duration), over every round. */
async function caseTimes(slug: string): Promise<number[]> {
  const stage = course.stages.find((candidate) => candidate.slug === slug)!;
  const times: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const result = await gradeStage(stage, { runRoot: root, content: COURSE_CONTENT, launcher: start, env, seed: 1, propertyRuns: 1 });
    if (!result.passed) throw new Error(`the reference failed ${slug}`);
    times.push(...result.verdicts.map((verdict) => verdict.durationMs));
  }
  return times;
}
const [stdioCase, httpCase] = [median(await caseTimes('tools')), median(await caseTimes('streamable-http'))];
console.log(
  `a case over stdio (tools): ${stdioCase.toFixed(0)} ms; over Streamable HTTP (streamable-http): ${httpCase.toFixed(0)} ms; difference ${(httpCase - stdioCase).toFixed(0)} ms (target <= 50)`,
);
