import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Two cores on CI: forks keep process.chdir and spawned binaries simple.
    pool: 'forks',
    testTimeout: 30_000,
    env: { INFX_NO_CACHE: '1' },
  },
});
