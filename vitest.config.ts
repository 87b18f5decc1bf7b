import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Inference tests are CPU-heavy on a 2-core machine: run files one or two at a time.
    fileParallelism: true,
    maxWorkers: 2,
    passWithNoTests: false,
    reporters: ['default'],
  },
});
