// Test-only package: runs on the Node 22 binary from node_modules/node (see package.json "test"); the conformance
// suite needs Node >= 22. Only the files of this folder are collected; the main package's vitest never sees them.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: dirname(fileURLToPath(import.meta.url)),
  test: {
    include: ['**/*.test.mts'],
    exclude: ['**/node_modules/**'],
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
