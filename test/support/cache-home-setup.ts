/**
 * vitest global setup: points `XDG_CACHE_HOME` at a fresh temporary directory for the whole run, so that no
 * test (nor a CLI process a test starts, which inherits the environment) writes a title index into the real
 * user cache directory. Stores opened with the library default (`process.env`) use it; tests that check the
 * cache location set their own directories explicitly. Removed when the run ends.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates the directory and exports it; returns the teardown that removes it. */
export default function setup(): () => void {
  const cacheHome = mkdtempSync(join(tmpdir(), 'sessionctx-test-cache-'));
  process.env['XDG_CACHE_HOME'] = cacheHome;
  return () => {
    rmSync(cacheHome, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  };
}
