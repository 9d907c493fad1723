import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Most tests wait on the programs they grade (sandboxes, timeouts, servers): twice as many test
    // files as cores keep the cores busy. Verdicts hold under that load (CPU-time limits, not wall).
    maxWorkers: availableParallelism() * 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
