import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Timing-accuracy suites run on their own (vitest.timing.config.ts): a test file running beside
    // them on a two-core machine takes the CPU their millisecond checks need.
    exclude: ['**/node_modules/**', '**/*.timing.test.ts'],
    // Two cores on CI: forks keep process.chdir and spawned binaries simple.
    pool: 'forks',
    testTimeout: 30_000,
    env: { INFX_NO_CACHE: '1' },
  },
});
