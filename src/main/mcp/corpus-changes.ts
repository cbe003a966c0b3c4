/**
 * Tells the MCP server that the corpus changed, so it can send `notifications/resources/list_changed`: any entry
 * created, removed, renamed or written below the root, coalesced over a short quiet period so that one append batch
 * or a burst of new sessions costs one notification.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';

/** How long the root must be quiet before one notification goes out. */
export const CORPUS_CHANGE_QUIET_MS = 200;

/**
 * Watches `root` (recursively) and calls `onChange` once per burst of changes.
 * @param root - the session root
 * @param onChange - called after a burst, at most once per {@link CORPUS_CHANGE_QUIET_MS}
 * @param log - where a watch that cannot be placed is reported (the server then works without notifications)
 * @returns a function that stops watching (idempotent)
 */
export function watchCorpusChanges(root: string, onChange: () => void, log: (line: string) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  const changed = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      onChange();
    }, CORPUS_CHANGE_QUIET_MS);
  };
  try {
    watcher = watch(root, { recursive: true, persistent: false }, changed);
    watcher.on('error', (error) => {
      log(`sessionctx mcp: stopped watching ${root} for changes: ${error.message}`);
      watcher?.close();
    });
  } catch (error) {
    log(`sessionctx mcp: cannot watch ${root} for changes (${(error as Error).message}); clients are not told of new sessions`);
  }
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    watcher?.close();
    watcher = undefined;
  };
}
