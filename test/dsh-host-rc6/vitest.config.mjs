// Test-only package for dsh 0.1.0-rc.6: runs on the Node 22 binary from node_modules/node (see package.json "test").
// Only the files of this folder are collected; the main package's vitest never sees them (it runs dist/test/**/*.test.js).
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: dirname(fileURLToPath(import.meta.url)),
  test: {
    include: ['**/*.test.mts'],
    exclude: ['**/node_modules/**'],
    pool: 'forks',
    // sessionctx from `npm pack` of the repository, installed here (and into test/dsh-host for the rc.8 side).
    globalSetup: ['support/packed-sessionctx.mts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});
