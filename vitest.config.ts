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
    // expect.poll waits for a page or a server to show what the test expects; on a loaded 2-core
    // machine an upload measured by ffmpeg takes seconds, far past the 1 s default.
    expect: { poll: { timeout: 20_000 } },
    reporters: ['default'],
    // `npm run coverage`: lines of src/ run in the test processes (not in the separation processes
    // or worker threads they start, which V8 coverage here does not follow).
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage',
    },
  },
});
