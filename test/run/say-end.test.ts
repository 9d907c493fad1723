// A program started ahead that says its end (warm-start.mjs; spawn.ts's sayEnd) is graded as its real
// exit is: what it wrote, to the last byte, and the code it left with. Then it waits, stopped, using
// nothing, until the grading is over (its Prestart cancelled), and is gone after. One that ends
// another way (a crash, its event loop run dry) ends as any program does.
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../harness/run/spawn.ts';
import { startAhead } from '../helpers/started-ahead.ts';

async function run(body: string, sayEnd: boolean) {
  const ahead = startAhead(body);
  const result = await ahead.started.release(sayEnd ? { sayEnd: true } : {}, undefined);
  return { ...ahead, result };
}

const facts = ({ exitCode, signal, stdout, stderr, flooded }: RunResult) => ({
  exitCode,
  signal,
  flooded,
  stdout: stdout.toString(),
  stderr: stderr.toString(),
});

describe('a program that says its end', () => {
  it('is graded as its real exit is: every byte it wrote, its exit listeners too, and its code', async () => {
    // 3 MB: far more than a pipe holds, so that much of it is still on its way when the end is said
    const body = `process.stdout.write('a'.repeat(3_000_000), () => {
      process.stderr.write('leaving\\n');
      process.on('exit', (code) => process.stderr.write('exit listener: ' + code + '\\n'));
      process.exit(4);
    });`;
    const said = await run(body, true);
    const real = await run(body, false);
    expect(facts(said.result)).toEqual(facts(real.result));
    expect(said.result).toMatchObject({ exitCode: 4, signal: null });
    expect(said.result.stdout.length).toBe(3_000_000);
    expect(said.result.stderr.toString()).toBe('leaving\nexit listener: 4\n');
    // stopped, all of it (bwrap, its init, node), until the grading is over
    expect((await said.afterStop()).map(({ state }) => state)).toEqual(['T', 'T', 'T']);
    expect(await real.gone()).toBe(true);
    said.started.cancel();
    expect(await said.gone()).toBe(true);
  });

  it('the code of process.exitCode, as a real exit leaves it', async () => {
    const said = await run(`process.exitCode = 261; process.exit();`, true);
    expect(said.result).toMatchObject({ exitCode: 5, signal: null });
  });

  it('ends as any program does where it crashes or its event loop runs dry: no end to say', async () => {
    const crash = await run(`setTimeout(() => { throw new Error('boom'); }, 10);`, true);
    expect(crash.result).toMatchObject({ exitCode: 1, signal: null });
    expect(crash.result.stderr.toString()).toContain('Error: boom');
    const dry = await run(`process.exitCode = 3; process.stdout.write('done\\n');`, true);
    expect(facts(dry.result)).toMatchObject({ exitCode: 3, stdout: 'done\n' });
    expect(await crash.gone()).toBe(true);
    expect(await dry.gone()).toBe(true);
  });
});
