/**
 * Path rules of the writing side (SESSION-LOG.md §9.16 rule 7): every encoded component must fit the file system's
 * name limit (checked before any file-system call), and no component under the root may be a symbolic link (writes
 * never follow a link out of the root).
 */
import { lstat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SessionLogError } from '../../protocol/errors.js';
import { isMissingFile, storeIoError } from '../../workers/tasks/regular-file.js';

/** The longest file name Linux and macOS accept for one path component, in bytes (NAME_MAX). */
export const MAX_COMPONENT_BYTES = 255;

/**
 * Fails when an encoded path component is longer than {@link MAX_COMPONENT_BYTES} UTF-8 bytes.
 *
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` naming the limit.
 */
export function assertComponentFits(what: 'session id' | 'project directory', component: string): void {
  const bytes = Buffer.byteLength(component, 'utf8');
  if (bytes > MAX_COMPONENT_BYTES) {
    throw new SessionLogError(
      'SESSION_STORE_INVALID_PATH',
      `session store: the ${what} encodes to a ${bytes}-byte directory name; file systems allow at most ${MAX_COMPONENT_BYTES} bytes per path component (use a shorter ${what === 'session id' ? 'id' : 'cwd'})`,
    );
  }
}

/**
 * Fails when any existing component of `path` below `root` (project directory, session directory, artifact) is a
 * symbolic link. Components that do not exist yet end the check (they will be created as plain entries).
 *
 * @throws SessionLogError `SESSION_STORE_INVALID_PATH` for a link; a typed store I/O error when `lstat` fails.
 */
export async function assertNoLinksBelowRoot(root: string, path: string): Promise<void> {
  const parts = relative(root, path).split(sep).filter((part) => part !== '');
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
