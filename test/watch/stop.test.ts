// Watch mode stops as `q` does on Ctrl-C, on a kill and when its terminal closes (SIGHUP), and each time
// removes what it made in the temporary folder: the cases' scratch copies, its programs started ahead
// among them. Those two signals' default ends a process at once, and left the copies behind.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { courseCopy, REPO, trimCourse } from '../helpers/cli.ts';

const course = courseCopy();
trimCourse(course);
const made: string[] = [course];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('test --watch, stopped by a signal', () => {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    it(`stops on ${signal}, exits 0, and leaves nothing in the temporary folder`, async () => {
      const temporary = mkdtempSync(join(tmpdir(), 'watch-tmp-'));
      made.push(temporary);
      const child = spawn(process.execPath, [join(REPO, 'bin/theinference.js'), 'test', '--stage', '1', '--watch', '--runs', '10', '--seed', '3'], {
        cwd: course,
        env: { ...process.env, NO_COLOR: '1', TMPDIR: temporary },
      });
      // the grader's own (tsx keeps its cache there too, where the harness runs from source)
      const left = () => readdirSync(temporary).filter((name) => name.startsWith('theinference-'));
      let output = '';
      const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        await new Promise<void>((resolve) =>
          child.stdout.on('data', (chunk: Buffer) => {
            output += chunk.toString();
            if (output.includes('[watch] waiting for changes')) resolve();
          }),
        );
        expect(output).toContain('all graded stages pass: config-and-framing');
        // graded once, and the next grading's programs started ahead: each with its case's copy in there
        expect(left().length).toBeGreaterThan(0);
        child.kill(signal);
        expect(await exit).toBe(0);
        expect(left()).toEqual([]);
      } finally {
        child.kill('SIGKILL');
      }
    });
  }
});
