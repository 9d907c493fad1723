import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most tests wait on child processes: a worker per core (vitest's default leaves one idle) keeps
    // every core busy; the limits under test count CPU time, so sharing the cores fails nothing.
    maxWorkers: availableParallelism(),
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
