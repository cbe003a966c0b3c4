// Tests run on the compiled output in dist/ so that the code tested is the code shipped.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['dist/test/**/*.test.js'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // No test writes into the real user cache: XDG_CACHE_HOME is a temporary directory for the whole run.
    globalSetup: ['dist/test/support/cache-home-setup.js'],
  },
});
