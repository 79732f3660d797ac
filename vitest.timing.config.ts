import { defineConfig } from 'vitest/config';

/** The timing-accuracy suites, one file at a time and alone on the machine (npm test runs them last). */
export default defineConfig({
  test: {
    include: ['test/**/*.timing.test.ts'],
    globalSetup: ['test/quiet-host.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 30_000,
    env: { INFX_NO_CACHE: '1' },
  },
});
