/**
 * Path rules of the writing side (SESSION-LOG.md §9.16 rule 7): no component under the root may be a symbolic link
 * (writes never follow a link out of the root). The name-length rule is `io/artifact-path.ts`, checked wherever a
 * path is made.
 */
import { lstat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SessionLogError } from '../../../protocol/errors.js';
import { isMissingFile, storeIoError } from '../../../io/regular-file.js';

/**
 * Fails when any existing component of `path` below `root` (project directory, session directory, artifact) is a
 * symbolic link. Components that do not exist yet end the check (they will be created as plain entries).
 *
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` for a link; a typed store I/O error when `lstat` fails.
 */
export async function assertNoLinksBelowRoot(root: string, path: string): Promise<void> {
  const parts = relative(root, path)
    .split(sep)
    .filter((part) => part !== '');
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    let isLink: boolean;
    try {
      isLink = (await lstat(current)).isSymbolicLink();
    } catch (error) {
      if (isMissingFile(error)) return;
      throw storeIoError('stat', current, error);
    }
    if (isLink) {
      throw new SessionLogError(
        'SESSION_STORE_INVALID_PATH',
        `session store: refusing to write through ${JSON.stringify(current)}: it is a symbolic link, and writes never follow links under the root`,
      );
    }
  }
}
